// A leader SIGKILLed while the operators are cut off from Valkey (black-holed, then refused),
// the apiserver still reachable, and a replica started inside the partition takes over: its
// Valkey connection was never ready, so every command it sends is refused at once. It must stay
// answerable (its /metrics scraped all through the partition: its event loop free), and once
// Valkey is back the holds it deferred must go on.
//
// The chaos run of 2026-12-04 saw such a leader spin instead, silent, its event loop never free:
// its informer queued every hold at once, more holds were due a check than it has reconcile
// workers, each check slot asked for was refused at once, and the places its check gate handed
// on went round for ever among passes still under way (operator/checks/slotted-check-runner.ts).
import { describe, expect, test } from '@jest/globals';
import { freePort } from '../../bench/common.js';
import { Phase } from '../../api/vocabulary.js';
import { LEASE_DURATION_MS, RETRY_PERIOD_MS } from '../../operator/adapters/leader-election.js';
import { heldJob } from '../support/builders.js';
import { TestKube } from '../support/kube.js';
import { profilesConfigMap } from '../support/profiles.js';
import { operatorProcess, type ServiceProcess } from '../support/service-process.js';
import { withValkeyProxy } from '../support/tcp-proxy.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually, staysTrue } from '../support/wait.js';

/** A follower takes over a whole lease after the last renewal it saw, at its next look. */
const TAKEOVER_MS = LEASE_DURATION_MS + 2 * RETRY_PERIOD_MS;
/** How long a scrape may take on a busy machine before the endpoint counts as unanswered. */
const SCRAPE_TIMEOUT_MS = 3_000;
const WORKERS = 4;
/** Holds of acme/web queued behind its only place, which a Job that never ends holds. */
const QUEUED = ['q1', 'q2', 'q3'];
/** Holds on a profile that never clears, due a check together: more of them than workers. */
const CHECKED = Array.from({ length: 3 * WORKERS }, (_, i) => `c${i + 1}`);

