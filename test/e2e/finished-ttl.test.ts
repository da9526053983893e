// Finished HeldJobs are deleted WAITGATE_FINISHED_TTL_MS after they finished, with their Jobs,
// on the local cluster: on time, through a restart of the operator, never with a time to live
// of 0, and never inside the supersede window of a hold that waited and launched, so a
// relabel inside that window is still refused by the real receiver.
import { describe, expect, test } from '@jest/globals';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { Annotations, Phase, RefusalToken } from '../../api/vocabulary.js';
import { ValkeyKeys } from '../../lib/valkey/keys.js';
import { afterIn, heldJob } from '../support/builders.js';
import { deliveryUuid, githubLabeled, post } from '../support/forge.js';
import { metricValue } from '../support/metrics.js';
import { trigger, withReceiver } from '../support/receiver-scenario.js';
import { phaseReached, withScenario, type Scenario } from '../support/scenario.js';
import { operatorProcess, type ServiceProcess } from '../support/service-process.js';
import { withRedis } from '../support/valkey.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually, staysTrue } from '../support/wait.js';

/** How late after its time a deletion may come on a machine busy with the rest of the suite. */
const SLACK_MS = 10_000;

const finishedAtOf = (hj: HeldJobObject): number => Date.parse(hj.status?.finishedAt ?? '');

/** When `op` logged the deletion of `name`, or undefined if it has not. */
function deletedAt(op: ServiceProcess, s: { namespace: string }, name: string): number | undefined {
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
            // Logged once the delete has returned: the poll above may see it gone first.
            const at = await eventually(`${name}'s deletion logged`, () => deletedAt(s.operator, s, name));
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
          const at = await eventually("plain's deletion logged", () => deletedAt(next, s, 'plain'));
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

describe('the time to live does not reopen the supersede window', () => {
  interface Result {
    readonly trigger: string;
    readonly outcome: string;
    readonly heldJob: string;
    readonly token?: string;
  }
  const resultOf = (r: { json: Record<string, unknown> }) => (r.json['results'] as Result[])[0]!;

  test.concurrent(
    'a delivery held and launched, past its time to live and with its Valkey marker lost: a relabel inside the window is wait-superseded, no second Job',
    async () => {
      const ttl = 3_000;
      const { after } = afterIn(2_000);
      await withReceiver('ttl-window', { triggers: [trigger({ name: 'deploy', waitFor: [{ after }] })] }, async (s) => {
        const prefix = s.env['WAITGATE_VALKEY_PREFIX'] ?? '';
        const operator = operatorProcess(
          {
            WAITGATE_WATCH_NAMESPACE: s.namespace,
            WAITGATE_NAMESPACE: s.namespace,
            WAITGATE_VALKEY_PREFIX: prefix,
            WAITGATE_FINISHED_TTL_MS: String(ttl),
          },
          `${s.namespace}-operator`,
        );
        await operator.start();
        try {
          const first = resultOf(await post(s.url, githubLabeled({ label: 'waitgate:deploy', deliveryId: deliveryUuid('ttl-1') })));
          expect(first).toMatchObject({ trigger: 'deploy', outcome: 'held' });
          const done = await eventually(
            'the hold to launch and succeed',
            async () => {
              const hj = await s.kube.getHeldJob(s.namespace, first.heldJob);
              return hj?.status?.phase === Phase.Succeeded ? hj : undefined;
            },
            Timeouts.jobMs,
          );
          const jobName = done.status?.jobName as string;
          expect(await s.kube.jobExists(s.namespace, jobName)).toBe(true);

          // Valkey loses the launch marker: the live HeldJob is all that keeps the window closed.
          const marker = new ValkeyKeys(prefix).finishedMarker('deploy', 'acme/web#7');
          await withRedis(async (redis) => {
            await eventually('the launch marker', async () => ((await redis.get(marker)) === first.heldJob ? true : undefined));
            expect(await redis.del(marker)).toBe(1);
          });

          // Its time to live runs out; it is kept, for its launch was less than 15 minutes ago.
          await staysTrue(
            'the finished hold to be kept past its time to live',
            async () => (await s.kube.getHeldJob(s.namespace, first.heldJob)) !== undefined,
            finishedAtOf(done) + ttl + 3_000,
          );
          expect(deletedAt(operator, s, first.heldJob)).toBeUndefined();

          // The same trigger and target again, inside the window: refused, recorded as the receiver records refusals.
          const second = resultOf(await post(s.url, githubLabeled({ label: 'waitgate:deploy', deliveryId: deliveryUuid('ttl-2') })));
          expect(second).toMatchObject({ trigger: 'deploy', outcome: 'refused', token: RefusalToken.Superseded });
          const record = await eventually('the refusal record to be Refused', async () => {
            const hj = await s.kube.getHeldJob(s.namespace, second.heldJob);
            return hj?.status?.phase === Phase.Refused ? hj : undefined;
          });
          expect(record.status?.reason).toBe(RefusalToken.Superseded);
          expect(record.metadata.annotations?.[Annotations.refusal]).toBe(RefusalToken.Superseded);
          expect(record.metadata.annotations?.[Annotations.refusalMessage]).toBe(
            `HeldJob ${first.heldJob} already holds deploy for this target`,
          );
          expect(await metricValue(s.metricsUrl, `waitgate_receiver_refusals_total{token="${RefusalToken.Superseded}"}`)).toBe(1);
          await s.receiver.logged((l) => l['msg'] === 'Refused delivery' && l['reason'] === RefusalToken.Superseded);

          // The refusal record itself goes at its time to live (it superseded nothing); no second Job ever.
          await eventually(
            'the refusal record to be deleted at its time to live',
            async () => ((await s.kube.getHeldJob(s.namespace, second.heldJob)) ? undefined : true),
            Timeouts.jobMs,
          );
          expect((await s.kube.listJobs(s.namespace)).map((j) => j.metadata?.name)).toEqual([jobName]);
          expect(await s.kube.getHeldJob(s.namespace, first.heldJob)).toBeDefined();
        } catch (err) {
          throw new Error(`${(err as Error).message}\n(operator log: ${operator.logPath})`, { cause: err });
        } finally {
          await operator.stop();
        }
      });
    },
    Timeouts.testMs,
  );
});
