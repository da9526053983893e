// wait-superseded at the receiver, against the real apiserver and the real Valkey-compatible
// server: a delivery meets its own HeldJobs as its own, the apiserver (not a lock in Valkey)
// decides which of two racing deliveries holds, and the 15-minute window outlives the hold.
import { describe, expect, test } from '@jest/globals';
import { Annotations, ConditionType, Phase, RefusalToken } from '../../api/vocabulary.js';
import { ValkeyKeys } from '../../lib/valkey/keys.js';
import { withHttpApiserverProxy } from '../support/http-apiserver-proxy.js';
import { afterIn } from '../support/builders.js';
import { bodyHashOf } from '../../receiver/forges/event.js';
import { deliveryUuid, githubLabeled, post, resultsOf, type Delivery } from '../support/forge.js';
import { trigger, withReceiver, type ReceiverScenario, withOperator } from '../support/receiver-scenario.js';
import { receiverProcess, receiverUrls } from '../support/service-process.js';
import { Timeouts } from '../support/timeouts.js';
import { withRedis } from '../support/valkey.js';
import { eventually, staysTrue } from '../support/wait.js';

const LABEL = 'waitgate:deploy';
const TARGET = 'acme/web#7';

const results = resultsOf;
const keysOf = (s: ReceiverScenario) => new ValkeyKeys(s.env['WAITGATE_VALKEY_PREFIX'] ?? '');
const holdsIn = async (s: ReceiverScenario) =>
  (await s.kube.listHeldJobs(s.namespace)).filter((h) => h.metadata.annotations?.['waitgate.dev/refusal'] === undefined);

