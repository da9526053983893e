// `make fuzz`: 10,000 hostile deliveries (FUZZ_DELIVERIES to change it), then 500 slow unsigned
// 1 MiB uploads with signed deliveries among them (FUZZ_SLOW_SENDERS, FUZZ_SIGNED), then 300
// connections stalling in their headers, over the connection cap, with signed deliveries among
// them (FUZZ_HEADER_STALLS), then one label toggled 5,000 times on one issue (FUZZ_TOGGLES), at
// a real receiver process on a cluster and Valkey of its own. Prints figures; exits 1 when a
// rule broke: an answer other than 2xx, 4xx or a cap's 503, a HeldJob no signed delivery asked
// for, the receiver gone, RSS over 150 MiB, a signed delivery unanswered, or the toggled
// target's HeldJobs more than TOGGLE_HELDJOBS_MAX (refusals are counted on one record per
// trigger, target and token, so toggling costs a few objects, not one per delivery).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kube, listHeldJobs } from './common.js';
import {
  describeFuzz,
  describeHeaderStalls,
  describeSlow,
  describeToggles,
  runFuzz,
  runHeaderStalls,
  runSlowSenders,
  runToggles,
  type FuzzTarget,
} from './fuzz.js';
import { scrape, seriesIn } from './metrics-text.js';
import { startReceiverProcess } from './receiver-process.js';

const RSS_LIMIT_MIB = 150;
const MiB = 1024 * 1024;

/**
 * What the receiver's own /metrics says of its memory after a phase: V8's heap (used, and what
 * it has taken), its code space, and the memory outside the heap (Buffers), beside the RSS: where
 * a climb of the RSS lives. Unreadable: said so, not a failure.
 */
async function memoryLine(phase: string, metricsPort: number): Promise<string> {
  try {
    const text = await scrape(`http://127.0.0.1:${String(metricsPort)}`);
    const gauge = (name: string, labels = ''): string => {
      const v = seriesIn(text, `${name}${labels}`);
      return v === undefined ? '?' : (v / MiB).toFixed(1);
    };
    return `${phase}: receiver memory: heap used ${gauge('nodejs_heap_size_used_bytes')} MiB of ${gauge('nodejs_heap_size_total_bytes')} MiB taken (code space ${gauge('nodejs_heap_space_size_total_bytes', '{space="code"}')} MiB), external ${gauge('nodejs_external_memory_bytes')} MiB, resident ${gauge('process_resident_memory_bytes')} MiB`;
  } catch (err) {
    return `${phase}: receiver memory unread (${String(err)})`;
  }
}
/** The most HeldJobs one toggled target may end with: its hold and a record per refusal token. */
const TOGGLE_HELDJOBS_MAX = 8;
const LABEL = 'fuzz:deploy';
const TOGGLE_LABEL = 'fuzz:toggle';
const num = (name: string, def: number) => Number(process.env[name] || def);

/** The rules a phase with signed deliveries among hostile ones must keep: memory, and every signed one answered. */
function signedStillAnswered(
  phase: string,
  f: { readonly rss: { readonly peakMiB: number }; readonly signed: number; readonly signedAnswered: number },
): string[] {
  const broken: string[] = [];
  if (f.rss.peakMiB > RSS_LIMIT_MIB) broken.push(`${phase}: RSS peaked at ${f.rss.peakMiB.toFixed(1)} MiB`);
  if (f.signedAnswered !== f.signed) broken.push(`${phase}: ${String(f.signed - f.signedAnswered)} signed deliveries unanswered`);
  return broken;
}