/** Whether the process answers /metrics within SCRAPE_TIMEOUT_MS. */
async function answers(metricsUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${metricsUrl}/metrics`, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS) });
    await res.text();
    return res.ok;
  } catch {
    return false;
  }
}

/** Scrapes /metrics until `untilMs`; fails at the first scrape left unanswered. */
function keepsAnswering(o: ServiceProcess, metricsUrl: string, what: string, untilMs: number): Promise<void> {
  return staysTrue(`the new leader answering /metrics ${what} (its log: ${o.logPath})`, () => answers(metricsUrl), untilMs);
}

const led = (o: ServiceProcess) => o.logLines().some((l) => l['msg'] === 'Became leader');

describe('a leader killed during a Valkey-only partition', () => {
  test.concurrent(
    'the replica started inside the partition takes over, stays answerable while Valkey is away, and its queued holds go on once Valkey is back',
    async () => {
      await withValkeyProxy(async (proxy, valkeyUrl) => {
        const kube = new TestKube();
        const ns = await kube.createNamespace('vp-takeover');
        await kube.core.createNamespacedConfigMap({
          namespace: ns,
          body: { metadata: { name: 'waitgate-profiles', namespace: ns }, data: profilesConfigMap({ notyet: '#!/bin/sh\nexit 3\n' }) },
        });
        const env = {
          VALKEY_URL: valkeyUrl,
          WAITGATE_WATCH_NAMESPACE: ns,
          WAITGATE_NAMESPACE: ns,
          WAITGATE_VALKEY_PREFIX: `test-${ns}`,
          WAITGATE_LEADER_ELECTION: 'true',
          WAITGATE_SCOPE_LIMIT: '1',
          WAITGATE_CONCURRENCY: '4',
          WAITGATE_RECONCILE_WORKERS: String(WORKERS),
          WAITGATE_WAIT_INTERVAL_MS: '30000',
        };
        const leader = operatorProcess(env, `${ns}-a`);
        // Its metrics port chosen here: a replica whose event loop is never free logs nothing.
        const metricsPort = await freePort();
        const standby = operatorProcess({ ...env, WAITGATE_METRICS_PORT: String(metricsPort) }, `${ns}-b`);
        const metricsUrl = `http://127.0.0.1:${metricsPort}`;
        const phaseOf = async (name: string) => (await kube.getHeldJob(ns, name))?.status?.phase;
        try {
          await leader.start();
          await kube.createHeldJob(ns, heldJob({ name: 'first', target: 'acme/web#1', exitCode: 'never' }));
          const firstJob = await eventually(
            'first to run',
            async () => {
              const hj = await kube.getHeldJob(ns, 'first');
              return hj?.status?.phase === Phase.Running && hj.status.jobName ? hj.status.jobName : undefined;
            },
            Timeouts.jobMs,
          );
          for (const [i, name] of QUEUED.entries()) await kube.createHeldJob(ns, heldJob({ name, target: `acme/web#${i + 2}` }));
          for (const [i, name] of CHECKED.entries()) {
            await kube.createHeldJob(ns, heldJob({ name, target: `acme/api#${i + 1}`, waitFor: [{ profile: 'notyet' }] }));
          }
          // Every hold queued or checked once: when each checked one is due its next check.
          const nextChecks = await eventually('every hold queued or checked once', async () => {
            const all = await kube.listHeldJobs(ns);
            const queued = all.filter((h) => QUEUED.includes(h.metadata?.name ?? ''));
            const checked = all.filter((h) => CHECKED.includes(h.metadata?.name ?? ''));
            const ok =
              queued.length === QUEUED.length &&
              queued.every((h) => h.status?.conditions?.some((c) => c.type === 'Waiting' && c.reason === 'ScopeQueued')) &&
              checked.length === CHECKED.length &&
              checked.every((h) => (h.status?.checks ?? 0) >= 1 && h.status?.nextCheckAt !== undefined);
            return ok ? checked.map((h) => Date.parse(h.status?.nextCheckAt ?? '')) : undefined;
          });

          // The partition: black-holed. The standby starts inside it (its Valkey connection is
          // never ready), and the leader is killed once every check is due, so the standby
          // takes over with all of them due at once.
          proxy.stall();
          await standby.startAndWaitFor('Waiting to lead');
          const dueAt = Math.max(...nextChecks);
          await eventually('every check due', () => (Date.now() > dueAt ? true : undefined), dueAt - Date.now() + Timeouts.shortMs);
          await leader.kill('SIGKILL');
          await eventually('the standby to lead', () => (led(standby) ? true : undefined), TAKEOVER_MS + Timeouts.shortMs);
          await keepsAnswering(standby, metricsUrl, 'while Valkey was black-holed', Date.now() + 10_000);
          await standby.logged('Started');
          // Then the stalled connections cut, and new ones refused.
          await proxy.cut();
          await keepsAnswering(standby, metricsUrl, 'while Valkey was refused', Date.now() + 6_000);
          for (const name of QUEUED) expect(await phaseOf(name)).toBe(Phase.Held);

          // Valkey back: the queued holds go on, one at a time, once first's Job is gone.
          await proxy.restore();
          await kube.batch.deleteNamespacedJob({ name: firstJob, namespace: ns, propagationPolicy: 'Background' });
          for (const name of QUEUED) {
            await eventually(
              `${name} to succeed`,
              async () => ((await phaseOf(name)) === Phase.Succeeded ? true : undefined),
              Timeouts.jobMs,
            );
          }
          expect(await answers(metricsUrl)).toBe(true);
        } catch (err) {
          throw new Error(`${(err as Error).message}\n(operator logs: ${leader.logPath}, ${standby.logPath})`, { cause: err });
        } finally {
          // SIGKILL: a process whose event loop is never free never runs its SIGTERM handler.
          await Promise.all([leader.kill('SIGKILL'), standby.kill('SIGKILL')]);
          await kube.deleteNamespace(ns);
        }
      });
    },
    Timeouts.testMs * 2,
  );
});
