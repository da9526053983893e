// make bench: 10,000 HeldJobs held on one after instant, one operator. Prints figures:
// how fast they were created and held, the operator's memory while holding them, and how
// long from the instant until every Job existed. Jobs are created suspended, so the figures
// are waitgate's, not the Job controller's.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_GROUP, API_VERSION, HELDJOB_PLURAL, Phase } from '../api/vocabulary.js';
import { env, heldJobBody, inParallel, kube, listHeldJobs, sleep, startOperator } from './common.js';

const COUNT = Number(process.env['BENCH_HELDJOBS'] ?? 10_000);

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function count(custom: ReturnType<typeof kube>['custom'], ns: string, phase: string): Promise<number> {
  return (await listHeldJobs(custom, ns)).filter((h) => h.status?.phase === phase).length;
}

async function main(): Promise<void> {
  env('VALKEY_URL');
  const { core, custom } = kube();
  const ns = `bench-${Date.now().toString(36)}`;
  await core.createNamespace({ body: { metadata: { name: ns } } });
  const logs = mkdtempSync(join(tmpdir(), 'waitgate-bench-'));
  const operator = startOperator(
    {
      WAITGATE_WATCH_NAMESPACE: ns,
      WAITGATE_NAMESPACE: ns,
      WAITGATE_VALKEY_PREFIX: `bench-${ns}`,
      WAITGATE_CONCURRENCY: '10000',
      WAITGATE_SCOPE_LIMIT: '10000',
      WAITGATE_LOG_LEVEL: 'warn',
      WAITGATE_RECONCILE_WORKERS: '32',
    },
    join(logs, 'operator.log'),
  );
  operator.once('exit', (code) => {
    if (code !== 0 && code !== null) {
      console.error(`bench: the operator exited with ${code}; see ${logs}/operator.log`);
      process.exit(1);
    }
  });
  // Far enough ahead for all of them to be created and held first.
  const instant = Math.ceil((Date.now() + 60_000 + COUNT * 25) / 1000) * 1000;
  const after = new Date(instant).toISOString();
  const t0 = Date.now();
  await inParallel(
    Array.from({ length: COUNT }, (_, i) => i),
    32,
    async (i) => {
      await custom.createNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        plural: HELDJOB_PLURAL,
        namespace: ns,
        body: heldJobBody(`bench-${i}`, `acme/repo-${i}#1`, [{ after }], true),
      });
    },
  );
  const created = Date.now();
  console.log(
    `bench: created ${COUNT} HeldJobs in ${((created - t0) / 1000).toFixed(1)} s (${Math.round(COUNT / ((created - t0) / 1000))}/s)`,
  );
  let held: number;
  while ((held = await count(custom, ns, Phase.Held)) < COUNT && Date.now() < instant - 2000) await sleep(1000);
  const allHeld = Date.now();
  console.log(
    `bench: ${held} held ${((allHeld - t0) / 1000).toFixed(1)} s after the first create; operator RSS ${rssMiB(operator.pid as number).toFixed(0)} MiB while holding`,
  );
  while (Date.now() < instant) await sleep(200);
  let running: number;
  const deadline = instant + 600_000;
  while ((running = await count(custom, ns, Phase.Running)) < COUNT && Date.now() < deadline) await sleep(1000);
  const done = Date.now();
  console.log(
    `bench: ${running} of ${COUNT} launched ${((done - instant) / 1000).toFixed(1)} s after the instant (${Math.round(running / Math.max(0.001, (done - instant) / 1000))}/s); operator RSS ${rssMiB(operator.pid as number).toFixed(0)} MiB`,
  );
  operator.kill('SIGTERM');
  await core.deleteNamespace({ name: ns }).catch(() => undefined);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
