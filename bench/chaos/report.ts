// The figures of a chaos run, as make chaos prints them and docs/reliability.md records them.
import type { ChaosReport } from './run.js';

export function formatReport(r: ChaosReport): string {
  const f = r.verdict.figures;
  const k = r.faults;
  const kills = Object.values(k.kills).reduce((a, b) => a + b, 0);
  const lines = [
    `chaos: ${r.verdict.violations.length === 0 ? 'PASS' : 'FAIL'} in ${r.seconds}s (namespace ${r.namespace})`,
    `  holds        ${f.holds} of ${f.planned} planned; ended: ${Object.entries(f.ended)
      .map(([phase, count]) => `${phase} ${count}`)
      .join(', ')}`,
    `  kills        ${kills} SIGKILLs of the leader (${Object.entries(k.kills)
      .map(([m, c]) => `${m} ${c}`)
      .join(', ')}); longest takeover ${(k.longestTakeoverMs / 1000).toFixed(1)}s`,
    `  restarts     Valkey ${k.valkeyRestarts.keptKeys + k.valkeyRestarts.lostKeys} (${k.valkeyRestarts.lostKeys} losing its keys), kube-apiserver ${k.apiserverRestarts}`,
    `  partitions   the operators cut off from Valkey ${k.valkeyPartitions} time(s)`,
    `  stalls       kube-apiserver frozen ${k.apiserverFreezes}`,
    `  Jobs deleted ${k.jobDeletions}; redeliveries ${k.redeliveries}`,
    `  users        ${k.launchEdits} specs edited and ${k.launchCancels} holds cancelled mid-launch (${f.cancelsLeaderless} while a fault left no leader to act); ${k.reapplies} finished holds applied again by GitOps (half changed)`,
    `  duplicates   ${f.duplicates}`,
    `  lost         ${f.lost}`,
    `  wedged       ${f.wedged}`,
    `  early        ${f.earlyLaunches}`,
    `  breaches     ${f.limitBreaches} (most held at once: check slots ${f.highs.checkSlots}, scope all ${f.highs.all}, one scope ${f.highs.scope}, over ${f.highs.samples} samples; Jobs running ${f.highs.jobsAtOnce}, for one scope ${f.highs.jobsPerScopeAtOnce})`,
    `  checks       ${f.checksRun} run, ${f.checksRecorded} recorded; lost to faults ${f.checksLostTotal} (at most ${f.checksLostMax} for one hold, ${f.checksLostPerFaultMax === 0 ? 'none' : f.checksLostPerFaultMax <= 1 ? 'never more than one per fault' : `up to ${f.checksLostPerFaultMax.toFixed(1)} per fault`})`,
    ...r.verdict.violations.slice(0, 30).map((v) => `  VIOLATION ${v}`),
  ];
  if (r.verdict.violations.length > 30) lines.push(`  ... and ${r.verdict.violations.length - 30} more`);
  return lines.join('\n');
}
