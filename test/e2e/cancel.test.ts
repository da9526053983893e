// Cancelling with the operator down: what Kubernetes itself does with a deleted HeldJob and its
// Job when no operator is there to handle the finalizer (docs/heldjobs.md, "Cancelling").
import { describe, expect, test } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { FINALIZER, Phase } from '../../api/vocabulary.js';
import { afterIn, heldJob } from '../support/builders.js';
import { kubeconfigPath } from '../support/env.js';
import { withScenario, type Scenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually, staysTrue } from '../support/wait.js';

const run = promisify(execFile);
const NAME = 'web-7-deploy';

function kubectlDelete(s: Scenario, ...flags: string[]) {
  return run('kubectl', ['--kubeconfig', kubeconfigPath(), 'delete', 'heldjob', NAME, '-n', s.namespace, '--wait=false', ...flags]);
}

/** Runs a HeldJob until its Job's Pod runs (and keeps running); returns the Job's name. */
async function runningJob(s: Scenario): Promise<string> {
  await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ after: afterIn(1000).after }], exitCode: 'never' }));
  const jobName = await eventually(
    'the HeldJob to run',
    async () => {
      const hj = await s.kube.getHeldJob(s.namespace, NAME);
      return hj?.status?.phase === Phase.Running ? hj.status.jobName : undefined;
    },
    Timeouts.jobMs,
  );
  await eventually(
    "the Job's Pod to run",
    async () => ((await s.kube.listPods(s.namespace)).some((p) => p.status?.phase === 'Running') ? true : undefined),
    Timeouts.jobMs,
  );
  return jobName;
}

const finalizersOf = (hj: HeldJobObject): string[] => hj.metadata.finalizers ?? [];

const gone = (s: Scenario) => async () => ((await s.kube.getHeldJob(s.namespace, NAME)) ? undefined : true);
const jobGone = (s: Scenario, jobName: string) => async () => ((await s.kube.jobExists(s.namespace, jobName)) ? undefined : true);

describe('cancel with the operator down', () => {
  test.concurrent(
    'a HeldJob held on an `after` only carries no finalizer: deleted, it is gone at once, and no Job follows',
    () =>
      withScenario('cancel-down-held', async (s) => {
        const { after, atMs } = afterIn(Timeouts.leadMs);
        await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ after }] }));
        await eventually('the hold', async () =>
          (await s.kube.getHeldJob(s.namespace, NAME))?.status?.phase === Phase.Held ? true : undefined,
        );
        expect(finalizersOf((await s.kube.getHeldJob(s.namespace, NAME))!)).not.toContain(FINALIZER);
        await s.operator.stop();

        await kubectlDelete(s);
        await eventually('the HeldJob to be gone', gone(s));
        expect({ cancelledBeforeTheInstant: Date.now() < atMs }).toEqual({ cancelledBeforeTheInstant: true });
        const second = await s.restartOperator();
        await staysTrue('no Job, past the instant', async () => (await s.kube.listJobs(s.namespace)).length === 0, atMs + 2000);
        expect(second.logLines().filter((l) => l['msg'] === 'Created Job')).toHaveLength(0);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'a running HeldJob deleted with --cascade=foreground: the garbage collector deletes its Job; the operator, back, lets the HeldJob go',
    () =>
      withScenario('cancel-down-fg', async (s) => {
        const jobName = await runningJob(s);
        await s.operator.stop();

        await kubectlDelete(s, '--cascade=foreground');
        // Foreground deletion is the garbage collector's own: it deletes the Job (and its Pods)
        // first, whatever other finalizer the HeldJob carries.
        await eventually('the garbage collector to delete the Job', jobGone(s, jobName), Timeouts.gcMs);
        // What may still hold the HeldJob is waitgate's finalizer, and nothing else.
        await eventually('the HeldJob to be gone, or held by waitgate alone', async () => {
          const hj = await s.kube.getHeldJob(s.namespace, NAME);
          if (!hj) return true;
          const finalizers = finalizersOf(hj);
          return finalizers.length === 1 && finalizers[0] === FINALIZER ? true : undefined;
        });

        const second = await s.restartOperator();
        await eventually('the HeldJob to be gone', gone(s));
        expect(await s.kube.listJobs(s.namespace)).toHaveLength(0);
        expect(second.logLines().filter((l) => l['msg'] === 'Created Job')).toHaveLength(0);
      }),
    Timeouts.testMs,
  );

  // Passes once a running HeldJob no longer carries the finalizer (operator/decide: taken off
  // with the launch); until then the HeldJob waits, Terminating, for an operator.
  test.concurrent(
    'a running HeldJob deleted (the default cascade): it is gone at once, and the garbage collector deletes its Job',
    () =>
      withScenario('cancel-down-bg', async (s) => {
        const jobName = await runningJob(s);
        // The operator takes the finalizer off once it has seen the Job; a stop before that
        // leaves the HeldJob waiting for the next operator (the test above).
        await eventually('the finalizer to come off', async () => {
          const hj = await s.kube.getHeldJob(s.namespace, NAME);
          return hj && finalizersOf(hj).length === 0 ? true : undefined;
        });
        await s.operator.stop();
        try {
          await kubectlDelete(s);
          await eventually('the HeldJob to be gone', gone(s));
          await eventually('the garbage collector to delete the Job', jobGone(s, jobName), Timeouts.gcMs);
          expect(await s.kube.listJobs(s.namespace)).toHaveLength(0);
        } finally {
          // Whatever happened, an operator lets a HeldJob still held by the finalizer go, so the
          // namespace can be deleted.
          if (await s.kube.getHeldJob(s.namespace, NAME)) {
            await s.restartOperator();
            await eventually('the HeldJob to be gone', gone(s)).catch(() => undefined);
          }
        }
      }),
    Timeouts.testMs,
  );
});