// A day ahead: inside the 30-day bound, far enough that nothing launches during a test.
const aDayAhead = () => ({ after: new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z') });

/** Removes the delivery's dedup keys, as their time running out or a Valkey restart does. */
async function forgetDelivery(s: ReceiverScenario, d: Delivery, deliveryName: string): Promise<void> {
  const keys = keysOf(s);
  await withRedis(async (redis) =>
    expect(
      await redis.del(keys.deliveryDedup('github', deliveryUuid(deliveryName)), keys.deliveryBodyDedup('github', bodyHashOf(d.body))),
    ).toBe(2),
  );
}

/** The trigger a HeldJob (or a HeldJob create's body, as text) is for. */
const triggerOf = (hj: { spec?: unknown }) => (hj.spec as { trigger?: string } | undefined)?.trigger;
function triggerOfCreate(body: string): string | undefined {
  try {
    return triggerOf(JSON.parse(body) as { spec?: unknown });
  } catch {
    return undefined;
  }
}

describe('receiver: a delivery meets its own HeldJobs', () => {
  test.concurrent(
    'a redelivery after its dedup key is gone (window over, Valkey restarted) leaves its hold untouched and reports it',
    () =>
      withReceiver(
        'rcv-own',
        {
          triggers: [
            trigger({ waitFor: [aDayAhead()] }),
            trigger({ name: 'needs-jira', waitFor: [{ profile: 'jira' }] }),
            trigger({ name: 'plain' }),
          ],
          profiles: { ci: { mode: 'exec', script: 'ci.sh' } },
        },
        async (s) => {
          const d = githubLabeled({ label: LABEL, deliveryId: deliveryUuid('own-1') });
          const first = await post(s.url, d);
          expect(first.status).toBe(202);
          const firstResults = results(first);
          expect(firstResults).toEqual([
            { trigger: 'deploy', outcome: 'held', heldJob: expect.any(String) },
            { trigger: 'needs-jira', outcome: 'refused', token: RefusalToken.ProfileUnknown, heldJob: expect.any(String) },
            { trigger: 'plain', outcome: 'held', heldJob: expect.any(String) },
          ]);
          const before = await s.kube.listHeldJobs(s.namespace);
          expect(before).toHaveLength(3);

          // The dedup keys go, as they do when their time is over or Valkey restarts.
          await forgetDelivery(s, d, 'own-1');
          const again = await post(s.url, d);
          expect(again.status).toBe(202);
          expect(results(again)).toEqual(firstResults.map((r) => ({ ...r, recordedEarlier: true })));

          // Nothing was written: every HeldJob is as it was, and none was added.
          const after = await s.kube.listHeldJobs(s.namespace);
          const state = (hs: typeof before) =>
            Object.fromEntries(hs.map((h) => [h.metadata.name, { rv: h.metadata.resourceVersion, status: h.status }]));
          expect(state(after)).toEqual(state(before));
          expect((await s.kube.getHeldJob(s.namespace, firstResults[0]!.heldJob))?.status?.phase).not.toBe(Phase.Refused);
        },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'a superseded delivery, redelivered, reports its refusal again and writes nothing',
    () =>
      withReceiver('rcv-own-refused', { triggers: [trigger({ waitFor: [aDayAhead()] })] }, async (s) => {
        const held = results(await post(s.url, githubLabeled({ label: LABEL, deliveryId: deliveryUuid('first') })))[0]!;
        const d = githubLabeled({ label: LABEL, deliveryId: deliveryUuid('second') });
        const refused = results(await post(s.url, d))[0]!;
        expect(refused).toMatchObject({ outcome: 'refused', token: RefusalToken.Superseded });
        const before = await s.kube.listHeldJobs(s.namespace);

        await forgetDelivery(s, d, 'second');
        expect(results(await post(s.url, d))).toEqual([{ ...refused, recordedEarlier: true }]);
        const after = await s.kube.listHeldJobs(s.namespace);
        expect(after.map((h) => h.metadata.resourceVersion).sort()).toEqual(before.map((h) => h.metadata.resourceVersion).sort());
        expect((await holdsIn(s)).map((h) => h.metadata.name)).toEqual([held.heldJob]);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'a redelivery after its dedup key is gone, onto its hold that is Running: reported as its own, phase and status unchanged',
    () =>
      withReceiver('rcv-own-running', { triggers: [trigger({ waitFor: [{ after: afterIn(2000).after }], exitCode: 'never' })] }, (s) =>
        withOperator(s, async () => {
          const d = githubLabeled({ label: LABEL, deliveryId: deliveryUuid('running-1') });
          const first = results(await post(s.url, d));
          expect(first).toEqual([{ trigger: 'deploy', outcome: 'held', heldJob: expect.any(String) }]);
          const name = first[0]!.heldJob;
          // Running, its Job's creation recorded: nothing writes its status while the Job runs.
          const running = await eventually(
            'the hold to launch and its Job to run',
            async () => {
              const hj = await s.kube.getHeldJob(s.namespace, name);
              const launched = hj?.status?.conditions?.find((c) => c.type === ConditionType.Launched);
              return hj?.status?.phase === Phase.Running && launched?.status === 'True' ? hj : undefined;
            },
            Timeouts.jobMs,
          );

          await forgetDelivery(s, d, 'running-1');
          const again = await post(s.url, d);
          expect(again.status).toBe(202);
          expect(results(again)).toEqual([{ ...first[0], recordedEarlier: true }]);

          await staysTrue(
            'the hold to stay Running with no refusal on it',
            async () => {
              const hj = await s.kube.getHeldJob(s.namespace, name);
              return hj?.status?.phase === Phase.Running && hj.metadata.annotations?.[Annotations.refusal] === undefined;
            },
            Date.now() + 3000,
          );
          const after = await s.kube.getHeldJob(s.namespace, name);
          expect(after?.status).toEqual(running.status);
          expect(after?.metadata.annotations).toEqual(running.metadata.annotations);
          // No refusal record beside it either.
          expect((await s.kube.listHeldJobs(s.namespace)).map((h) => h.metadata.name)).toEqual([name]);
        }),
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'a delivery whose second hold met 503, redelivered: the first hold is its own and untouched, the second is created',
    () =>
      withHttpApiserverProxy((proxy, kubeconfig) =>
        withReceiver(
          'rcv-own-partial',
          { triggers: [trigger({ waitFor: [aDayAhead()] }), trigger({ name: 'second', waitFor: [aDayAhead()] })] },
          async (s) => {
            // The apiserver answers 503 to every create of the second trigger's hold, past the receiver's retries.
            proxy.answerRequests((method, path, body) =>
              method === 'POST' && path.includes('/heldjobs') && triggerOfCreate(body) === 'second' ? 503 : undefined,
            );
            const d = githubLabeled({ label: LABEL, deliveryId: deliveryUuid('partial-1') });
            const failed = await post(s.url, d);
            expect(failed.status).toBe(503);
            expect(proxy.answeredCount).toBeGreaterThan(0);
            const before = await s.kube.listHeldJobs(s.namespace);
            expect(before.map(triggerOf)).toEqual(['deploy']);
            const firstHold = before[0]!;

            // The forge (or a person) delivers it again, the apiserver healthy.
            proxy.heal();
            const again = await post(s.url, d);
            expect(again.status).toBe(202);
            expect(results(again)).toEqual([
              { trigger: 'deploy', outcome: 'held', heldJob: firstHold.metadata.name, recordedEarlier: true },
              { trigger: 'second', outcome: 'held', heldJob: expect.any(String) },
            ]);

            const after = await s.kube.listHeldJobs(s.namespace);
            expect(after).toHaveLength(2);
            const first = after.find((h) => h.metadata.name === firstHold.metadata.name);
            expect(first?.metadata.resourceVersion).toBe(firstHold.metadata.resourceVersion);
            expect(first?.status?.phase).not.toBe(Phase.Refused);
            const second = after.find((h) => h.metadata.name === results(again)[1]!.heldJob);
            expect(second && triggerOf(second)).toBe('second');
            expect(second?.metadata.annotations?.[Annotations.refusal]).toBeUndefined();
          },
          { KUBECONFIG: kubeconfig },
        ),
      ),
    Timeouts.testMs,
  );
});

describe('receiver: the apiserver fences racing holds', () => {
  test.concurrent(
    'a create that stalls past the hold lock lets a second replica in, and there is still exactly one hold',
    () =>
      withReceiver('rcv-fence', { triggers: [trigger({ waitFor: [aDayAhead()] })] }, (s) =>
        withHttpApiserverProxy(async (proxy, kubeconfig) => {
          // A second replica of the same deployment (same Valkey prefix, same namespace) whose
          // apiserver answers slowly.
          const slow = receiverProcess({ ...s.env, KUBECONFIG: kubeconfig }, `${s.namespace}-slow`);
          try {
            const ready = await slow.start();
            const { url: slowUrl, metricsUrl: slowMetricsUrl } = receiverUrls(ready);
            await eventually('the slow replica to be ready', async () =>
              (await fetch(`${slowMetricsUrl}/readyz`)).status === 200 ? true : undefined,
            );

            // Its list of live HeldJobs goes through; its create of the HeldJob stalls.
            proxy.holdRequests((method, path) => method === 'POST' && path.includes('/heldjobs'));
            const slowAnswer = post(slowUrl, githubLabeled({ label: LABEL, deliveryId: deliveryUuid('slow') }));
            await eventually('the slow replica to be stuck creating its hold', () => (proxy.heldCount > 0 ? true : undefined));
            // Its hold lock is never renewed: it runs out while the create waits.
            const lock = keysOf(s).holdLock('deploy', TARGET);
            await withRedis((redis) =>
              eventually('the hold lock to expire', async () => ((await redis.exists(lock)) === 0 ? true : undefined), 30_000),
            );
            const fast = await post(s.url, githubLabeled({ label: LABEL, deliveryId: deliveryUuid('fast') }));
            expect(results(fast)).toMatchObject([{ outcome: 'held' }]);

            proxy.release();
            const late = await slowAnswer;
            expect(late.status).toBe(202);
            expect(results(late)).toMatchObject([{ outcome: 'refused', token: RefusalToken.Superseded }]);
            expect((await holdsIn(s)).map((h) => h.metadata.name)).toEqual([results(fast)[0]!.heldJob]);
          } catch (err) {
            throw new Error(`${(err as Error).message}\n(slow replica log: ${slow.logPath})`, { cause: err });
          } finally {
            proxy.release();
            await slow.stop();
          }
        }),
      ),
    Timeouts.testMs,
  );
});

describe('receiver: the 15-minute window outlives the hold', () => {
  test.concurrent(
    'a hold that launched and was deleted still refuses a new delivery until its launch marker goes',
    async () => {
      const soon = afterIn(2000);
      await withReceiver('rcv-marker', { triggers: [trigger({ waitFor: [{ after: soon.after }] })] }, (s) =>
        withOperator(s, async () => {
          const first = results(await post(s.url, githubLabeled({ label: LABEL, deliveryId: deliveryUuid('marker-1') })))[0]!;
          expect(first.outcome).toBe('held');
          await eventually(
            'the hold to launch and succeed',
            async () => ((await s.kube.getHeldJob(s.namespace, first.heldJob))?.status?.phase === Phase.Succeeded ? true : undefined),
            Timeouts.jobMs,
          );
          const marker = keysOf(s).finishedMarker('deploy', TARGET);
          await withRedis((redis) =>
            eventually('the launch marker', async () => ((await redis.get(marker)) === first.heldJob ? true : undefined)),
          );

          await s.kube.custom.deleteNamespacedCustomObject({
            group: 'waitgate.dev',
            version: 'v1alpha1',
            plural: 'heldjobs',
            namespace: s.namespace,
            name: first.heldJob,
          });
          await eventually('the finished hold to go', async () =>
            (await s.kube.getHeldJob(s.namespace, first.heldJob)) ? undefined : true,
          );

          // Inside the window: refused, naming the hold that is gone.
          const second = results(await post(s.url, githubLabeled({ label: LABEL, deliveryId: deliveryUuid('marker-2') })))[0]!;
          expect(second).toMatchObject({ outcome: 'refused', token: RefusalToken.Superseded });
          const record = await s.kube.getHeldJob(s.namespace, second.heldJob);
          expect(record?.metadata.annotations?.['waitgate.dev/refusal-message']).toContain(first.heldJob);
          expect(await holdsIn(s)).toEqual([]);

          // The window is over once the marker is (its 15 minutes, cut short here).
          await withRedis(async (redis) => {
            await redis.pexpire(marker, 1);
            await eventually('the marker to expire', async () => ((await redis.exists(marker)) === 0 ? true : undefined));
          });
          const third = results(await post(s.url, githubLabeled({ label: LABEL, deliveryId: deliveryUuid('marker-3') })))[0]!;
          expect(third.outcome).toBe('held');
        }),
      );
    },
    Timeouts.testMs,
  );
});
