// Time to hold and the thundering herd, each beside the same apiserver writes done by a plain
// client loop in the same run:
// - raw: N HeldJobs created with nobody watching, at the operator's width; then, for each, the
//   two writes a launch costs (the Job's create and a status write) from a plain loop.
// - waitgate: N HeldJobs created at once sharing one `after` instant; the time until all are
//   Held, then from the instant until a watcher has seen every Job, and until every HeldJob
//   says Launched=True.
// Each phase's costs (apiserver requests per unit, CPU per process) are taken beside it.
import * as k8s from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, HELDJOB_PLURAL, Phase } from '../../api/vocabulary.js';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { createHeldJobs, inParallel, listHeldJobs } from '../common.js';
import { startCostMeter } from './cost-meter.js';
import { costLines } from './costs.js';
import { deleteNamespaceAndWait, JobSightings, PhaseWatch, until } from './measure.js';
import { startChartOperator } from './operator.js';
import { Better, Target, type Row } from './report.js';

const indexes = (count: number) => Array.from({ length: count }, (_, i) => i);

export interface HerdOptions {
  readonly kc: k8s.KubeConfig;
  readonly count: number;
  /** The apiserver width of both the raw loop and the operator (WAITGATE_RECONCILE_WORKERS). */
  readonly width: number;
  readonly log: (line: string) => void;
}

