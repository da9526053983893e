// The short form of make chaos: 100 holds of every kind, two operator replicas with leader
// election, the leader SIGKILLed 3 times at chosen moments, Valkey restarted once losing its
// keys, 3 running Jobs deleted, 5 deliveries sent again after their dedup window, 2 specs
// edited and 2 holds cancelled mid-launch, 3 finished holds applied again by GitOps. Every hold
// ends once (a cancelled one is gone, its Job with it), with at most one Job, none early, no
// limit exceeded.
import { describe, expect, test } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChaos } from '../../bench/chaos/run.js';
import { formatReport } from '../../bench/chaos/report.js';
import { kubeconfigPath } from '../support/env.js';

const RUN_MS = 12 * 60_000;

describe('chaos, short form', () => {
  test(
    'every hold ends exactly once through leader kills, a Valkey restart, deleted Jobs and redeliveries',
    async () => {
      const lines: string[] = [];
      const report = await runChaos({
        holds: 100,
        seed: 20261203,
        spreadMs: 90_000,
        kills: 3,
        valkeyRestarts: [false],
        apiserverRestarts: 0,
        apiserverFreezeMs: 0,
        jobDeletions: 3,
        redeliveries: 5,
        launchEdits: 2,
        launchCancels: 2,
        reapplies: 3,
        valkeyPartitionMs: 0,
        limits: { checkSlots: 4, concurrency: 20, scope: 2 },
        kubeconfig: kubeconfigPath(),
        clusterDir: undefined,
        workDir: mkdtempSync(join(tmpdir(), 'waitgate-chaos-short-')),
        settleMs: 300_000,
        say: (line) => lines.push(line),
      });
      const summary = `${lines.join('\n')}\n${formatReport(report)}`;
      expect({ violations: report.verdict.violations, summary }).toEqual({ violations: [], summary });
      const f = report.verdict.figures;
      // Every fault it claims happened (the summary, with what the run said, shows otherwise).
      const counts = {
        // A hold cancelled mid-launch is gone at the end, as it should be.
        holds: f.holds + report.faults.launchCancels,
        kills: Object.values(report.faults.kills).reduce((a, b) => a + b, 0),
        valkeyLostKeys: report.faults.valkeyRestarts.lostKeys,
        jobDeletions: report.faults.jobDeletions,
        redeliveries: report.faults.redeliveries,
        launchEdits: report.faults.launchEdits,
        launchCancels: report.faults.launchCancels,
        reapplies: report.faults.reapplies,
      };
      expect({ counts, summary }).toEqual({
        counts: {
          holds: 100,
          kills: 3,
          valkeyLostKeys: 1,
          jobDeletions: 3,
          redeliveries: 5,
          launchEdits: 2,
          launchCancels: 2,
          reapplies: 3,
        },
        summary,
      });
      // The run really exercised what it claims: checks ran, both ways.
      expect(f.checksRun).toBeGreaterThan(0);
      expect(f.highs.samples).toBeGreaterThan(100);
    },
    RUN_MS,
  );
});
