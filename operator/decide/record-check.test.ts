import { describe, expect, test } from '@jest/globals';
import { CheckVerdict } from '../../api/check-verdict.js';
import { decide } from './decide.js';
import type { Observed } from './observed.js';
import { afterCheck, checkEvent, recordCheck, type CheckResult } from './record-check.js';
import { withLaunch } from '../../test/support/launch-plan.js';
import { viewOf } from './view.js';
import type { Action } from './actions.js';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import type { Profile } from '../../api/profiles.js';
import { FINALIZER, Phase, RefusalToken } from '../../api/vocabulary.js';
import { lastCheckOffsetMs } from '../../api/cadence.js';

const T0 = Date.parse('2026-09-01T08:00:00Z');
const DAY = 86_400_000;
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const CONFIG = { afterMaxMs: 30 * DAY, intervalMs: 60_000, maxMs: DAY, maxChecks: 96, maxFaults: 5, pauseWindows: [], finishedTtlMs: 0 };
const jira: Profile = { name: 'jira', mode: 'exec', script: 'jira.sh' };

function hj(status: HeldJobStatus, waitFor: object[] = [{ profile: 'jira' }]): Observed['heldJob'] {
  return {
    metadata: { name: 'h', namespace: 'n', uid: 'u', creationTimestamp: iso(T0), finalizers: [FINALIZER] },
    spec: { target: 'acme/web#7', trigger: 'deploy', waitFor, job: { template: {} } },
    status,
  };
}
const held = (over: HeldJobStatus = {}): HeldJobStatus => ({
  phase: Phase.Held,
  heldSince: iso(T0),
  waitingSince: iso(T0),
  checks: 0,
  faults: 0,
  checksSince: iso(T0),
  expiresAt: iso(T0 + DAY),
  ...over,
});
function readyView(h: Observed['heldJob']) {
  const v = viewOf(h);
  if (!v.ok) throw new Error(v.problem);
  return v;
}
const answer = (verdict: CheckVerdict, exitCode?: number): CheckResult => ({ profile: 'jira', verdict, exitCode });
const statusOf = (as: readonly Action[]) => {
  const u = [...as].reverse().find((a) => a.type === 'updateStatus');
  return u && u.type === 'updateStatus' ? u.status : undefined;
};

