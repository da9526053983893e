// Arm, then fire: a hold whose only condition is an instant records its launch ahead of it
// (Launched Unknown, Armed, in the write that holds it) and at the instant takes its scope
// place and creates its Job with nothing written first; the record follows. Each test kills or
// cancels at one point of that path and asks for exactly one outcome.
import { describe, expect, test } from '@jest/globals';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { JOB_LAUNCH_FINALIZER, Phase } from '../../api/vocabulary.js';
import { afterIn, heldJob } from '../support/builders.js';
import { withScenario, type Scenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually, staysTrue } from '../support/wait.js';

const NAME = 'web-7-deploy';

const get = (s: Scenario): Promise<HeldJobObject | undefined> => s.kube.getHeldJob(s.namespace, NAME);

function launchedCondition(hj: HeldJobObject | undefined) {
  return hj?.status?.conditions?.find((c) => c.type === 'Launched');
}

/** Waits for the hold to be armed, and returns its status then. */
async function armed(s: Scenario): Promise<HeldJobObject> {
  return eventually('the hold to be armed (Launched Unknown, Armed)', async () => {
    const hj = await get(s);
    const c = launchedCondition(hj);
    return hj?.status?.phase === Phase.Held && c?.status === 'Unknown' && c.reason === 'Armed' ? hj : undefined;
  });
}

function reaches(s: Scenario, phase: string): Promise<HeldJobObject> {
  return eventually(
    `HeldJob ${s.namespace}/${NAME} to reach ${phase}`,
    async () => {
      const hj = await get(s);
      return hj?.status?.phase === phase ? hj : undefined;
    },
    Timeouts.jobMs,
  );
}

const createdAt = (job: { metadata?: { creationTimestamp?: Date | string } }): number =>
  new Date(job.metadata?.creationTimestamp as Date | string).getTime();

describe('arm, then fire', () => {
  test.concurrent(
    'the leader SIGKILLed between arming and firing: the new leader creates the one Job at the instant, one outcome',
    () =>
      withScenario('armed-kill', async (s) => {
        const { after, atMs } = afterIn(Timeouts.leadMs);
        await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ after }], exitCode: 0 }));
        const hj = await armed(s);
        expect(launchedCondition(hj)?.message).toContain(hj.status?.jobName);
        await s.operator.kill('SIGKILL');
        // The kill must come between arming and firing, or the test asserts something else.
        expect({ killedBeforeTheInstant: Date.now() < atMs }).toEqual({ killedBeforeTheInstant: true });
        const second = await s.restartOperator();
        const done = await reaches(s, Phase.Succeeded);
        const jobs = await s.kube.listJobs(s.namespace);
        expect(jobs).toHaveLength(1);
        expect(jobs[0]!.metadata?.name).toBe(hj.status?.jobName);
        expect(createdAt(jobs[0]!)).toBeGreaterThanOrEqual(Math.floor(atMs / 1000) * 1000);
        expect(launchedCondition(done)).toMatchObject({ status: 'True', reason: 'JobCreated' });
        expect(s.operator.logLines().filter((l) => l['msg'] === 'Created Job')).toHaveLength(0);
        expect(await second.loggedTimes('Created Job', 1)).toHaveLength(1);
        const events = (await s.kube.eventsFor(s.namespace, NAME)).map((e) => e.reason);
        expect(events.filter((r) => r === 'Launched')).toHaveLength(1);
        expect(events.filter((r) => r === 'Succeeded')).toHaveLength(1);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'the leader SIGKILLed as its create lands, before or while its record is written: recorded by the new leader, never a second Job',
    () =>
      withScenario('armed-kill-fired', async (s) => {
        const { after } = afterIn(3000);
        await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ after }], exitCode: 0 }));
        await armed(s);
        await s.operator.logged('Created Job', Timeouts.shortMs);
        await s.operator.kill('SIGKILL');
        const second = await s.restartOperator();
        const done = await reaches(s, Phase.Succeeded);
        expect(await s.kube.listJobs(s.namespace)).toHaveLength(1);
        expect(launchedCondition(done)).toMatchObject({ status: 'True', reason: 'JobCreated' });
        expect(second.logLines().filter((l) => l['msg'] === 'Created Job')).toHaveLength(0);
        // The fence came off once the creation was recorded, whoever recorded it.
        const job = (await s.kube.listJobs(s.namespace))[0]!;
        expect(job.metadata?.finalizers ?? []).not.toContain(JOB_LAUNCH_FINALIZER);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'an armed hold cancelled before its instant: gone, and no Job is ever created',
    () =>
      withScenario('armed-cancel', async (s) => {
        const { after, atMs } = afterIn(Timeouts.leadMs);
        await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ after }] }));
        const hj = await armed(s);
        // No finalizer on an armed hold: a cancel needs no operator, and leaves nothing behind.
        expect((hj.metadata as { finalizers?: string[] }).finalizers ?? []).toEqual([]);
        await s.kube.custom.deleteNamespacedCustomObject({
          group: 'waitgate.dev',
          version: 'v1alpha1',
          plural: 'heldjobs',
          namespace: s.namespace,
          name: NAME,
        });
        await eventually('the HeldJob to be gone', async () => ((await get(s)) ? undefined : true));
        expect({ cancelledBeforeTheInstant: Date.now() < atMs }).toEqual({ cancelledBeforeTheInstant: true });
        await staysTrue('no Job in the namespace', async () => (await s.kube.listJobs(s.namespace)).length === 0, atMs + 3000);
        expect(s.operator.logLines().filter((l) => l['msg'] === 'Created Job')).toHaveLength(0);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'a cancel that races the fire: the Job created for a HeldJob already gone does not stay fenced; it goes',
    () =>
      withScenario('armed-cancel-race', async (s) => {
        const { after } = afterIn(3000);
        await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ after }], exitCode: 'never' }));
        await armed(s);
        // Deleted the moment the Job is created, before its record (or just after it).
        await eventually(
          'the Job to be created',
          async () => ((await s.kube.listJobs(s.namespace)).length > 0 ? true : undefined),
          Timeouts.shortMs,
        );
        await s.kube.custom.deleteNamespacedCustomObject({
          group: 'waitgate.dev',
          version: 'v1alpha1',
          plural: 'heldjobs',
          namespace: s.namespace,
          name: NAME,
        });
        await eventually('the HeldJob to be gone', async () => ((await get(s)) ? undefined : true));
        await eventually(
          'the Job to be gone with it (no fence left holding it)',
          async () => ((await s.kube.listJobs(s.namespace)).length === 0 ? true : undefined),
          Timeouts.gcMs,
        );
      }),
    Timeouts.testMs,
  );
});
