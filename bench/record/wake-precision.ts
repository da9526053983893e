// How exactly an `after` instant launches: HeldJobs whose instants are spread over a window
// (or bunched, several to a whole second), and a watcher that notes when each Job appears.
// Lateness is when the watcher saw the Job minus the instant, so it includes the create and
// the watch event, as a user would see it. The launches' costs (requests and CPU per launch)
// are taken from 2 s before the first instant until the last Job is seen.
import * as k8s from '@kubernetes/client-node';
import { createHeldJobs } from '../common.js';
import { startCostMeter } from './cost-meter.js';
import type { Costs } from './costs.js';
import { deleteNamespaceAndWait, histogramShares, JobSightings, until } from './measure.js';
import { startChartOperator } from './operator.js';
import { percentile } from './report.js';

export interface Lateness {
  readonly seen: number;
  readonly missing: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** How late the operator itself woke (its after_wake_lateness histogram), before any write. */
  readonly wakes?: string;
  /** From just before the first instant until the last Job was seen: requests and CPU per launch. */
  readonly costs?: Costs;
}

/**
 * `instants(start)` gives each HeldJob's instant (epoch ms) from a start far enough ahead for
 * all of them to be created and held first.
 */
export async function measureAfterLateness(
  kc: k8s.KubeConfig,
  label: string,
  count: number,
  instants: (start: number) => number[],
): Promise<Lateness> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const ns = `bench-${label}-${Date.now().toString(36)}`;
  await core.createNamespace({ body: { metadata: { name: ns } } });
  const operator = await startChartOperator(ns);
  const sightings = new JobSightings(kc, ns);
  await sightings.start();
  try {
    const at = instants(Date.now() + 60_000 + count * 20);
    await createHeldJobs(
      custom,
      ns,
      'w',
      at.map((_, i) => i),
      (i) => [{ after: new Date(at[i] as number).toISOString() }],
    );
    // The launches' costs alone: from just before the first instant (every hold made by then).
    const first = Math.min(...at);
    await until(() => Date.now() >= first - 2_000, first, 100);
    const meter = await startCostMeter({ processes: { operator: operator.pid } });
    await until(() => sightings.seen.size >= count, Math.max(...at) + 120_000, 250);
    const costs = await meter.stop(sightings.seen.size, 'launch');
    const wakes = await histogramShares(operator.metricsPort, 'waitgate_after_wake_lateness_seconds');
    const late = at.flatMap((instant, i) => {
      const seen = sightings.seen.get(`w-${i}`);
      return seen === undefined ? [] : [seen - instant];
    });
    return {
      seen: late.length,
      missing: count - late.length,
      p50: percentile(late, 50),
      p99: percentile(late, 99),
      max: Math.max(...late),
      wakes,
      costs,
    };
  } finally {
    sightings.stop();
    // While the operator runs: it takes its finalizers off the HeldJobs the deletion removes.
    await deleteNamespaceAndWait(kc, ns);
    await operator.stop();
  }
}

/** `count` instants spread evenly over `windowMs`, milliseconds apart (not on whole seconds). */
export function spread(count: number, windowMs: number): (start: number) => number[] {
  return (start) => Array.from({ length: count }, (_, i) => Math.ceil(start / 1000) * 1000 + 7 + Math.floor((i * windowMs) / count));
}

/** `count` instants, `perSecond` of them sharing each whole second. */
export function bunched(count: number, perSecond: number): (start: number) => number[] {
  return (start) => Array.from({ length: count }, (_, i) => Math.ceil(start / 1000) * 1000 + Math.floor(i / perSecond) * 1000);
}
