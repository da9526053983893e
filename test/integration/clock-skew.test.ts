// Operators whose clocks disagree share one Valkey: their leases must still agree. Each caller
// here has its own injected clock, 42 s apart, over a real Valkey.
import { describe, expect, test } from '@jest/globals';
import { ProfileMode, type Profile } from '../../api/profiles.js';
import { SlottedCheckGate } from '../../operator/checks/slotted-check-runner.js';
import type { CheckAnswer } from '../../operator/checks/exec-check.js';
import { Slots } from '../../lib/valkey/slots.js';
import { ValkeyKeys } from '../../lib/valkey/keys.js';
import { captureLog, checkAnswer, deferred, FakeCheckGateMetrics, FakeCheckRunner } from '../support/fakes.js';
import { withValkey } from '../support/valkey.js';

const SKEW_MS = 42_000;
/** Shorter than the skew: a caller 42 s ahead would see a live lease as lapsed. */
const LEASE_TTL_MS = 30_000;
const PROFILE: Profile = { name: 'ci', mode: ProfileMode.Exec, script: 'wait-ci.sh' };

describe('check slots across clocks 42 s apart', () => {
  test.each([
    ['the one ahead cannot evict the live place of the one behind', 0, SKEW_MS],
    ['the one behind cannot evict the live place of the one ahead', SKEW_MS, 0],
  ])('%s', (_name, firstSkew, secondSkew) =>
    withValkey('clock-skew-checks', async (v) => {
      const keys = new ValkeyKeys(v.prefix.replace(/:$/, ''));
      const slotKeys = { fleet: keys.checkSlots(), active: keys.checkActive(), ofNamespace: (ns: string) => keys.checkSlotsOf(ns) };
      const started = deferred();
      const finish = deferred<CheckAnswer>();
      const gate = (workerName: string, skewMs: number, runner: FakeCheckRunner) =>
        new SlottedCheckGate({
          slots: new Slots(v.redis),
          runner,
          metrics: new FakeCheckGateMetrics(),
          log: captureLog().log,
          now: () => Date.now() + skewMs,
          slotKeys,
          slotLimit: 1,
          workerName,
          uidOf: (key) => `uid-of-${key}`,
          leaseTtlMs: LEASE_TTL_MS,
          knobs: { checkSlots: 1, intervalMs: 60_000, concurrency: 2 },
        });
      const first = gate('op-a', firstSkew, new FakeCheckRunner(() => (started.resolve(), finish.promise)));
      const second = gate('op-b', secondSkew, new FakeCheckRunner());

      const running = first.run('team-a/web-1', PROFILE, 'acme/web#1');
      await started.promise;
      // The one slot is taken by a check that is still running: the other operator is denied.
      await expect(second.run('team-b/web-2', PROFILE, 'acme/web#2')).resolves.toEqual({ kind: 'denied' });
      expect(await v.redis.zcard(slotKeys.fleet)).toBe(1);

      finish.resolve(checkAnswer({ exitCode: 3 }));
      await expect(running).resolves.toMatchObject({ kind: 'answered' });
      // Given back: now the other one gets it.
      await expect(second.run('team-b/web-2', PROFILE, 'acme/web#2')).resolves.toMatchObject({ kind: 'answered' });
    }),
  );
});
