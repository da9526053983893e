// on.once through the real receiver, on the real apiserver and Valkey: a once trigger fires
// at most once per target. A later delivery is answered once-spent (and counted); the record
// outlives the HeldJob's deletion, a Valkey that lost its keys and a receiver restart; two
// deliveries at once create one HeldJob; another target still fires.
import { describe, expect, test } from '@jest/globals';
import { API_GROUP, API_VERSION, HELDJOB_PLURAL, ONCE_RECORD_PLURAL } from '../../api/vocabulary.js';
import { onceRecordName } from '../../receiver/delivery/once.js';
import { githubLabeled, post } from '../support/forge.js';
import { trigger, withReceiver, type ReceiverScenario } from '../support/receiver-scenario.js';
import { receiverProcess, receiverUrls } from '../support/service-process.js';
import { Timeouts } from '../support/timeouts.js';
import { withRedis } from '../support/valkey.js';
import { eventually } from '../support/wait.js';

const LABEL = 'waitgate:release';

interface Result {
  readonly trigger: string;
  readonly outcome: string;
  readonly heldJob?: string;
  readonly spentBy?: string;
}
const results = (r: { json: Record<string, unknown> }) => r.json['results'] as Result[];

async function metric(metricsUrl: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** Deletes every Valkey key of the scenario's receiver, as a Valkey that lost its data. */
async function flushValkey(s: ReceiverScenario): Promise<number> {
  const prefix = s.env['WAITGATE_VALKEY_PREFIX'] ?? '';
  return withRedis(async (redis) => {
    let cursor = '0';
    let deleted = 0;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) deleted += await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
    return deleted;
  });
}

const onceTriggers = { triggers: [trigger({ name: 'release', labels: [LABEL], once: true })] };

describe('receiver: a once trigger fires at most once per target', () => {
  test.concurrent(
    'a second delivery is once-spent; still spent after the HeldJob is deleted, Valkey flushed and the receiver restarted',
    () =>
      withReceiver('once-spent', onceTriggers, async (s) => {
        const first = await post(s.url, githubLabeled({ label: LABEL }));
        expect(first.status).toBe(202);
        expect(results(first)).toEqual([{ trigger: 'release', outcome: 'held', heldJob: expect.any(String) }]);
        const heldJob = results(first)[0]!.heldJob!;

        // The record: an OnceRecord in the job namespace, ids only, marked fired; no ConfigMap.
        const record = (await s.kube.custom.getNamespacedCustomObject({
          group: API_GROUP,
          version: API_VERSION,
          plural: ONCE_RECORD_PLURAL,
          namespace: s.namespace,
          name: onceRecordName('release', 'acme/web#7'),
        })) as { metadata?: { labels?: Record<string, string>; ownerReferences?: unknown[] }; spec?: Record<string, string> };
        expect(record.metadata?.labels?.['app.kubernetes.io/managed-by']).toBe('waitgate');
        expect(record.spec).toMatchObject({ trigger: 'release', target: 'acme/web#7', forge: 'github', heldJob, state: 'fired' });
        expect(record.metadata?.ownerReferences ?? []).toEqual([]);
        const configMaps = (await s.kube.core.listNamespacedConfigMap({ namespace: s.namespace })).items.map((c) => c.metadata?.name);
        expect(configMaps.filter((n) => n?.startsWith('waitgate-once-'))).toEqual([]);

        const second = await post(s.url, githubLabeled({ label: LABEL }));
        expect(second.status).toBe(202);
        expect(results(second)).toEqual([{ trigger: 'release', outcome: 'once-spent', spentBy: heldJob }]);
        expect((await s.kube.listHeldJobs(s.namespace)).map((h) => h.metadata.name)).toEqual([heldJob]);
        expect(await metric(s.metricsUrl, 'waitgate_receiver_deliveries_total', 'forge="github",outcome="once_spent"')).toBe(1);
        await s.receiver.loggedText(/Found once trigger already fired for this target/);

        // Nothing that held the first delivery's traces is needed: HeldJob, Valkey and receiver all gone.
        await s.kube.custom.deleteNamespacedCustomObject({
          group: API_GROUP,
          version: API_VERSION,
          plural: HELDJOB_PLURAL,
          namespace: s.namespace,
          name: heldJob,
        });
        await eventually('the HeldJob to be gone', async () => ((await s.kube.getHeldJob(s.namespace, heldJob)) ? undefined : true));
        await s.receiver.stop();
        expect(await flushValkey(s)).toBeGreaterThan(0);
        const restarted = receiverProcess(s.env, `${s.namespace}-receiver-2`);
        try {
          const { url, metricsUrl } = receiverUrls(await restarted.start());
          await eventually('the receiver to be ready', async () =>
            (await fetch(`${metricsUrl}/readyz`)).status === 200 ? true : undefined,
          );
          const third = await post(url, githubLabeled({ label: LABEL }));
          expect(results(third)).toEqual([{ trigger: 'release', outcome: 'once-spent', spentBy: heldJob }]);
          expect(await s.kube.listHeldJobs(s.namespace)).toEqual([]);
          // Another target has its own once.
          const other = await post(url, githubLabeled({ label: LABEL, number: 8 }));
          expect(results(other)).toMatchObject([{ outcome: 'held' }]);
        } finally {
          await restarted.stop();
        }
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'deliveries at the same moment: exactly one HeldJob, the others once-spent',
    () =>
      withReceiver('once-race', onceTriggers, async (s) => {
        const answers = await Promise.all(Array.from({ length: 6 }, () => post(s.url, githubLabeled({ label: LABEL }))));
        expect(answers.map((a) => a.status)).toEqual(Array(6).fill(202));
        const outcomes = answers.flatMap(results).map((r) => r.outcome);
        expect(outcomes.filter((o) => o === 'held')).toHaveLength(1);
        expect(outcomes.filter((o) => o === 'once-spent')).toHaveLength(5);
        expect(await s.kube.listHeldJobs(s.namespace)).toHaveLength(1);
      }),
    Timeouts.testMs,
  );
});
