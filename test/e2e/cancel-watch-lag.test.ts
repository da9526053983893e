// A cancel while the operator's Job watch lags behind its own create (issue 22): the Job it
// created must not run on, its HeldJob gone, though its Job cache has not seen it yet (issue 23:
// the launch takes no finalizer, so the HeldJob goes at once; the operator knows the Job it
// created and deletes it, fence and all). The operator reaches the apiserver through a
// proxy that holds back the Job watch's events, so its Job informer lags for real.
import { describe, expect, test } from '@jest/globals';
import { API_GROUP, API_VERSION, ConditionReason, EventReason, HELDJOB_PLURAL, JOB_LAUNCH_FINALIZER } from '../../api/vocabulary.js';
import { jobNameFor } from '../../api/job-name.js';
import { heldJob } from '../support/builders.js';
import { withHttpApiserverProxy } from '../support/http-apiserver-proxy.js';
import { withScenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const NAME = 'web-7-deploy';
/** The operator's Job informer's watch (its list goes through). */
const isJobWatch = (method: string, path: string) => method === 'GET' && /^\/apis\/batch\/v1\/(namespaces\/[^/]+\/)?jobs\?/.test(path);

describe('a cancel while the Job watch lags', () => {
  test.concurrent(
    'deleted just after its Job was created, the Job not yet in the operator’s cache: the operator deletes the Job it created, and says so',
    () =>
      withHttpApiserverProxy((proxy, kubeconfig) =>
        withScenario(
          'cancel-watch-lag',
          async (s) => {
            // From here on the operator's Job informer hears of no Job: its watch stays open,
            // its events wait in the proxy.
            proxy.delayWatches(isJobWatch);
            // The write that records the create is refused, so the Job keeps its launch fence, as
            // it does between the create and that record (the moment a cancel meets here).
            proxy.answerRequests((method, path, body) =>
              method === 'PUT' && path.includes(`/${HELDJOB_PLURAL}/${NAME}/status`) && body.includes(`"${ConditionReason.JobCreated}"`)
                ? 503
                : undefined,
            );
            const hj = await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, exitCode: 'never' }));
            const jobName = jobNameFor({ name: NAME, uid: hj.metadata.uid });
            await eventually('the operator to create the Job', async () =>
              (await s.kube.jobExists(s.namespace, jobName)) ? true : undefined,
            );
            await eventually('the operator to try to record the create', async () => (proxy.answeredCount > 0 ? true : undefined));
            // The lag is real: the Job's events are in the proxy, not in the operator's cache.
            expect(proxy.delayedBytes).toBeGreaterThan(0);
            const job = await s.kube.batch.readNamespacedJob({ name: jobName, namespace: s.namespace });
            expect(job.metadata?.finalizers).toContain(JOB_LAUNCH_FINALIZER);

            await s.kube.custom.deleteNamespacedCustomObject({
              group: API_GROUP,
              version: API_VERSION,
              plural: HELDJOB_PLURAL,
              namespace: s.namespace,
              name: NAME,
            });
            await eventually(
              'the HeldJob to be gone',
              async () => ((await s.kube.getHeldJob(s.namespace, NAME)) ? undefined : true),
              Timeouts.jobMs,
            );
            // Whatever the operator learns from now on, the Job must not be left running.
            proxy.heal();
            proxy.flushWatches();
            await eventually(
              'the Job to be deleted',
              async () => ((await s.kube.jobExists(s.namespace, jobName)) ? undefined : true),
              Timeouts.gcMs,
            );
            const reasons = (await s.kube.eventsFor(s.namespace, NAME)).map((e) => e.reason);
            expect(reasons).toContain(EventReason.OperatorCancel);
            // The HeldJob carried no finalizer (the launch takes none): it went at once, and the
            // operator, which knew of the Job it had created, deleted it and lifted its fence.
            await s.operator.logged('Deleted Job of a cancelled HeldJob');
          },
          { env: { KUBECONFIG: kubeconfig } },
        ),
      ),
    Timeouts.testMs,
  );
});
