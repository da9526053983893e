// make chaos: the fault run of record (see docs/reliability.md). 1,000 holds of every kind,
// two operator replicas with leader election; the leader SIGKILLed 20 times at chosen moments,
// Valkey restarted twice (once losing its keys), kube-apiserver restarted once and frozen for
// 20 s, 20 running Jobs deleted, 50 deliveries sent again after their dedup window, 10 specs
// edited and 10 holds cancelled in the middle of their launch, 20 finished holds applied again
// by a GitOps tool (half of them changed), the operators cut off from Valkey alone for 150 s
// (past the 120 s lease) while Jobs run; then 30,000 holds and their operator OOM-killed by
// the kernel under the chart's memory limit while the due ones launch (CHAOS_OOM_HOLDS). Prints
// the figures; exits non-zero on any violation. CHAOS_* variables scale it down.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env } from './common.js';
import { runChaos } from './chaos/run.js';
import { formatReport } from './chaos/report.js';
import { formatOom, runOomPhase } from './chaos/oom.js';
import { loadKubeConfig } from '../lib/kube/client.js';

const n = (name: string, fallback: number) => Number(process.env[name] || fallback);

async function main(): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'waitgate-chaos-'));
  // CHAOS_PHASES: which of the two phases run (both by default), e.g. CHAOS_PHASES=oom.
  const phases = (process.env['CHAOS_PHASES'] || 'main,oom').split(',');
  const report = !phases.includes('main')
    ? undefined
    : await runChaos({
        holds: n('CHAOS_HOLDS', 1000),
        seed: n('CHAOS_SEED', Date.now() % 1_000_000),
        spreadMs: n('CHAOS_SPREAD_S', 420) * 1000,
        kills: n('CHAOS_KILLS', 20),
        valkeyRestarts: [true, false],
        apiserverRestarts: n('CHAOS_APISERVER_RESTARTS', 1),
        apiserverFreezeMs: n('CHAOS_APISERVER_FREEZE_S', 20) * 1000,
        jobDeletions: n('CHAOS_JOB_DELETIONS', 20),
        redeliveries: n('CHAOS_REDELIVERIES', 50),
        launchEdits: n('CHAOS_LAUNCH_EDITS', 10),
        launchCancels: n('CHAOS_LAUNCH_CANCELS', 10),
        reapplies: n('CHAOS_REAPPLIES', 20),
        valkeyPartitionMs: n('CHAOS_VALKEY_PARTITION_S', 150) * 1000,
        limits: { checkSlots: 8, concurrency: 60, scope: 2 },
        kubeconfig: env('KUBECONFIG'),
        clusterDir: env('WAITGATE_CLUSTER_DIR'),
        workDir,
        settleMs: n('CHAOS_SETTLE_S', 900) * 1000,
        say: (line) => console.log(line),
      });
  if (report) console.log(formatReport(report));
  // Then the OOM phase: 30,000 holds, the operator OOM-killed under the chart's memory limit.
  const oomHolds = n('CHAOS_OOM_HOLDS', 30_000);
  const oom =
    oomHolds > 0 && phases.includes('oom')
      ? await runOomPhase({
          kc: loadKubeConfig(env('KUBECONFIG'), { requestTimeoutMs: 30_000 }),
          holds: oomHolds,
          due: Math.min(1_000, Math.ceil(oomHolds / 30)),
          say: (line) => console.log(line),
        })
      : undefined;
  if (oom) console.log(formatOom(oom));
  writeFileSync(join(workDir, 'report.json'), `${JSON.stringify({ ...report, oom }, null, 2)}\n`);
  console.log(`chaos: logs and scripts' state in ${workDir}`);
  process.exit((report?.verdict.violations.length ?? 0) === 0 && (oom?.violations.length ?? 0) === 0 ? 0 : 1);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
