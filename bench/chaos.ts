// make chaos: HeldJobs with after instants spread over the next minute, while the operator
// is SIGKILLed and restarted at random moments. At the end every HeldJob must have ended,
// with exactly one Job, created no earlier than its instant. Prints what it found; exits
// non-zero on any violation.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_GROUP, API_VERSION, HELDJOB_PLURAL, Phase } from '../api/vocabulary.js';
import { env, heldJobBody, inParallel, kube, listHeldJobs, listJobs, sleep, startOperator } from './common.js';

const COUNT = Number(process.env['CHAOS_HELDJOBS'] ?? 300);
const SPREAD_MS = Number(process.env['CHAOS_SPREAD_MS'] ?? 45_000);
const KILLS_EVERY_MS: [number, number] = [500, 4000];

async function main(): Promise<void> {
  env('VALKEY_URL');
  const { core, batch, custom } = kube();
  const ns = `chaos-${Date.now().toString(36)}`;
  await core.createNamespace({ body: { metadata: { name: ns } } });
  const logs = mkdtempSync(join(tmpdir(), 'waitgate-chaos-'));
  const opEnv = {
    WAITGATE_WATCH_NAMESPACE: ns,
    WAITGATE_NAMESPACE: ns,
    WAITGATE_VALKEY_PREFIX: `chaos-${ns}`,
    WAITGATE_CONCURRENCY: '10000',
    WAITGATE_SCOPE_LIMIT: '10000',
    WAITGATE_LOG_LEVEL: 'warn',
  };
  let operator = startOperator(opEnv, join(logs, 'operator-0.log'));
  const t0 = Date.now() + 5_000;
  const instants = new Map<string, number>();
  const names = Array.from({ length: COUNT }, (_, i) => `chaos-${i}`);
  await inParallel(names, 20, async (name) => {
    const at = Math.ceil((t0 + Math.random() * SPREAD_MS) / 1000) * 1000;
    instants.set(name, at);
    await custom.createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: HELDJOB_PLURAL,
      namespace: ns,
      body: heldJobBody(name, `acme/r${name.split('-')[1]}#1`, [{ after: new Date(at).toISOString() }], true),
    });
  });
  console.log(
    `chaos: ${COUNT} HeldJobs in ${ns}, instants over ${SPREAD_MS / 1000}s; killing the operator every ${KILLS_EVERY_MS[0]}-${KILLS_EVERY_MS[1]} ms`,
  );

  let kills = 0;
  const end = t0 + SPREAD_MS + 2_000;
  while (Date.now() < end) {
    await sleep(KILLS_EVERY_MS[0] + Math.random() * (KILLS_EVERY_MS[1] - KILLS_EVERY_MS[0]));
    operator.kill('SIGKILL');
    await new Promise((r) => operator.once('exit', r));
    kills++;
    operator = startOperator(opEnv, join(logs, `operator-${kills}.log`));
  }
  console.log(`chaos: ${kills} SIGKILLs; letting the last operator finish`);
  const deadline = Date.now() + 120_000;
  let held = await listHeldJobs(custom, ns);
  while (Date.now() < deadline && held.some((h) => h.status?.phase !== Phase.Running)) {
    await sleep(1000);
    held = await listHeldJobs(custom, ns);
  }
  operator.kill('SIGTERM');

  const jobs = await listJobs(batch, ns);
  const jobsByOwner = new Map<string, number>();
  const violations: string[] = [];
  for (const j of jobs) {
    const owner = j.metadata?.labels?.['waitgate.dev/heldjob'] ?? '?';
    jobsByOwner.set(owner, (jobsByOwner.get(owner) ?? 0) + 1);
    const created = new Date(j.metadata?.creationTimestamp as Date).getTime();
    const at = instants.get(owner);
    // creationTimestamp has one-second precision, and instants are whole seconds.
    if (at !== undefined && created < at)
      violations.push(`${owner}: Job created at ${new Date(created).toISOString()}, before its instant ${new Date(at).toISOString()}`);
  }
  for (const h of held) {
    const n = jobsByOwner.get(h.metadata.name) ?? 0;
    if (n !== 1) violations.push(`${h.metadata.name}: ${n} Jobs`);
    if (h.status?.phase !== Phase.Running) violations.push(`${h.metadata.name}: ended ${h.status?.phase ?? 'without a phase'}`);
  }
  console.log(`chaos: ${held.length} HeldJobs, ${jobs.length} Jobs, ${kills} kills, ${violations.length} violations (logs in ${logs})`);
  for (const v of violations.slice(0, 20)) console.log(`  ${v}`);
  await core.deleteNamespace({ name: ns }).catch(() => undefined);
  process.exit(violations.length === 0 ? 0 : 1);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