describe('recordCheck: the exit-code contract', () => {
  test.each<[string, HeldJobStatus, CheckResult, number, Partial<HeldJobStatus>, string[]]>([
    [
      'exit 0: cleared for this round, on at once',
      held(),
      answer(CheckVerdict.Go, 0),
      T0,
      { checks: 1, faults: 0, clearedProfiles: ['jira'], lastExitCode: 0 },
      ['updateStatus', 'wakeAt'],
    ],
    [
      'exit 3: not yet, not a fault, next at the interval',
      held({ faults: 2 }),
      answer(CheckVerdict.NotYet, 3),
      T0,
      { checks: 1, faults: 0, nextCheckAt: iso(T0 + MIN), clearedProfiles: [] },
      ['updateStatus', 'wakeAt'],
    ],
    [
      'exit 2: never, refused for good',
      held(),
      answer(CheckVerdict.Never, 2),
      T0,
      { phase: Phase.Refused, reason: RefusalToken.Refused },
      ['event', 'updateStatus'],
    ],
    [
      'exit 1: could not tell, counted',
      held({ faults: 1 }),
      answer(CheckVerdict.CouldNotTell, 1),
      T0,
      { checks: 1, faults: 2, phase: Phase.Held },
      ['updateStatus', 'wakeAt'],
    ],
    [
      'the 5th fault in a row: wait-unanswerable',
      held({ checks: 4, faults: 4 }),
      answer(CheckVerdict.CouldNotTell, 1),
      T0,
      { phase: Phase.Refused, reason: RefusalToken.Unanswerable, faults: 5 },
      ['event', 'updateStatus'],
    ],
    [
      'a timeout counts as a fault like exit 1',
      held({ checks: 4, faults: 4 }),
      { profile: 'jira', verdict: CheckVerdict.CouldNotTell, exitCode: undefined, detail: 'timed out' },
      T0,
      { phase: Phase.Refused, reason: RefusalToken.Unanswerable },
      ['event', 'updateStatus'],
    ],
    [
      'the 96th check says not yet: wait-expired',
      held({ checks: 95 }),
      answer(CheckVerdict.NotYet, 3),
      T0 + 19 * 3_600_000,
      { phase: Phase.Refused, reason: RefusalToken.Expired, checks: 96 },
      ['event', 'updateStatus'],
    ],
    [
      'the 96th check says go: it runs',
      held({ checks: 95 }),
      answer(CheckVerdict.Go, 0),
      T0 + 19 * 3_600_000,
      { phase: Phase.Held, clearedProfiles: ['jira'] },
      ['updateStatus', 'wakeAt'],
    ],
    [
      'past the maximum wait, the last check says not yet: wait-expired',
      held({ checks: 50 }),
      answer(CheckVerdict.NotYet, 3),
      T0 + DAY,
      { phase: Phase.Refused, reason: RefusalToken.Expired },
      ['event', 'updateStatus'],
    ],
    [
      'past the maximum wait, the last check says go: it runs',
      held({ checks: 50 }),
      answer(CheckVerdict.Go, 0),
      T0 + DAY + 1,
      { phase: Phase.Held, clearedProfiles: ['jira'] },
      ['updateStatus', 'wakeAt'],
    ],
    [
      'near the maximum: the next check is clamped onto it',
      held({ checks: 60 }),
      answer(CheckVerdict.NotYet, 3),
      T0 + DAY - 2 * MIN,
      { nextCheckAt: iso(T0 + DAY) },
      ['updateStatus', 'wakeAt'],
    ],
  ])('%s', (_n, status, result, now, expected, expectedTypes) => {
    const actions = recordCheck(readyView(hj(status)), hj(status), CONFIG, result, now, 0);
    expect(actions.map((a) => a.type)).toEqual(expectedTypes);
    expect(statusOf(actions)).toMatchObject(expected);
  });

  test('the refusal names the profile', () => {
    const s = statusOf(
      recordCheck(readyView(hj(held({ faults: 4 }))), hj(held({ faults: 4 })), CONFIG, answer(CheckVerdict.CouldNotTell, 1), T0, 0),
    );
    expect(s?.message).toContain('"jira"');
  });

  test('a fault then a not-yet: the count of faults in a row starts over', () => {
    const s1 = statusOf(
      recordCheck(readyView(hj(held())), hj(held()), CONFIG, answer(CheckVerdict.CouldNotTell, 1), T0, 0),
    ) as HeldJobStatus;
    const s2 = statusOf(recordCheck(readyView(hj(s1)), hj(s1), CONFIG, answer(CheckVerdict.NotYet, 3), T0 + MIN, 0)) as HeldJobStatus;
    expect([s1.faults, s2.faults]).toEqual([1, 0]);
  });

  test('jitter only ever adds, up to 10%', () => {
    const at = (unit: number) =>
      Date.parse(
        statusOf(recordCheck(readyView(hj(held())), hj(held()), CONFIG, answer(CheckVerdict.NotYet, 3), T0, unit))?.nextCheckAt as string,
      );
    expect(at(0)).toBe(T0 + MIN);
    expect(at(0.999)).toBeLessThanOrEqual(T0 + 66_000);
    expect(at(0.5)).toBeGreaterThan(T0 + MIN);
  });
});

type Code = 3 | 1 | 0;
/** What a profile's check answers: always the same code, or a code by how often it has been asked (1, 2, ...). */
type Answers = Code | ((nth: number) => Code);

/**
 * Drives decide and recordCheck with a fake clock: each profile's check answers its `code`.
 * `checks` holds when each check ran, `asked` which profile it asked.
 */