async function main(): Promise<void> {
  const { core, custom } = kube();
  const namespace = `fuzz-${String(Date.now())}`;
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  const job = { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } };
  // The toggled label's trigger holds (a day ahead, far inside the 30-day bound): every labeled
  // delivery after the first meets its hold and is refused. (A trigger without a wait keeps one
  // running and the newest pending hold per target; receiver-bounded.test.ts measures that.)
  const aDayAhead = new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const triggers = [
    { name: 'gh', on: { type: 'label', any: [LABEL] }, run: { kind: 'github', flow: 'fuzz', job } },
    { name: 'gl', on: { type: 'label', any: [LABEL] }, run: { kind: 'gitlab', flow: 'fuzz', job } },
    {
      name: 'toggled',
      on: { type: 'label', any: [TOGGLE_LABEL] },
      run: { kind: 'github', flow: 'fuzz', waitFor: [{ after: aDayAhead }], job },
    },
  ];
  await core.createNamespacedConfigMap({
    namespace,
    body: { metadata: { name: 'waitgate-triggers' }, data: { 'triggers.json': JSON.stringify(triggers) } },
  });

  const secrets = { githubSecret: `fuzz-${String(Math.random())}`, gitlabToken: `fuzz-${String(Math.random())}` };
  const logPath = join(process.env['WAITGATE_CLUSTER_DIR'] || tmpdir(), `receiver-${namespace}.log`);
  const receiver = await startReceiverProcess({ namespace, secrets, logPath });
  const pid = receiver.pid;
  const target: FuzzTarget = { port: receiver.port, ...secrets, label: LABEL };
  const failures: string[] = [];
  try {
    const fuzz = await runFuzz(target, { deliveries: num('FUZZ_DELIVERIES', 10_000), concurrency: 32, seed: num('FUZZ_SEED', 1), pid });
    process.stdout.write(`${describeFuzz(fuzz)}\n`);
    process.stdout.write(`${await memoryLine('fuzz', receiver.metricsPort)}\n`);
    const made = (await listHeldJobs(custom, namespace)).length;
    process.stdout.write(`fuzz: ${String(made)} HeldJobs made, for ${String(fuzz.handled)} signed label deliveries handled\n`);
    if (made !== fuzz.handled) failures.push(`${String(made)} HeldJobs for ${String(fuzz.handled)} handled deliveries`);
    failures.push(...fuzz.violations.slice(0, 20));
    if (fuzz.rss.peakMiB > RSS_LIMIT_MIB) failures.push(`fuzz: RSS peaked at ${fuzz.rss.peakMiB.toFixed(1)} MiB`);

    const slow = await runSlowSenders(target, {
      slow: num('FUZZ_SLOW_SENDERS', 500),
      signed: num('FUZZ_SIGNED', 100),
      seed: num('FUZZ_SEED', 1) + 1,
      pid,
    });
    process.stdout.write(`${describeSlow(slow)}\n`);
    process.stdout.write(`${await memoryLine('slow senders', receiver.metricsPort)}\n`);
    failures.push(...signedStillAnswered('slow senders', slow));

    const stalls = await runHeaderStalls(target, {
      stallers: num('FUZZ_HEADER_STALLS', 300),
      signed: num('FUZZ_SIGNED', 100),
      seed: num('FUZZ_SEED', 1) + 2,
      pid,
    });
    process.stdout.write(`${describeHeaderStalls(stalls)}\n`);
    process.stdout.write(`${await memoryLine('header stalls', receiver.metricsPort)}\n`);
    failures.push(...signedStillAnswered('header stalls', stalls));

    const toggles = await runToggles(
      { ...target, label: TOGGLE_LABEL },
      {
        toggles: num('FUZZ_TOGGLES', 5_000),
        concurrency: 8,
        pid,
        repository: 'fuzz/toggled',
        issue: 1,
      },
    );
    const forTarget = (await listHeldJobs(custom, namespace)).filter(
      (h) => (h.spec as { target?: string } | undefined)?.target === toggles.target,
    ).length;
    process.stdout.write(`${describeToggles(toggles, forTarget)}\n`);
    process.stdout.write(`${await memoryLine('toggles', receiver.metricsPort)}\n`);
    failures.push(...signedStillAnswered('toggles', { rss: toggles.rss, signed: toggles.toggles, signedAnswered: toggles.answered }));
    if (forTarget === 0) failures.push(`toggles: no HeldJob for ${toggles.target}: the first labeled delivery made none`);
    if (forTarget > TOGGLE_HELDJOBS_MAX)
      failures.push(`toggles: ${String(forTarget)} HeldJobs for ${toggles.target}, over ${String(TOGGLE_HELDJOBS_MAX)}`);
    if (receiver.exitCode() !== undefined) failures.push(`the receiver exited (${String(receiver.exitCode())})`);
    else if ((await fetch(`http://127.0.0.1:${String(receiver.port)}/healthz`)).status !== 200)
      failures.push('the receiver stopped answering');
  } finally {
    await receiver.stop();
    await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  }
  if (failures.length > 0) {
    process.stdout.write(`fuzz: FAILED\n${failures.map((f) => `  ${f}`).join('\n')}\n(receiver log: ${logPath})\n`);
    process.exit(1);
  }
  process.stdout.write('fuzz: passed\n');
  process.exit(0);
}

main().catch((err: unknown) => {
  process.stderr.write(`fuzz: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
