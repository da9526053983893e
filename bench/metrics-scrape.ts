// What one /metrics scrape of the operator costs at 10,000 holds in the informer's store: the
// held-job gauges counted by walking the store on every scrape (before issue 22) beside the
// counts kept from the informer's events (after). In process, no cluster: the store is built
// here, as the informer keeps it (managedFields gone), and the scrape is the registry's own.
//
//   node dist/bench/metrics-scrape.js [HOLDS]        (default 10000)
//
// Prints one line per figure (milliseconds of the leader's event loop per scrape), then one
// JSON line with every number.
import { performance } from 'node:perf_hooks';
import { Phase } from '../api/vocabulary.js';
import { countHeldJobs, HeldJobTally } from '../operator/controller/held-job-gauges.js';
import type { HeldJob } from '../operator/controller/ports.js';
import { OperatorMetrics } from '../operator/metrics.js';

const HOLDS = Number(process.argv[2] ?? 10_000);
const PROFILES = ['jira', 'ci', 'freeze'] as const;

/** A hold as the informer keeps it: most wait on an instant, one in ten on a profile, one in a hundred runs. */
function hold(i: number): HeldJob {
  const running = i % 100 === 0;
  const profile = i % 10 === 1 ? PROFILES[i % PROFILES.length] : undefined;
  return {
    apiVersion: 'waitgate.dev/v1alpha1',
    kind: 'HeldJob',
    metadata: { name: `hold-${i}`, namespace: `team-${i % 20}`, uid: `uid-${i}`, resourceVersion: String(1000 + i), generation: 1 },
    spec: {
      target: `acme/repo-${i % 500}#${i}`,
      trigger: 'deploy',
      waitFor: profile ? [{ profile }] : [{ after: '2030-01-01T00:00:00Z' }],
      job: {
        template: { spec: { containers: [{ name: 'deploy', image: 'busybox', command: ['sh', '-c', 'true'] }], restartPolicy: 'Never' } },
      },
    },
    status: {
      phase: running ? Phase.Running : Phase.Held,
      heldSince: '2026-09-01T08:00:00Z',
      jobName: `hold-${i}-abc123`,
      conditions: [
        {
          type: 'Waiting',
          status: running ? 'False' : 'True',
          reason: 'Waiting',
          message: 'waiting',
          lastTransitionTime: '2026-09-01T08:00:00Z',
        },
      ],
    },
  };
}

interface Figures {
  readonly medianMs: number;
  readonly p95Ms: number;
  readonly maxMs: number;
}

function figures(samples: number[]): Figures {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  return { medianMs: at(0.5), p95Ms: at(0.95), maxMs: s[s.length - 1] ?? 0 };
}

async function timeScrapes(metrics: OperatorMetrics, n: number): Promise<{ scrape: Figures; gauges: Figures }> {
  // Warm up (the JIT, the registry's first collect).
  for (let i = 0; i < 3; i++) await metrics.registry.metrics();
  const scrape: number[] = [];
  const gauges: number[] = [];
  for (let i = 0; i < n; i++) {
    let t = performance.now();
    metrics.onScrape();
    gauges.push(performance.now() - t);
    t = performance.now();
    await metrics.registry.metrics();
    scrape.push(performance.now() - t);
  }
  return { scrape: figures(scrape), gauges: figures(gauges) };
}

const fmt = (f: Figures) => `median ${f.medianMs.toFixed(3)} ms, p95 ${f.p95Ms.toFixed(3)} ms, max ${f.maxMs.toFixed(3)} ms`;

async function main(): Promise<void> {
  const store = Array.from({ length: HOLDS }, (_, i) => hold(i));

  // Before: every scrape walked the store (main.ts's onScrape called countHeldJobs on the informer's list).
  const before = new OperatorMetrics();
  before.onScrape = () => before.setHeldJobCounts(countHeldJobs(store));
  const walked = await timeScrapes(before, 30);

  // After: the counts kept from the events; a scrape reads them.
  const tally = new HeldJobTally({ list: () => store });
  let t = performance.now();
  tally.relisted();
  const relistMs = performance.now() - t;
  const after = new OperatorMetrics();
  after.countHeldJobsFrom(tally);
  const kept = await timeScrapes(after, 300);

  // What the events now pay: one update that moves a hold between phases, and back.
  const events: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const h = store[(i * 37) % store.length] as HeldJob;
    const moved: HeldJob = { ...h, status: { ...h.status, phase: i % 2 ? Phase.Held : Phase.Running } };
    t = performance.now();
    tally.observe('update', moved);
    events.push(performance.now() - t);
  }
  const perEvent = figures(events);

  console.log(`metrics-scrape: ${HOLDS} holds in the store`);
  console.log(`  before, a scrape walking the store:     ${fmt(walked.scrape)} (held-job gauges alone: ${fmt(walked.gauges)})`);
  console.log(`  after, a scrape reading kept counts:    ${fmt(kept.scrape)} (held-job gauges alone: ${fmt(kept.gauges)})`);
  console.log(`  after, one rebuild on a (re)list:       ${relistMs.toFixed(3)} ms`);
  console.log(`  after, one informer update's share:     ${fmt(perEvent)}`);
  console.log(
    JSON.stringify({
      holds: HOLDS,
      before: walked,
      after: kept,
      relistMs,
      perEventMs: perEvent,
      ratio: walked.scrape.medianMs / kept.scrape.medianMs,
    }),
  );
}

await main();