async function rawLaunches(kc: k8s.KubeConfig, ns: string, width: number): Promise<number> {
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const batch = kc.makeApiClient(k8s.BatchV1Api);
  const items = await listHeldJobs(custom, ns);
  const t0 = Date.now();
  await inParallel(items, width, async (hj: HeldJobObject) => {
    const name = hj.metadata.name;
    await batch.createNamespacedJob({
      namespace: ns,
      body: {
        metadata: { name: `${name}-raw`, labels: { 'waitgate.dev/heldjob': name } },
        spec: { suspend: true, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
      },
    });
    await custom.replaceNamespacedCustomObjectStatus({
      group: API_GROUP,
      version: API_VERSION,
      plural: HELDJOB_PLURAL,
      namespace: ns,
      name,
      body: { ...hj, status: { phase: Phase.Running, jobName: `${name}-raw` } },
    });
  });
  return items.length / ((Date.now() - t0) / 1000);
}

export async function herdRows(o: HerdOptions): Promise<Row[]> {
  const core = o.kc.makeApiClient(k8s.CoreV1Api);
  const custom = o.kc.makeApiClient(k8s.CustomObjectsApi);
  const id = Date.now().toString(36);
  const n = o.count.toLocaleString('en-US');

  const rawNs = `bench-raw-${id}`;
  await core.createNamespace({ body: { metadata: { name: rawNs } } });
  const after = new Date(Date.now() + 3_600_000).toISOString();
  let meter = await startCostMeter();
  const rawCreateS = await createHeldJobs(custom, rawNs, 'h', indexes(o.count), () => [{ after }]);
  const rawCreateCosts = await meter.stop(o.count, 'create');
  o.log(`raw: ${o.count} HeldJobs created in ${rawCreateS.toFixed(1)} s; ${costLines(rawCreateCosts).join('; ')}`);
  meter = await startCostMeter();
  const rawRate = await rawLaunches(o.kc, rawNs, o.width);
  const rawLaunchCosts = await meter.stop(o.count, 'launch');
  const rawLaunchS = o.count / rawRate;
  o.log(`raw: Job create + status write at width ${o.width}: ${rawRate.toFixed(0)}/s; ${costLines(rawLaunchCosts).join('; ')}`);
  await deleteNamespaceAndWait(o.kc, rawNs);

  const ns = `bench-herd-${id}`;
  await core.createNamespace({ body: { metadata: { name: ns } } });
  const operator = await startChartOperator(ns, { WAITGATE_RECONCILE_WORKERS: String(o.width) });
  const sightings = new JobSightings(o.kc, ns);
  await sightings.start();
  const phases = new PhaseWatch(o.kc, ns);
  await phases.start();
  try {
    // Far enough ahead for every hold to be made first, judged by the raw creates.
    const instant = Math.ceil((Date.now() + 60_000 + rawCreateS * 4_000) / 1000) * 1000;
    meter = await startCostMeter({ processes: { operator: operator.pid } });
    const t0 = Date.now();
    const createS = await createHeldJobs(custom, ns, 'h', indexes(o.count), () => [{ after: new Date(instant).toISOString() }]);
    let allHeld = 0;
    await until(
      () => {
        const held = phases.count(Phase.Held);
        if (held >= o.count) allHeld = Date.now();
        return held >= o.count;
      },
      instant - 3000,
      200,
    );
    const heldS = allHeld > 0 ? (allHeld - t0) / 1000 : NaN;
    const holdCosts = await meter.stop(o.count, 'hold');
    o.log(
      `waitgate: ${o.count} created in ${createS.toFixed(1)} s, all Held ${heldS.toFixed(1)} s after the first create; ${costLines(holdCosts).join('; ')}`,
    );
    await until(() => Date.now() >= instant - 2_000, instant, 100);
    meter = await startCostMeter({ processes: { operator: operator.pid } });
    const deadline = instant + 900_000;
    const everyJob = await until(() => sightings.seen.size >= o.count, deadline, 250);
    const lastSeen = Math.max(...sightings.seen.values());
    const launchS = (lastSeen - instant) / 1000;
    const rate = everyJob ? o.count / launchS : sightings.seen.size / ((Date.now() - instant) / 1000);
    const everyLaunched = await until(() => phases.launchedAt.size >= o.count, deadline, 250);
    const launchedS = everyLaunched ? (Math.max(...phases.launchedAt.values()) - instant) / 1000 : (Date.now() - instant) / 1000;
    const launchCosts = await meter.stop(o.count, 'launch');
    o.log(
      `waitgate: ${sightings.seen.size} Jobs seen ${launchS.toFixed(1)} s after the instant (${rate.toFixed(0)}/s); ${phases.launchedAt.size} Launched=True ${launchedS.toFixed(1)} s after it; ${costLines(launchCosts).join('; ')}`,
    );
    return [
      {
        what: `time to hold (${n} created at once)`,
        how: 'first create until every HeldJob is Held, beside the same creates with no operator; the floor is two writes, the create and the Held status',
        figure: heldS,
        unit: 's',
        against: { label: 'raw create time', value: rawCreateS },
        better: Better.Lower,
        target: Target.timeToHold,
        costs: holdCosts,
        peerCosts: rawCreateCosts,
      },
      {
        what: `thundering herd (${n} sharing one instant)`,
        how: `launches a second, the instant until a watcher saw every Job; peer: Job create + status write in a plain loop at width ${o.width}`,
        figure: rate,
        unit: 'launches/s',
        against: { label: 'raw writes', value: rawRate },
        better: Better.Higher,
        target: Target.herd,
        ...(everyJob ? {} : { note: `only ${sightings.seen.size} of ${o.count} Jobs appeared within 15 minutes` }),
        costs: launchCosts,
        peerCosts: rawLaunchCosts,
      },
      {
        what: `thundering herd: every hold Launched=True (${n} sharing one instant)`,
        how: `the instant until a watcher of the HeldJobs saw the last one say Launched=True, beside the time the plain loop took for the same Job creates and status writes at width ${o.width}`,
        figure: launchedS,
        unit: 's',
        against: { label: 'raw writes time', value: rawLaunchS },
        better: Better.Lower,
        target: Target.herdLaunched,
        note: `the last Job was seen ${launchS.toFixed(1)} s after the instant${everyLaunched ? '' : `; only ${phases.launchedAt.size} of ${o.count} said Launched=True within 15 minutes`}`,
        costs: launchCosts,
        peerCosts: rawLaunchCosts,
      },
    ];
  } finally {
    phases.stop();
    sightings.stop();
    // While the operator runs: it takes its finalizers off the HeldJobs the deletion removes.
    await deleteNamespaceAndWait(o.kc, ns);
    await operator.stop();
  }
}
