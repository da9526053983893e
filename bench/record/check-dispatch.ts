// Check dispatch: HeldJobs waiting on an exec profile whose script says "not yet" (exit 3) are
// made while the profiles ConfigMap is missing (so their checks pause), then the ConfigMap
// is created and every check is due at once. The figure is distinct holds checked a second,
// from the script's own log; the peer is a bare spawn loop of the same script, at the same
// width as the operator's check slots, in the same run.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { Phase } from '../../api/vocabulary.js';
import { createHeldJobs, inParallel } from '../common.js';
import { startCostMeter } from './cost-meter.js';
import { costLines } from './costs.js';
import { deleteNamespaceAndWait, PhaseWatch, until } from './measure.js';
import { startChartOperator } from './operator.js';
import { Better, Target, type Row } from './report.js';

const PROFILE = 'bench';

export interface CheckDispatchOptions {
  readonly kc: k8s.KubeConfig;
  readonly count: number;
  /** Check slots of the operator and width of the spawn loop. */
  readonly width: number;
  readonly log: (line: string) => void;
}

/** Appends its first argument (the target) to `runs`, then says "not yet". */
export function notYetScript(runs: string): string {
  return `#!/bin/sh\necho "$1" >> '${runs}'\nexit 3\n`;
}

/** Distinct lines in a file (targets checked so far); 0 while it does not exist. */
function distinctLines(path: string): number {
  if (!existsSync(path)) return 0;
  return new Set(readFileSync(path, 'utf8').split('\n').filter(Boolean)).size;
}

/** `count` runs of `script target-i`, `width` at a time, as the exec adapter runs one: argv, stdin from /dev/null. */
async function spawnLoop(script: string, count: number, width: number): Promise<number> {
  const t0 = Date.now();
  await inParallel(
    Array.from({ length: count }, (_, i) => i),
    width,
    (i) =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(script, [`acme/repo-${String(i)}#1`], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
        child.stdout.resume();
        child.stderr.resume();
        child.once('error', reject);
        child.once('exit', () => resolve());
      }),
  );
  return (Date.now() - t0) / 1000;
}

export async function checkDispatchRows(o: CheckDispatchOptions): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'waitgate-bench-checks-'));
  const peerRuns = join(dir, 'peer-runs');
  const peerScript = join(dir, 'not-yet.sh');
  writeFileSync(peerScript, notYetScript(peerRuns));
  chmodSync(peerScript, 0o755);
  const peerMeter = await startCostMeter();
  const peerS = await spawnLoop(peerScript, o.count, o.width);
  const peerCosts = await peerMeter.stop(o.count, 'check');
  const peerRate = distinctLines(peerRuns) / peerS;
  o.log(
    `checks: bare spawn loop: ${o.count} runs at width ${o.width} in ${peerS.toFixed(1)} s (${peerRate.toFixed(0)}/s); ${costLines(peerCosts).join('; ')}`,
  );

  const core = o.kc.makeApiClient(k8s.CoreV1Api);
  const custom = o.kc.makeApiClient(k8s.CustomObjectsApi);
  const ns = `bench-checks-${Date.now().toString(36)}`;
  await core.createNamespace({ body: { metadata: { name: ns } } });
  const operator = await startChartOperator(ns, {
    WAITGATE_WAIT_CHECK_SLOTS: String(o.width),
    // One check each within the window: the next would be an hour later.
    WAITGATE_WAIT_INTERVAL_MS: '3600000',
  });
  const phases = new PhaseWatch(o.kc, ns);
  await phases.start();
  try {
    await createHeldJobs(
      custom,
      ns,
      'c',
      Array.from({ length: o.count }, (_, i) => i),
      () => [{ profile: PROFILE }],
    );
    const allHeld = await until(() => phases.count(Phase.Held) >= o.count, Date.now() + 900_000, 500);
    if (!allHeld) throw new Error(`checks: ${o.count} HeldJobs were not all Held within 15 minutes`);
    await new Promise((r) => setTimeout(r, 5_000));
    const runs = join(dir, 'operator-runs');
    const meter = await startCostMeter({ processes: { operator: operator.pid } });
    const t0 = Date.now();
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        metadata: { name: 'waitgate-profiles' },
        data: { 'profiles.json': JSON.stringify({ [PROFILE]: { mode: 'exec', script: 'not-yet.sh' } }), 'not-yet.sh': notYetScript(runs) },
      },
    });
    let doneAt = 0;
    const all = await until(
      () => {
        const done = distinctLines(runs) >= o.count;
        if (done) doneAt = Date.now();
        return done;
      },
      Date.now() + 900_000,
      100,
    );
    const checked = distinctLines(runs);
    const elapsedS = ((all ? doneAt : Date.now()) - t0) / 1000;
    const rate = checked / elapsedS;
    const costs = await meter.stop(Math.max(1, checked), 'check');
    o.log(
      `checks: waitgate: ${checked} holds checked ${elapsedS.toFixed(1)} s after the profiles appeared (${rate.toFixed(0)}/s); ${costLines(costs).join('; ')}`,
    );
    return [
      {
        what: `check dispatch (${o.count.toLocaleString('en-US')} exec checks due at once)`,
        how: `holds checked a second from the profiles' creation, ${o.width} check slots; peer: a bare spawn loop of the same script at width ${o.width}`,
        figure: rate,
        unit: 'checks/s',
        against: { label: 'bare spawns', value: peerRate },
        better: Better.Higher,
        target: Target.checks,
        note: `the peer spawned ${o.count} in ${peerS.toFixed(1)} s; waitgate checked ${checked} in ${elapsedS.toFixed(1)} s, each with its check slot leased in Valkey and its answer written to the HeldJob's status${all ? '' : ' (not all within 15 minutes)'}; the script's runs are the children's CPU`,
        costs,
        peerCosts,
      },
    ];
  } finally {
    phases.stop();
    // While the operator runs: it takes its finalizers off the HeldJobs the deletion removes.
    await deleteNamespaceAndWait(o.kc, ns);
    await operator.stop();
  }
}
