// Finished HeldJobs are deleted WAITGATE_FINISHED_TTL_MS after they finished, with their Jobs,
// on the local cluster: on time, through a restart of the operator, never with a time to live
// of 0, and never inside the supersede window of a hold that waited and launched.
import { describe, expect, test } from '@jest/globals';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { Annotations, Phase, RefusalToken } from '../../api/vocabulary.js';
import { afterIn, heldJob } from '../support/builders.js';
import { phaseReached, withScenario, type Scenario } from '../support/scenario.js';
import type { ServiceProcess } from '../support/service-process.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually, staysTrue } from '../support/wait.js';

/** How late after its time a deletion may come on a machine busy with the rest of the suite. */
const SLACK_MS = 10_000;

const finishedAtOf = (hj: HeldJobObject): number => Date.parse(hj.status?.finishedAt ?? '');

/** When `op` logged the deletion of `name`, or undefined if it has not. */
function deletedAt(op: ServiceProcess, s: Scenario, name: string): number | undefined {
  const line = op.logLines().find((l) => l['msg'] === 'Deleted finished HeldJob' && l['heldjob'] === `${s.namespace}/${name}`);
  return line ? Date.parse(String(line['time'])) : undefined;
}

async function gone(s: Scenario, name: string, jobName?: string): Promise<void> {
  await eventually(`${name} to be deleted`, async () => ((await s.kube.getHeldJob(s.namespace, name)) ? undefined : true), Timeouts.jobMs);
  if (jobName) {
    await eventually(
      `its Job ${jobName} to go with it`,
      async () => ((await s.kube.jobExists(s.namespace, jobName)) ? undefined : true),
      Timeouts.gcMs,
    );
  }
}

/** A refusal record, as the receiver writes one: it never holds, it is Refused at once. */
function refusalRecord(name: string): Record<string, unknown> {
  const body = heldJob({ name, target: 'acme/web#9', waitFor: [{ profile: 'jira' }] });
  (body['metadata'] as Record<string, unknown>)['annotations'] = {
    [Annotations.refusal]: RefusalToken.Superseded,
    [Annotations.refusalMessage]: 'HeldJob web-9-deploy already holds deploy for this target',
  };
  return body;
}

describe('finished HeldJobs are deleted after their time to live', () => {
  const TTL_MS = 4_000;

  test.concurrent(
    'Succeeded and Refused ones go on time with their Jobs; a hold that waited and launched stays through the supersede window',
    () =>
      withScenario(
        'ttl-delete',
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: 'plain', target: 'acme/web#7', exitCode: 0 }));
          await s.kube.createHeldJob(
            s.namespace,
            heldJob({ name: 'waited', target: 'acme/web#8', exitCode: 0, waitFor: [{ after: afterIn(0).after }] }),
          );
          await s.kube.createHeldJob(s.namespace, refusalRecord('refused'));
          // Watched side by side: each is deleted a few seconds after it ends.
          const [[plain, jobThen], waited, refused] = await Promise.all([
            phaseReached(s, 'plain', Phase.Succeeded).then(
              async (hj) => [hj, await s.kube.jobExists(s.namespace, hj.status?.jobName as string)] as const,
            ),
            phaseReached(s, 'waited', Phase.Succeeded),
            phaseReached(s, 'refused', Phase.Refused),
          ]);
          const jobName = plain.status?.jobName as string;
          expect(jobThen).toBe(true);

          await gone(s, 'plain', jobName);
          await gone(s, 'refused');
          for (const [name, hj] of [
            ['plain', plain],
            ['refused', refused],
          ] as const) {
            const at = deletedAt(s.operator, s, name);
            expect(at).toBeGreaterThanOrEqual(finishedAtOf(hj) + TTL_MS);
            expect(at).toBeLessThanOrEqual(finishedAtOf(hj) + TTL_MS + SLACK_MS);
          }
          // The one that waited on a condition and launched is kept past its time to live: the
          // receiver reads the 15-minute supersede window from it.
          await staysTrue(
            'the hold that waited to be kept',
            async () => (await s.kube.getHeldJob(s.namespace, 'waited')) !== undefined,
            finishedAtOf(waited) + TTL_MS + 3_000,
          );
          expect(deletedAt(s.operator, s, 'waited')).toBeUndefined();
        },
        { WAITGATE_FINISHED_TTL_MS: String(TTL_MS) },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'a restart of the operator in between: the new one deletes on time, from status alone',
    () =>
      withScenario(
        'ttl-restart',
        async (s) => {
          const ttl = 12_000;
          await s.kube.createHeldJob(s.namespace, heldJob({ name: 'plain', target: 'acme/web#7', exitCode: 0 }));
          const plain = await phaseReached(s, 'plain', Phase.Succeeded);
          await s.operator.stop();
          expect(Date.now()).toBeLessThan(finishedAtOf(plain) + ttl);
          const next = await s.restartOperator();
          await gone(s, 'plain', plain.status?.jobName);
          expect(deletedAt(s.operator, s, 'plain')).toBeUndefined();
          const at = deletedAt(next, s, 'plain');
          expect(at).toBeGreaterThanOrEqual(finishedAtOf(plain) + ttl);
          expect(at).toBeLessThanOrEqual(finishedAtOf(plain) + ttl + SLACK_MS);
        },
        { WAITGATE_FINISHED_TTL_MS: '12000' },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'a time to live of 0 keeps them',
    () =>
      withScenario(
        'ttl-zero',
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: 'plain', target: 'acme/web#7', exitCode: 0 }));
          await s.kube.createHeldJob(s.namespace, refusalRecord('refused'));
          const plain = await phaseReached(s, 'plain', Phase.Succeeded);
          await phaseReached(s, 'refused', Phase.Refused);
          await staysTrue(
            'both to be kept, the Job too',
            async () =>
              (await s.kube.getHeldJob(s.namespace, 'plain')) !== undefined &&
              (await s.kube.getHeldJob(s.namespace, 'refused')) !== undefined &&
              (await s.kube.jobExists(s.namespace, plain.status?.jobName as string)),
            Date.now() + 6_000,
          );
        },
        { WAITGATE_FINISHED_TTL_MS: '0' },
      ),
    Timeouts.testMs,
  );
});
