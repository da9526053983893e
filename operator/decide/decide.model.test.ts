// A model test of the decide/execute loop: random sequences of events (time passing, check
// answers 0/1/2/3, timeouts and denials, spec edits, cancels, crashes mid-pass and restarts,
// Valkey losing its keys or going away, Jobs ending or deleted, creates whose answer is lost)
// drive the real decide() and its hand-backs through a small fake executor over a fake world
// (test/support/decide-model/). The invariants are asserted as the world changes: at most one
// Job per hold, never before its instant or before every profile said go in one round, no
// Job after a cancel, checks and faults within their budgets, the scope cap kept, a terminal
// state never left, and at the end every hold ends (or is gone) within its budgets.
//
// On a failure the seed and the shrunk path are printed: put them in REPLAY to run that case.
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { Action } from './actions.js';
import { decide } from './decide.js';
import type { DecideConfig, Observed } from './observed.js';
import { scenarioArb, type Scenario } from '../../test/support/decide-model/events.js';
import { ModelViolation, World, type DecideFn, type ModelStats } from '../../test/support/decide-model/world.js';

const CONFIG: DecideConfig = {
  afterMaxMs: 30 * 86_400_000,
  intervalMs: 30_000,
  maxMs: 30 * 60_000,
  maxChecks: 8,
  maxFaults: 3,
  pauseWindows: [],
  finishedTtlMs: 0,
};
const SETTINGS = { config: CONFIG, scopeCap: 1, start: Date.parse('2026-09-01T08:00:00Z') };
const NUM_RUNS = 300;
/** A failing case to replay: `{ seed: 123, path: '4:2' }` from a failure's message. */
const REPLAY: { seed: number; path: string } | undefined = undefined;

function runScenario(decideFn: DecideFn, s: Scenario, total?: ModelStats): void {
  const world = new World(SETTINGS, decideFn, s.answers, s.specs);
  for (const e of s.events) world.apply(e);
  world.drain();
  if (total) addStats(total, world.stats);
}

function check(decideFn: DecideFn, numRuns: number, total?: ModelStats) {
  const property = fc.property(scenarioArb, (s) => runScenario(decideFn, s, total));
  return fc.check(property, { numRuns, ...(REPLAY ? { seed: REPLAY.seed, path: REPLAY.path, endOnFailure: true } : {}) });
}

/** The failure as a message with what replays it: the seed, the shrunk path and the counterexample. */
function failureOf(r: fc.RunDetails<[Scenario]>): string {
  const error = r.errorInstance instanceof Error ? r.errorInstance.message : String(r.errorInstance);
  return [
    `model test failed after ${r.numRuns} runs (${r.numShrinks} shrinks): ${error}`,
    `replay it with REPLAY = { seed: ${r.seed}, path: '${r.counterexamplePath ?? ''}' }`,
    `counterexample: ${fc.stringify(r.counterexample)}`,
  ].join('\n');
}

function emptyStats(): ModelStats {
  return { passes: 0, launches: 0, checks: 0, crashes: 0, terminal: {} };
}

function addStats(total: ModelStats, s: ModelStats): void {
  total.passes += s.passes;
  total.launches += s.launches;
  total.checks += s.checks;
  total.crashes += s.crashes;
  for (const [k, v] of Object.entries(s.terminal)) total.terminal[k] = (total.terminal[k] ?? 0) + v;
}

/**
 * The seeded defect: a copy of the instant's decision that goes one tick early. A hold whose
 * instant is less than a tick away decides as if it were there, and sleeps until a tick
 * before it. Only this test wraps decide(); the production decision has no hook.
 */
const TICK_MS = 1_000;
const launchesOneTickEarly: DecideFn = (o: Observed, now: number): readonly Action[] => {
  const afterMs = o.view.ok ? o.view.afterMs : undefined;
  if (afterMs === undefined) return decide(o, now);
  const decided = now < afterMs && now + TICK_MS >= afterMs ? decide(o, afterMs) : decide(o, now);
  return decided.map((a) => (a.type === 'wakeAt' && a.at === afterMs ? { ...a, at: afterMs - TICK_MS } : a));
};

describe('decide: model of the decide/execute loop', () => {
  test(`keeps every invariant over ${NUM_RUNS} random sequences of events`, () => {
    const total = emptyStats();
    const started = Date.now();
    const r = check(decide, NUM_RUNS, total);
    if (r.failed) throw new Error(failureOf(r));
    console.log(
      `decide model: ${r.numRuns} runs, seed ${r.seed}, ${Date.now() - started} ms; ${total.passes} passes, ${total.checks} checks, ` +
        `${total.launches} launches, ${total.crashes} restarts; ended: ${JSON.stringify(total.terminal)}`,
    );
    // A model that never reaches an outcome proves nothing about it: each is reached.
    expect(total.launches).toBeGreaterThan(0);
    expect(total.crashes).toBeGreaterThan(0);
    for (const outcome of [
      'Succeeded',
      'Failed',
      'Refused/wait-expired',
      'Refused/wait-unanswerable',
      'Refused/wait-refused',
      'Refused/wait-unreadable',
    ]) {
      expect(total.terminal[outcome] ?? 0).toBeGreaterThan(0);
    }
  }, 60_000);

  test('finds the seeded defect: a launch one tick before the instant', () => {
    const r = check(launchesOneTickEarly, NUM_RUNS);
    expect(r.failed).toBe(true);
    expect(r.errorInstance).toBeInstanceOf(ModelViolation);
    expect(String((r.errorInstance as Error).message)).toMatch(/before its after instant/);
    console.log(`decide model, seeded defect: found after ${r.numRuns} runs, shrunk ${r.numShrinks} times\n${failureOf(r)}`);
  }, 60_000);
});
