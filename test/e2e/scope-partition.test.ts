// The place a running Job holds in its repository's scope, when the operator that launched it
// loses Valkey but not the apiserver for longer than a lease (issue 22, item 6). The place must
// outlive the partition: no other hold of the repository may launch while the Job still runs,
// whichever operator of the fleet asks. And where the place was lost anyway (taken by another
// holder before this one came back), the operator must say so, and launch nothing more in that
// repository until it is back under its limit.
import { describe, expect, test } from '@jest/globals';
import { connectValkey } from '../../lib/valkey/connection.js';
import { ValkeyKeys } from '../../lib/valkey/keys.js';
import { EventReason, Labels, MADE_BY_RECEIVER, Phase } from '../../api/vocabulary.js';
import { heldJob } from '../support/builders.js';
import { metricValue, operatorMetricsUrl } from '../support/metrics.js';
import { phaseReached, withScenario, type Scenario } from '../support/scenario.js';
import { operatorProcess } from '../support/service-process.js';
import { withValkeyProxy } from '../support/tcp-proxy.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually, staysTrue } from '../support/wait.js';

/** A lease this short lapses within a test; its renewals run every quarter of it. */
const LEASE_MS = 3_000;
const LIMITS = { WAITGATE_SCOPE_LIMIT: '1', WAITGATE_CONCURRENCY: '4', WAITGATE_SCOPE_LEASE_TTL_MS: String(LEASE_MS) };

/**
 * The scope a receiver-made hold takes is its repository on its forge, in every cluster of the
 * fleet; a hand-written one's is its namespace's own. So the fleet's holds here are made as the
 * receiver makes them, from triggers each operator reads: `deploy`, and `deploy-never` whose Job
 * never ends by itself.
 */
const TRIGGERS = {
  'waitgate-triggers': {
    'triggers.json': JSON.stringify(
      (['deploy', 'deploy-never'] as const).map((name) => {
        const spec = heldJob({ trigger: name, ...(name === 'deploy-never' ? { exitCode: 'never' as const } : {}) })['spec'] as {
          job: object;
        };
        return { name, on: { type: 'label', any: [`waitgate:${name}`] }, run: { kind: 'github', flow: 'deploy', job: spec.job } };
      }),
    ),
  },
};

/** A hold as the receiver makes one (labelled; its spec is its trigger's). */
function fleetHold(f: Parameters<typeof heldJob>[0]): Record<string, unknown> {
  const hj = heldJob({ ...f, trigger: f?.exitCode === 'never' ? 'deploy-never' : 'deploy' });
  const metadata = hj['metadata'] as Record<string, unknown>;
  return { ...hj, metadata: { ...metadata, labels: { [Labels.forge]: 'github', [Labels.madeBy]: MADE_BY_RECEIVER } } };
}

/** Whether the hold has launched (it has a Job, running or done). */
async function launched(s: { kube: Scenario['kube'] }, namespace: string, name: string): Promise<boolean> {
  const phase = (await s.kube.getHeldJob(namespace, name))?.status?.phase;
  return phase === Phase.Running || phase === Phase.Succeeded || phase === Phase.Failed;
}

/** Runs `first` (a Job that never ends by itself) until it has its Job; its Job's name. */
async function firstRunning(s: Scenario, make: typeof heldJob = heldJob): Promise<string> {
  await s.kube.createHeldJob(s.namespace, make({ name: 'first', target: 'acme/web#1', exitCode: 'never' }));
  const hj = await phaseReached(s, 'first', Phase.Running);
  const jobName = hj.status?.jobName as string;
  await eventually('the Job of first', async () => ((await s.kube.jobExists(s.namespace, jobName)) ? true : undefined));
  return jobName;
}

/** Deletes the Job: its hold ends (Failed JobMissing) and gives its place back. */
async function endFirst(s: Scenario, jobName: string): Promise<void> {
  await s.kube.batch.deleteNamespacedJob({ name: jobName, namespace: s.namespace, propagationPolicy: 'Background' });
  await phaseReached(s, 'first', Phase.Failed);
}

