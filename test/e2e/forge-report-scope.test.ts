// #30, finding 5: whoever may write HeldJobs does not borrow the install's forge credential.
// Against the real apiserver, a real operator holding a forge token and a fake forge that records
// every call: a tenant's HeldJob naming another team's private repository, and one that forges the
// receiver's made-by label for a trigger nobody declared, make the operator send nothing at all
// (no comment, and no lookup whose answer would tell whether the repository exists), and
// status.reports says only that the transition was Skipped and why.
import { describe, expect, test } from '@jest/globals';
import { FailureReason, Labels, Phase } from '../../api/vocabulary.js';
import { heldJob } from '../support/builders.js';
import { FakeForge } from '../support/fake-forge.js';
import { phaseReached, withScenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const VICTIM = 'victim/private#3';

async function withForge(body: (forge: FakeForge) => Promise<void>): Promise<void> {
  const forge = await FakeForge.start();
  try {
    await body(forge);
  } finally {
    await forge.stop();
  }
}

/** The install's forge credential, reporting every transition, for some other namespace only. */
const operatorEnv = (forge: FakeForge) => ({
  WAITGATE_GITHUB_TOKEN: 'ghp_install_token',
  WAITGATE_GITHUB_API_URL: forge.githubApiUrl,
  WAITGATE_FORGE_REPORT: 'refused,launched,finished',
  WAITGATE_FORGE_REPORT_NAMESPACES: 'some-other-team',
});

type Reports = { transition: string; outcome: string; skipped?: string; commentId?: string }[];

const reportsOf = async (s: { kube: { getHeldJob(ns: string, n: string): Promise<unknown> }; namespace: string }, name: string) =>
  ((await s.kube.getHeldJob(s.namespace, name)) as { status?: { reports?: Reports } } | undefined)?.status?.reports ?? [];

describe('forge reports stay with the receiver’s holds', () => {
  test.concurrent(
    'a tenant’s HeldJob naming a private repository of another team: nothing sent, Skipped in status',
    () =>
      withForge((forge) =>
        withScenario(
          'report-scope-tenant',
          async (s) => {
            // Refused at once (its `after` is years beyond the longest wait), so a report is due.
            await s.kube.createHeldJob(
              s.namespace,
              heldJob({ name: 'probe', target: VICTIM, forge: 'github', waitFor: [{ after: '2099-01-01T00:00:00Z' }] }),
            );
            await phaseReached(s, 'probe', Phase.Refused, Timeouts.shortMs);
            const [entry, ...rest] = await eventually('the transition recorded', async () => {
              const r = await reportsOf(s, 'probe');
              return r.length > 0 ? r : undefined;
            });
            expect(rest).toEqual([]);
            expect(entry).toMatchObject({ transition: 'refused', outcome: 'Skipped' });
            expect(entry?.skipped).toMatch(/not made by the receiver/);
            expect(entry?.commentId).toBeUndefined();
            // Not a comment, not a search for an earlier one: the forge never heard of it.
            expect(forge.calls).toEqual([]);
          },
          operatorEnv(forge),
        ),
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'a HeldJob that forges the receiver’s label for an undeclared trigger: failed unbound, nothing sent',
    () =>
      withForge((forge) =>
        withScenario(
          'report-scope-forged',
          async (s) => {
            const forged = heldJob({ name: 'ghost', target: VICTIM, trigger: 'ghost', forge: 'github' }) as {
              metadata: { labels: Record<string, string> };
            };
            forged.metadata.labels[Labels.madeBy] = 'receiver';
            await s.kube.createHeldJob(s.namespace, forged);
            await phaseReached(s, 'ghost', Phase.Failed, Timeouts.jobMs);
            const hj = (await s.kube.getHeldJob(s.namespace, 'ghost')) as { status?: { reason?: string; jobName?: string } };
            expect(hj.status?.reason).toBe(FailureReason.TriggerUndeclared);
            const [entry] = await eventually('the transition recorded', async () => {
              const r = await reportsOf(s, 'ghost');
              return r.length > 0 ? r : undefined;
            });
            expect(entry).toMatchObject({ transition: 'finished', outcome: 'Skipped' });
            expect(entry?.skipped).toMatch(/not bound to its trigger/);
            expect(forge.calls).toEqual([]);
          },
          // The install's triggers, none named ghost: the label claims a trigger that does not exist.
          { env: operatorEnv(forge), configMaps: { 'waitgate-triggers': { 'triggers.json': '[]' } } },
        ),
      ),
    Timeouts.testMs,
  );
});