function simulate(
  code: Code | Record<string, Answers>,
  config = CONFIG,
): { status: HeldJobStatus; checks: number[]; asked: string[]; events: string[]; givesUp: number[] } {
  const codes: Record<string, Answers> = typeof code === 'number' ? { jira: code } : code;
  const names = Object.keys(codes);
  let obj = hj(
    {},
    names.map((profile) => ({ profile })),
  );
  let now = T0;
  const checks: number[] = [];
  const asked: string[] = [];
  const events: string[] = [];
  /** Each givesUpAt the hold's status said, as it was written. */
  const givesUp: number[] = [];
  const said = (as: readonly Action[]) => {
    for (const a of as) {
      if (a.type === 'event') events.push(a.event.reason);
      if (a.type === 'updateStatus' && a.event) events.push(a.event.reason);
    }
  };
  for (let step = 0; step < 1000; step++) {
    const view = viewOf(obj);
    const o: Observed = {
      heldJob: obj,
      view,
      job: undefined,
      config,
      profiles: { state: 'ok', profiles: new Map(names.map((name) => [name, { ...jira, name }])) },
      triggers: { state: 'missing' },
    };
    let actions = withLaunch(o, decide(o, now), now);
    said(actions);
    const run = actions.find((a) => a.type === 'runCheck');
    if (run) {
      if (run.type !== 'runCheck') throw new Error('unreachable');
      checks.push(now);
      asked.push(run.profile.name);
      const answers = codes[run.profile.name] as Answers;
      const c = typeof answers === 'number' ? answers : answers(asked.filter((p) => p === run.profile.name).length);
      const verdict = c === 0 ? CheckVerdict.Go : c === 3 ? CheckVerdict.NotYet : CheckVerdict.CouldNotTell;
      const pre = statusOf(actions);
      if (pre) obj = { ...obj, status: pre };
      const result: CheckResult = { profile: run.profile.name, verdict, exitCode: c };
      actions = afterCheck(readyView(obj), obj, config, { kind: 'answered', result }, now, 0, run.basis);
      said(actions);
    }
    const s = statusOf(actions);
    if (s) obj = { ...obj, status: s };
    if (s?.givesUpAt !== undefined) givesUp.push(Date.parse(s.givesUpAt));
    if (obj.status?.phase === Phase.Refused || obj.status?.phase === Phase.Running)
      return { status: obj.status, checks, asked, events, givesUp };
    const wake = actions.find((a) => a.type === 'wakeAt');
    if (wake && wake.type === 'wakeAt') now = Math.max(now, wake.at);
  }
  throw new Error('simulation did not end');
}