describe('a Valkey-only partition longer than the lease', () => {
  test.concurrent(
    'the running Job keeps its place: no hold of its repository launches, here or in another cluster, until it ends',
    async () => {
      await withValkeyProxy(async (proxy, valkeyUrl) => {
        await withScenario(
          'lease-cut',
          async (s) => {
            const jobName = await firstRunning(s, fleetHold);

            // Another cluster of the fleet: its own operator, the same Valkey prefix, straight to Valkey.
            const ns = await s.kube.createNamespace('lease-other');
            for (const [name, data] of Object.entries(TRIGGERS)) {
              await s.kube.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name, namespace: ns }, data } });
            }
            const other = operatorProcess(
              {
                ...LIMITS,
                WAITGATE_NAMESPACE: ns,
                WAITGATE_WATCH_NAMESPACE: ns,
                WAITGATE_VALKEY_PREFIX: `test-${s.namespace}`,
                WAITGATE_WORKER_NAME: 'other-cluster',
              },
              `${ns}-operator`,
            );
            try {
              await other.start();
              await proxy.cut();
              const cutAt = Date.now();
              await s.kube.createHeldJob(ns, fleetHold({ name: 'fleet', target: 'acme/web#2' }));
              await s.kube.createHeldJob(s.namespace, fleetHold({ name: 'second', target: 'acme/web#3' }));

              const neitherLaunched = async () => !(await launched(s, ns, 'fleet')) && !(await launched(s, s.namespace, 'second'));
              // Cut for four leases and more: the other cluster's hold asks again every 5 s meanwhile.
              await staysTrue(
                'no hold of acme/web launched while its Job runs and Valkey is cut',
                neitherLaunched,
                cutAt + 4 * LEASE_MS + 6_000,
              );
              await proxy.restore();
              await staysTrue('no hold of acme/web launched after Valkey came back', neitherLaunched, Date.now() + 3 * LEASE_MS);
              expect((await s.kube.getHeldJob(s.namespace, 'first'))?.status?.phase).toBe(Phase.Running);

              await endFirst(s, jobName);
              // One at a time: both launch and end, in either order.
              await phaseReached({ ...s, namespace: ns }, 'fleet', Phase.Succeeded);
              await phaseReached(s, 'second', Phase.Succeeded);
            } finally {
              await other.stop();
              await s.kube.deleteNamespace(ns);
            }
          },
          { env: { ...LIMITS, VALKEY_URL: valkeyUrl }, configMaps: TRIGGERS },
        );
      });
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'a place lost anyway and taken by another holder: the operator says so, and no new hold of the repository launches until it is back under its limit',
    () =>
      withScenario(
        'lease-lost',
        async (s) => {
          const redis = connectValkey(process.env['VALKEY_URL'] as string);
          redis.on('error', () => undefined);
          const [all, web] = new ValkeyKeys(`test-${s.namespace}`).scopeSlots(`ns/${s.namespace}:acme/web`);
          const metricsUrl = operatorMetricsUrl(await s.operator.logged('Started'));
          try {
            const jobName = await firstRunning(s);

            // Valkey loses the scope's places (a failover to a replica that lacked them), and a
            // hold of another cluster takes the place before this operator takes it back.
            const later = String(Date.now() + 600_000);
            await redis.multi().del(all, web).zadd(all, later, 'other-cluster-hold').zadd(web, later, 'other-cluster-hold').exec();

            await eventually('a ScopeOvercommitted Event on first', async () =>
              (await s.kube.eventsFor(s.namespace, 'first')).some((e) => e.reason === EventReason.ScopeOvercommitted) ? true : undefined,
            );
            expect(await metricValue(metricsUrl, 'waitgate_scope_overcommitted_total')).toBeGreaterThanOrEqual(1);
            expect(await metricValue(metricsUrl, 'waitgate_scope_overcommitted')).toBe(1);
            expect((await redis.zrange(web, '0', '-1')).length).toBe(2);

            await s.kube.createHeldJob(s.namespace, heldJob({ name: 'third', target: 'acme/web#3' }));
            await staysTrue(
              'third not launched while acme/web is over its limit',
              async () => !(await launched(s, s.namespace, 'third')),
              Date.now() + 2 * LEASE_MS,
            );
            // The other cluster's Job ends: acme/web is at its limit, still full.
            await redis.zrem(web, 'other-cluster-hold');
            await redis.zrem(all, 'other-cluster-hold');
            await staysTrue(
              'third not launched while first runs',
              async () => !(await launched(s, s.namespace, 'third')),
              Date.now() + 2 * LEASE_MS,
            );
            await eventually('the overcommit gauge back to 0', async () =>
              (await metricValue(metricsUrl, 'waitgate_scope_overcommitted')) === 0 ? true : undefined,
            );

            await endFirst(s, jobName);
            await phaseReached(s, 'third', Phase.Succeeded);
          } finally {
            redis.disconnect();
          }
        },
        { env: LIMITS },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'a running hold deleted while Valkey is cut: its release fails, and the leader gives the place back from its cache once Valkey is back',
    async () => {
      await withValkeyProxy(async (proxy, valkeyUrl) => {
        await withScenario(
          'lease-gone',
          async (s) => {
            await firstRunning(s);
            await proxy.cut();
            await s.kube.custom.deleteNamespacedCustomObject({
              group: 'waitgate.dev',
              version: 'v1alpha1',
              plural: 'heldjobs',
              namespace: s.namespace,
              name: 'first',
            });
            await eventually('first to be gone', async () => ((await s.kube.getHeldJob(s.namespace, 'first')) ? undefined : true));
            await s.kube.createHeldJob(s.namespace, heldJob({ name: 'second', target: 'acme/web#2' }));
            await proxy.restore();
            // Its place lives a day; only the leader's reclaim, from its cache, frees it.
            await phaseReached(s, 'second', Phase.Succeeded);
            await s.operator.logged('Reclaimed the scope places of ended or deleted holds');
          },
          { env: { ...LIMITS, VALKEY_URL: valkeyUrl } },
        );
      });
    },
    Timeouts.testMs,
  );
});
