// The hold says when: status.releaseAt and status.givesUpAt on real holds, through the real
// operator and apiserver, in `kubectl get -o wide` and `waitgate held -o json`; and the maximum
// wait that runs from the first hold while waitgate-profiles is missing.
import { describe, expect, test } from '@jest/globals';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { givesUpAtMs, lastCheckOffsetMs } from '../../api/cadence.js';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { Phase, RefusalToken } from '../../api/vocabulary.js';
import { afterIn, heldJob } from '../support/builders.js';
import { kubeconfigPath, ROOT } from '../support/env.js';
import { profilesConfigMap } from '../support/profiles.js';
import { withScenario, type Scenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const run = promisify(execFile);
const HOUR = 3_600_000;
const NOT_YET = '#!/bin/sh\nexit 3\n';

function holdWith(s: Scenario, name: string, ok: (hj: HeldJobObject) => boolean, what: string): Promise<HeldJobObject> {
  return eventually(
    `HeldJob ${s.namespace}/${name}: ${what}`,
    async () => {
      const hj = await s.kube.getHeldJob(s.namespace, name);
      return hj && ok(hj) ? hj : undefined;
    },
    Timeouts.jobMs,
  );
}

describe('the hold says when it releases and when it gives up', () => {
  test.concurrent(
    'an after and a profile: releaseAt is the instant, givesUpAt the instant plus the figure doctor prints; after a check, from where it stands',
    () =>
      withScenario(
        'horizon',
        async (s) => {
          const { after, atMs } = afterIn(HOUR);
          await s.kube.createHeldJob(s.namespace, heldJob({ name: 'later', waitFor: [{ after }, { profile: 'notyet' }] }));
          await s.kube.createHeldJob(s.namespace, heldJob({ name: 'now', waitFor: [{ profile: 'notyet' }] }));

          const later = await holdWith(s, 'later', (hj) => hj.status?.givesUpAt !== undefined, 'givesUpAt written');
          expect(Date.parse(later.status?.releaseAt as string)).toBe(atMs);
          expect(Date.parse(later.status?.givesUpAt as string)).toBe(Math.round(atMs + lastCheckOffsetMs(3, 60_000, 24 * HOUR)));

          // Checked once ("not yet"): from its next check, with two checks of three left.
          const now = await holdWith(s, 'now', (hj) => (hj.status?.checks ?? 0) >= 1 && hj.status?.givesUpAt !== undefined, 'checked');
          const st = now.status ?? {};
          expect(st.releaseAt).toBeUndefined();
          const expected = givesUpAtMs({
            checksDone: st.checks as number,
            nextRoundMs: Date.parse(st.nextCheckAt as string),
            expiresAtMs: Date.parse(st.expiresAt as string),
            intervalMs: 60_000,
            maxChecks: 3,
          });
          expect(Math.abs(Date.parse(st.givesUpAt as string) - expected)).toBeLessThan(1000);
          expect(Date.parse(st.givesUpAt as string)).toBeLessThanOrEqual(Date.parse(st.expiresAt as string));

          // Where users look: kubectl's wide columns and the CLI's data.
          const wide = await run('kubectl', ['--kubeconfig', kubeconfigPath(), 'get', 'heldjobs', '-n', s.namespace, '-o', 'wide'], {
            timeout: Timeouts.shortMs,
          });
          const [header, ...lines] = wide.stdout.trim().split('\n');
          expect(header).toMatch(/RELEASES\s+GIVES UP/);
          expect(lines.find((l) => l.startsWith('later '))).toContain(later.status?.givesUpAt);
          const held = await run(process.execPath, [join(ROOT, 'bin', 'waitgate.js'), 'held', '-n', s.namespace, '-o', 'json'], {
            env: { PATH: process.env['PATH'] ?? '', KUBECONFIG: kubeconfigPath() },
            timeout: Timeouts.shortMs,
          });
          const rows = JSON.parse(held.stdout) as { name: string; releaseAt: string | null; givesUpAt: string | null }[];
          expect(rows.find((r) => r.name === 'later')).toMatchObject({
            releaseAt: new Date(atMs).toISOString(),
            givesUpAt: new Date(Date.parse(later.status?.givesUpAt as string)).toISOString(),
          });
        },
        { env: { WAITGATE_WAIT_MAX_CHECKS: '3' }, configMaps: { 'waitgate-profiles': profilesConfigMap({ notyet: NOT_YET }) } },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'waitgate-profiles missing: the clock runs all the same; when it returns, the last check runs and the hold ends wait-expired',
    () =>
      withScenario(
        'horizon-paused',
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: 'paused', waitFor: [{ profile: 'notyet' }] }));
          const paused = await holdWith(
            s,
            'paused',
            (hj) => hj.status?.conditions?.some((c) => c.type === 'Waiting' && c.reason === 'ProfilesUnreadable') === true,
            'paused on the missing profiles',
          );
          const expiresAt = Date.parse(paused.status?.expiresAt as string);
          expect(expiresAt - Date.parse(paused.status?.checksSince as string)).toBe(4000);
          expect(paused.status?.checks ?? 0).toBe(0);
          // The clock runs out while the profiles are away.
          await eventually('the maximum wait to pass', async () => (Date.now() > expiresAt + 500 ? true : undefined), Timeouts.shortMs);
          await s.kube.core.createNamespacedConfigMap({
            namespace: s.namespace,
            body: { metadata: { name: 'waitgate-profiles', namespace: s.namespace }, data: profilesConfigMap({ notyet: NOT_YET }) },
          });
          const ended = await holdWith(s, 'paused', (hj) => hj.status?.phase === Phase.Refused, 'refused');
          expect(ended.status).toMatchObject({ reason: RefusalToken.Expired, checks: 1, lastExitCode: 3 });
          expect(ended.status?.givesUpAt).toBeUndefined();
        },
        { env: { WAITGATE_WAIT_MAX_MS: '4000' } },
      ),
    Timeouts.testMs,
  );
});