describe('a whole hold, on a fake clock', () => {
  test('"not yet" forever at the defaults: the 96th check lands at about 19 h 40 min and ends wait-expired', () => {
    const { status, checks } = simulate(3);
    expect(status).toMatchObject({ phase: Phase.Refused, reason: RefusalToken.Expired, checks: 96 });
    expect(checks).toHaveLength(96);
    const last = (checks[95] as number) - T0;
    expect(last).toBeGreaterThan(19 * 3_600_000 + 35 * MIN);
    expect(last).toBeLessThan(19 * 3_600_000 + 50 * MIN);
  });

  test.each([
    ['the defaults (the count binds)', CONFIG],
    ['an hourly interval (the maximum wait binds)', { ...CONFIG, intervalMs: 3_600_000 }],
    ['a 15 minute maximum', { ...CONFIG, maxMs: 15 * MIN }],
  ])('status.givesUpAt, said from the first write and after every check, is when it ends: %s', (_name, config) => {
    const { status, checks, givesUp } = simulate(3, config);
    expect(status.reason).toBe(RefusalToken.Expired);
    // Once it has stopped waiting nothing bounds it any more.
    expect(status.givesUpAt).toBeUndefined();
    const end = checks[checks.length - 1] as number;
    expect(givesUp.length).toBeGreaterThanOrEqual(checks.length - 1);
    for (const g of givesUp) expect(Math.abs(g - end)).toBeLessThan(1000);
  });

  test('an hourly interval under a 15 minute maximum: the last check lands on the maximum, then wait-expired', () => {
    const { status, checks } = simulate(3, { ...CONFIG, intervalMs: 3_600_000, maxMs: 15 * MIN });
    expect(status).toMatchObject({ phase: Phase.Refused, reason: RefusalToken.Expired });
    expect(checks.map((t) => t - T0)).toEqual([0, 15 * MIN]);
  });

  test('a check that cannot tell: wait-unanswerable after 5 checks, minutes not a day', () => {
    const { status, checks } = simulate(1);
    expect(status).toMatchObject({ phase: Phase.Refused, reason: RefusalToken.Unanswerable, faults: 5 });
    expect(checks).toHaveLength(5);
    expect((checks[4] as number) - T0).toBeLessThan(10 * MIN);
  });

  test('a broken check beside a healthy one: wait-unanswerable within minutes, its faults counted apart', () => {
    // Before faults were counted per profile, the healthy go reset the broken one's count:
    // 96 checks over most of a day, then wait-expired.
    const { status, checks } = simulate({ healthy: 0, broken: 1 });
    expect(status).toMatchObject({ phase: Phase.Refused, reason: RefusalToken.Unanswerable, faults: 5 });
    expect(status.profileFaults).toEqual({ healthy: 0, broken: 5 });
    // The broken one holds up every round, so it is asked first: one go, then five faults.
    expect(checks).toHaveLength(6);
    expect((checks[5] as number) - T0).toBeLessThan(10 * MIN);
  });

  test('a go beside a slow not-yet: the go is asked once, and the hold lasts about as long as with one profile', () => {
    // Before a round asked the profile that held the last one up first, the go was asked every
    // round: two checks a round, and the count ran out at 9 h 47 min instead of 19 h 42 min.
    const { status, checks, asked } = simulate({ healthy: 0, slow: 3 });
    expect(status).toMatchObject({ phase: Phase.Refused, reason: RefusalToken.Expired, checks: 96 });
    expect(asked.filter((p) => p === 'healthy')).toHaveLength(1);
    expect(asked.slice(0, 3)).toEqual(['healthy', 'slow', 'slow']);
    expect((checks[95] as number) - T0).toBeCloseTo(lastCheckOffsetMs(96, CONFIG.intervalMs, CONFIG.maxMs, { first: 2 }), -2);
  });

  test('kubectl describe: a go not asked while another holds the rounds up says so, not "not checked"', () => {
    const h = hj(held({ checks: 1, clearedProfiles: ['healthy'], lastVerdicts: { healthy: CheckVerdict.Go } }), [
      { profile: 'healthy' },
      { profile: 'slow' },
    ]);
    const actions = recordCheck(readyView(h), h, CONFIG, { profile: 'slow', verdict: CheckVerdict.NotYet, exitCode: 3 }, T0, 0);
    expect(statusOf(actions)?.waits).toEqual([
      { condition: 'healthy', state: 'Waiting', detail: 'said go; asked again once the others say go' },
      { condition: 'slow', state: 'Waiting', detail: 'last exit code 3' },
    ]);
  });

  test('the one holding the rounds up says go: the others are asked again in that round, then the launch', () => {
    const { status, asked } = simulate({ a: 0, b: 0, slow: (nth) => (nth < 4 ? 3 : 0) });
    expect(status.phase).toBe(Phase.Running);
    expect(asked).toEqual(['a', 'b', 'slow', 'slow', 'slow', 'slow', 'a', 'b']);
  });

  test('a go that turns "not yet" when asked again holds up the next round, and is asked first in it', () => {
    const { status, asked } = simulate({ a: (nth) => (nth === 1 ? 0 : nth < 4 ? 3 : 0), b: (nth) => (nth < 2 ? 3 : 0) });
    expect(status.phase).toBe(Phase.Running);
    expect(asked).toEqual(['a', 'b', 'b', 'a', 'a', 'a', 'b']);
  });

  test.each([2, 3, 4])(
    'at worst (%d profiles, the others go and a different one holds up each round) every round asks all: when the api function says',
    (n) => {
      // Each profile says go when a round asks it first, and "not yet" when asked after the
      // others: a round then asks every one, and the one it ends on is asked first in the next.
      const names = ['a', 'b', 'c', 'd'].slice(0, n);
      const codes: Record<string, Answers> = {};
      let round: string[] = [];
      for (const name of names) {
        codes[name] = () => {
          round = round.length === n ? [name] : [...round, name];
          return round.length === n ? 3 : 0;
        };
      }
      const { status, checks } = simulate(codes);
      expect(status).toMatchObject({ phase: Phase.Refused, reason: RefusalToken.Expired, checks: 96 });
      expect((checks[95] as number) - T0).toBeCloseTo(lastCheckOffsetMs(96, CONFIG.intervalMs, CONFIG.maxMs, { each: n }), -2);
    },
  );

  test('a healthy go beside a slow not-yet: neither is a fault, the hold waits on', () => {
    const { status } = simulate({ healthy: 0, slow: 3 }, { ...CONFIG, maxChecks: 12 });
    expect(status).toMatchObject({ phase: Phase.Refused, reason: RefusalToken.Expired, faults: 0 });
  });

  test('a check that says go: launched after one check', () => {
    const { status, checks } = simulate(0);
    expect(status.phase).toBe(Phase.Running);
    expect(checks).toHaveLength(1);
  });
});

