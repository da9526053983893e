// The whole chain for `after`: HeldJob → operator → Job → Pod made by the Job controller →
// scheduled by kube-scheduler onto a kwok node → ended by kwok with the chosen exit code.
import { describe, expect, test } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Phase } from '../../api/vocabulary.js';
import { afterIn, heldJob } from '../support/builders.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeconfigPath } from '../support/env.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { withScenario, type Scenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually, staysTrue } from '../support/wait.js';

const run = promisify(execFile);
const NAME = 'web-7-deploy';

async function phaseOf(s: Scenario): Promise<string | undefined> {
  return (await s.kube.getHeldJob(s.namespace, NAME))?.status?.phase;
}

function reaches(s: Scenario, phase: string, timeoutMs: number = Timeouts.jobMs) {
  return eventually(
    `HeldJob ${s.namespace}/${NAME} to reach ${phase}`,
    async () => ((await phaseOf(s)) === phase ? true : undefined),
    timeoutMs,
  );
}

function created(job: { metadata?: { creationTimestamp?: Date | string } }): number {
  return new Date(job.metadata?.creationTimestamp as Date | string).getTime();
}

describe('after: held until the instant, then launched exactly once', () => {
  test.concurrent(
    'a Job whose Pod exits 0 ends Succeeded, launched no earlier than the instant',
    () =>
      withScenario('after-ok', async (s) => {
        const { after, atMs } = afterIn(Timeouts.leadMs);
        await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ after }], exitCode: 0 }));
        await reaches(s, Phase.Held, Timeouts.shortMs);
        await staysTrue('no Job before the instant', async () => (await s.kube.listJobs(s.namespace)).length === 0, atMs - 300);
        await reaches(s, Phase.Succeeded);

        const jobs = await s.kube.listJobs(s.namespace);
        expect(jobs).toHaveLength(1);
        expect(created(jobs[0]!)).toBeGreaterThanOrEqual(atMs);
        const pods = await s.kube.listPods(s.namespace);
        expect(pods.length).toBeGreaterThanOrEqual(1);
        expect(pods[0]!.spec?.nodeName).toMatch(/^kwok-node-/);
        expect(pods[0]!.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(0);

        const hj = await s.kube.getHeldJob(s.namespace, NAME);
        expect(hj?.status).toMatchObject({ phase: Phase.Succeeded, jobName: jobs[0]!.metadata?.name });
        expect(hj?.status?.waitLabel).toContain(`after ${after.slice(0, 16)}`);
        expect(hj?.status?.waitingSince).toBeUndefined();
        expect(hj?.status?.waitedSeconds).toBeGreaterThanOrEqual(2);
        const reasons = (await s.kube.eventsFor(s.namespace, NAME)).map((e) => e.reason);
        expect(reasons).toEqual(expect.arrayContaining(['Launched', 'Succeeded']));
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'a Job whose Pod exits 1 ends Failed',
    () =>
      withScenario('after-fail', async (s) => {
        const { after } = afterIn(3000);
        await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ after }], exitCode: 1 }));
        await reaches(s, Phase.Failed);
        const pods = await s.kube.listPods(s.namespace);
        expect(pods[0]?.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(1);
        const hj = await s.kube.getHeldJob(s.namespace, NAME);
        expect(hj?.status?.message).toMatch(/failed \(BackoffLimitExceeded\)/);
        expect(await s.kube.listJobs(s.namespace)).toHaveLength(1);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    '`kubectl delete heldjob` while held: no Job is ever created',
    () =>
      withScenario('after-cancel', async (s) => {
        const { after, atMs } = afterIn(Timeouts.leadMs);
        await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ after }] }));
        await reaches(s, Phase.Held, Timeouts.shortMs);
        await run('kubectl', ['--kubeconfig', kubeconfigPath(), 'delete', 'heldjob', NAME, '-n', s.namespace]);
        await eventually('the HeldJob to be gone', async () => ((await s.kube.getHeldJob(s.namespace, NAME)) ? undefined : true));
        // What follows claims nothing unless the cancel came before the instant.
        expect({ cancelledBeforeTheInstant: Date.now() < atMs }).toEqual({ cancelledBeforeTheInstant: true });
        await staysTrue('no Job in the namespace', async () => (await s.kube.listJobs(s.namespace)).length === 0, atMs + 3000);
        expect(s.operator.logLines().filter((l) => l['msg'] === 'Created Job')).toHaveLength(0);
      }),
    Timeouts.testMs,
  );

  // With the operator up. What Kubernetes does with the operator down: cancel.test.ts.
  test.concurrent(
    'deleting a HeldJob whose Job runs, operator up: the Job is deleted and an OperatorCancel Event says operator-cancel',
    () =>
      withScenario('after-gc', async (s) => {
        const { after } = afterIn(1000);
        await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ after }], exitCode: 'never' }));
        await reaches(s, Phase.Running);
        const jobName = (await s.kube.getHeldJob(s.namespace, NAME))?.status?.jobName as string;
        await eventually(
          "the Job's Pod to run",
          async () => ((await s.kube.listPods(s.namespace)).some((p) => p.status?.phase === 'Running') ? true : undefined),
          Timeouts.jobMs,
        );
        await s.kube.custom.deleteNamespacedCustomObject({
          group: 'waitgate.dev',
          version: 'v1alpha1',
          plural: 'heldjobs',
          namespace: s.namespace,
          name: NAME,
        });
        await eventually(
          'the Job to be deleted',
          async () => ((await s.kube.jobExists(s.namespace, jobName)) ? undefined : true),
          Timeouts.gcMs,
        );
        const cancel = await eventually('the OperatorCancel Event', async () =>
          (await s.kube.eventsFor(s.namespace, NAME)).find((e) => e.reason === 'OperatorCancel'),
        );
        expect(cancel.message).toMatch(/^operator-cancel/);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'operator SIGKILLed and restarted while holding: the Job still launches once, at its instant',
    () =>
      withScenario('after-restart', async (s) => {
        const { after, atMs } = afterIn(6000);
        await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ after }] }));
        await reaches(s, Phase.Held, Timeouts.shortMs);
        const heldSince = (await s.kube.getHeldJob(s.namespace, NAME))?.status?.heldSince;
        await s.operator.kill('SIGKILL');
        const second = await s.restartOperator();
        await reaches(s, Phase.Succeeded);
        const jobs = await s.kube.listJobs(s.namespace);
        expect(jobs).toHaveLength(1);
        expect(created(jobs[0]!)).toBeGreaterThanOrEqual(atMs);
        // It launched at the instant, not at some later poll; or, where the new process took
        // longer than the lead to start (a busy machine), as soon as it had started.
        const startedAt = Date.parse(String((await second.logged('Started'))['time']));
        expect(created(jobs[0]!)).toBeLessThan(Math.max(atMs, startedAt) + 3000);
        expect((await s.kube.getHeldJob(s.namespace, NAME))?.status?.heldSince).toBe(heldSince);
        expect(await second.loggedTimes('Created Job', 1)).toHaveLength(1);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'operator down across the instant: launched once as soon as it is back',
    () =>
      withScenario('after-down', async (s) => {
        const { after, atMs } = afterIn(3000);
        await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ after }] }));
        await reaches(s, Phase.Held, Timeouts.shortMs);
        await s.operator.kill('SIGKILL');
        await staysTrue('no Job while the operator is down', async () => (await s.kube.listJobs(s.namespace)).length === 0, atMs + 2000);
        const restartedAt = Date.now();
        await s.restartOperator();
        await reaches(s, Phase.Succeeded);
        const jobs = await s.kube.listJobs(s.namespace);
        expect(jobs).toHaveLength(1);
        expect(created(jobs[0]!)).toBeGreaterThanOrEqual(Math.floor(restartedAt / 1000) * 1000);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'an apiserver outage stops the watches; the informers restart and catch up',
    async () => {
      const kc = readFileSync(kubeconfigPath(), 'utf8');
      const apiPort = Number(/server: https:\/\/127\.0\.0\.1:(\d+)/.exec(kc)?.[1]);
      const proxy = new TcpProxy('127.0.0.1', apiPort);
      const port = await proxy.start();
      const proxied = join(tmpdir(), `waitgate-operator-proxied-${port}.kubeconfig`);
      writeFileSync(proxied, kc.replace(/server: https:\/\/127\.0\.0\.1:\d+/, `server: https://127.0.0.1:${port}`));
      try {
        await withScenario(
          'after-outage',
          async (s) => {
            await proxy.cut();
            // Created while the operator cannot see the apiserver.
            const { after } = afterIn(1000);
            await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ after }] }));
            await s.operator.logged('Informer stopped; restarting');
            await proxy.restore();
            await reaches(s, Phase.Succeeded);
            expect(await s.kube.listJobs(s.namespace)).toHaveLength(1);
          },
          { KUBECONFIG: proxied },
        );
      } finally {
        await proxy.cut();
      }
    },
    Timeouts.testMs,
  );
});