describe('check Events: one when a verdict changes, none when it repeats', () => {
  test.each<[string, CheckVerdict | undefined, CheckVerdict, string | undefined, string | undefined]>([
    ['the first answer', undefined, CheckVerdict.NotYet, 'CheckNotYet', 'Normal'],
    ['not yet again', CheckVerdict.NotYet, CheckVerdict.NotYet, undefined, undefined],
    ['not yet, then go', CheckVerdict.NotYet, CheckVerdict.Go, 'CheckGo', 'Normal'],
    ['go, then not yet (a new round)', CheckVerdict.Go, CheckVerdict.NotYet, 'CheckNotYet', 'Normal'],
    ['a first fault: a Warning', CheckVerdict.NotYet, CheckVerdict.CouldNotTell, 'CheckCouldNotTell', 'Warning'],
    ['a fault again', CheckVerdict.CouldNotTell, CheckVerdict.CouldNotTell, undefined, undefined],
    ['never', CheckVerdict.NotYet, CheckVerdict.Never, 'CheckNever', 'Normal'],
  ])('%s', (_n, previous, verdict, reason, type) => {
    const e = checkEvent(previous, verdict, 'm');
    expect(e?.reason).toBe(reason);
    expect(e?.type).toBe(type);
  });

  test('each profile is compared with its own last answer, kept in status.lastVerdicts', () => {
    const status = held({ lastVerdicts: { jira: CheckVerdict.NotYet, ci: CheckVerdict.Go } });
    const h = hj(status, [{ profile: 'jira' }, { profile: 'ci' }]);
    const again = recordCheck(readyView(h), h, CONFIG, answer(CheckVerdict.NotYet, 3), T0, 0);
    expect(again.filter((a) => a.type === 'event' || (a.type === 'updateStatus' && a.event))).toEqual([]);
    expect(statusOf(again)?.lastVerdicts).toEqual({ jira: CheckVerdict.NotYet, ci: CheckVerdict.Go });
    const ci = recordCheck(readyView(h), h, CONFIG, { profile: 'ci', verdict: CheckVerdict.NotYet, exitCode: 3 }, T0, 0);
    expect(ci.find((a) => a.type === 'updateStatus')).toMatchObject({ event: { reason: 'CheckNotYet' } });
    expect(statusOf(ci)?.lastVerdicts).toEqual({ jira: CheckVerdict.NotYet, ci: CheckVerdict.NotYet });
  });

  test('"not yet" 96 times: one check Event, then the refusal\'s', () => {
    const { checks, events } = simulate(3);
    expect(checks).toHaveLength(96);
    // The triggers ConfigMap is missing in this simulation: said once too.
    expect(events).toEqual(['TriggersMissing', 'CheckNotYet', 'Refused']);
  });

  test('a fault five times: one Warning, then the refusal', () => {
    expect(simulate(1).events).toEqual(['TriggersMissing', 'CheckCouldNotTell', 'Refused']);
  });

  test('a healthy go beside a slow not-yet: each said once, however many rounds', () => {
    const { checks, events } = simulate({ healthy: 0, slow: 3 }, { ...CONFIG, maxChecks: 12 });
    expect(checks.length).toBeGreaterThan(10);
    expect(events).toEqual(['TriggersMissing', 'CheckGo', 'CheckNotYet', 'Refused']);
  });
});

describe('afterCheck: no slot, no count', () => {
  test.each<[string, 'denied' | 'unavailable', number, number]>([
    ['every slot taken, first check: a quarter of the cadence, never under 11 s', 'denied', 0, 15_000],
    ['Valkey away: the same, nothing counted', 'unavailable', 0, 15_000],
  ])('%s', (_n, kind, checks, delay) => {
    const h = hj(held({ checks }));
    expect(afterCheck(readyView(h), h, CONFIG, { kind }, T0, 0)).toEqual([{ type: 'wakeAt', at: T0 + delay }]);
  });

  test("denied before the first check: the hold is still recorded (the first hold, the round's start), once", () => {
    const h = hj({});
    const basis = held({ checks: 0 });
    const actions = afterCheck(readyView(h), h, CONFIG, { kind: 'denied' }, T0, 0, basis);
    expect(actions.map((a) => a.type)).toEqual(['updateStatus', 'wakeAt']);
    const again = { ...h, status: (actions[0] as { status: HeldJobStatus }).status };
    expect(afterCheck(readyView(again), again, CONFIG, { kind: 'denied' }, T0, 0, basis).map((a) => a.type)).toEqual(['wakeAt']);
  });

  test('the answer is recorded on the status the pass meant the check to start from', () => {
    const h = hj({});
    const result: CheckResult = { profile: 'jira', verdict: CheckVerdict.NotYet, exitCode: 3 };
    const actions = afterCheck(readyView(h), h, CONFIG, { kind: 'answered', result }, T0, 0, held({ checks: 0 }));
    const written = actions.find((a) => a.type === 'updateStatus');
    expect(written?.type === 'updateStatus' && written.status).toMatchObject({
      phase: Phase.Held,
      checks: 1,
      checksSince: expect.any(String),
    });
  });

  test('a cancelled check leaves nothing to do', () => {
    const h = hj(held());
    expect(afterCheck(readyView(h), h, CONFIG, { kind: 'cancelled' }, T0, 0)).toEqual([]);
  });
});

describe('afterCheck: a check Pod refused for a Secret not labelled for checks', () => {
  const run = { kind: 'misconfigured', profile: 'jira', secret: 'plain-token', message: 'denied request' } as const;
  test('pauses with a Waiting condition and one Warning naming the Secret; nothing counted; tried again at the interval', () => {
    const h = hj(held({ checks: 2, faults: 1, profileFaults: { jira: 1 } }));
    const actions = afterCheck(readyView(h), h, CONFIG, run, T0, 0);
    expect(actions.map((a) => a.type)).toEqual(['updateStatus', 'wakeAt']);
    expect(actions[1]).toEqual({ type: 'wakeAt', at: T0 + CONFIG.intervalMs });
    const status = statusOf(actions) as HeldJobStatus;
    // No check, no fault: the counts are as they were.
    expect({ checks: status.checks, faults: status.faults, profileFaults: status.profileFaults }).toEqual({
      checks: 2,
      faults: 1,
      profileFaults: { jira: 1 },
    });
    const waiting = status.conditions?.find((c) => c.type === 'Waiting');
    expect(waiting).toMatchObject({ status: 'True', reason: 'CheckSecretRefused' });
    expect(waiting?.message).toMatch(/names Secret "plain-token", which is not labelled waitgate\.dev\/check-secret=true/);
    const u = actions[0] as Extract<Action, { type: 'updateStatus' }>;
    expect(u.event).toMatchObject({ type: 'Warning', reason: 'CheckSecretRefused' });
    expect(u.event?.message).toMatch(/plain-token/);
    // Refused again: the condition is kept fresh, no second Warning.
    const again = hj(status);
    const next = afterCheck(readyView(again), again, CONFIG, run, T0 + CONFIG.intervalMs, 0);
    expect((next[0] as Extract<Action, { type: 'updateStatus' }>).event).toBeUndefined();
    // Another Secret is news again.
    const other = afterCheck(readyView(again), again, CONFIG, { ...run, secret: 'other' }, T0 + CONFIG.intervalMs, 0);
    expect((other[0] as Extract<Action, { type: 'updateStatus' }>).event).toMatchObject({ reason: 'CheckSecretRefused' });
  });
});
