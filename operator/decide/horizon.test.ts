import { describe, expect, test } from '@jest/globals';
import { lastCheckOffsetMs } from '../../api/cadence.js';
import { CheckVerdict } from '../../api/check-verdict.js';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import type { Profile } from '../../api/profiles.js';
import { FINALIZER, Phase, RefusalToken } from '../../api/vocabulary.js';
import { withLaunch } from '../../test/support/launch-plan.js';
import type { Action } from './actions.js';
import { decide } from './decide.js';
import { withHorizon } from './horizon.js';
import type { Observed, ProfilesView } from './observed.js';
import { afterCheck } from './record-check.js';
import { viewOf } from './view.js';

const T0 = Date.parse('2026-09-01T08:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const AFTER = '2026-09-01T09:00:00Z';
const AFTER_MS = Date.parse(AFTER);
const iso = (ms: number) => new Date(ms).toISOString();
const CONFIG = { afterMaxMs: 30 * DAY, intervalMs: 60_000, maxMs: DAY, maxChecks: 96, maxFaults: 5, pauseWindows: [], finishedTtlMs: 0 };
const DOCTOR = lastCheckOffsetMs(96, 60_000, DAY);
const jira: Profile = { name: 'jira', mode: 'exec', script: 'jira.sh' };
const OK: ProfilesView = { state: 'ok', profiles: new Map([['jira', jira]]) };
const GONE: ProfilesView = { state: 'unreadable', problem: 'the waitgate-profiles ConfigMap does not exist' };

function hj(waitFor: object[], status?: HeldJobStatus): Observed['heldJob'] {
  return {
    metadata: { name: 'h', namespace: 'n', uid: 'u', generation: 1, creationTimestamp: iso(T0), finalizers: [FINALIZER] },
    spec: { target: 'acme/web#7', trigger: 'deploy', waitFor, job: { template: {} } },
    ...(status ? { status } : {}),
  };
}
const observed = (h: Observed['heldJob'], profiles: ProfilesView = OK): Observed => ({
  heldJob: h,
  view: viewOf(h),
  job: undefined,
  config: CONFIG,
  profiles,
  triggers: { state: 'missing' },
});
/** decide(), and what follows a launch whose Job was created (a first pass dry-runs the Job). */
const plan = (o: Observed, now: number): readonly Action[] => withLaunch(o, decide(o, now), now);
const lastStatus = (as: readonly Action[]): HeldJobStatus | undefined => {
  const u = [...as].reverse().find((a) => a.type === 'updateStatus' || a.type === 'runCheck');
  return u?.type === 'runCheck' ? u.basis : u?.type === 'updateStatus' ? u.status : undefined;
};
const ready = (h: Observed['heldJob']) => {
  const v = viewOf(h);
  if (!v.ok) throw new Error(v.problem);
  return v;
};

describe('withHorizon: releaseAt and givesUpAt from the status alone', () => {
  const base: HeldJobStatus = { phase: Phase.Held, heldSince: iso(T0) };
  test.each<[string, object[], HeldJobStatus, { releaseAt?: string; givesUpAt?: string }]>([
    ['an after alone: it releases at its instant and never gives up', [{ after: AFTER }], base, { releaseAt: iso(AFTER_MS) }],
    [
      'a profile, before any check: the first check plus the figure doctor prints',
      [{ profile: 'jira' }],
      base,
      { givesUpAt: iso(T0 + DOCTOR) },
    ],
    [
      'an after and a profile: checks begin at the instant',
      [{ after: AFTER }, { profile: 'jira' }],
      base,
      { releaseAt: iso(AFTER_MS), givesUpAt: iso(AFTER_MS + DOCTOR) },
    ],
    [
      'checks late (paused for a day): the maximum wait binds',
      [{ profile: 'jira' }],
      { ...base, checksSince: iso(T0), expiresAt: iso(T0 + DAY), checks: 4, nextCheckAt: iso(T0 + 23 * HOUR) },
      { givesUpAt: iso(T0 + DAY) },
    ],
    [
      'the last of the count is next',
      [{ profile: 'jira' }],
      { ...base, checksSince: iso(T0), expiresAt: iso(T0 + DAY), checks: 95, nextCheckAt: iso(T0 + 19 * HOUR) },
      { givesUpAt: iso(T0 + 19 * HOUR) },
    ],
    [
      'an approval not given yet: its deadline, the first hold plus the maximum wait of an after',
      [{ approval: 'release-managers' }, { profile: 'jira' }],
      base,
      { givesUpAt: iso(T0 + 30 * DAY) },
    ],
    [
      'approved: the profile checks bound it again',
      [{ approval: 'release-managers' }, { profile: 'jira' }],
      { ...base, approval: { by: 'alice', at: iso(T0) } },
      { givesUpAt: iso(T0 + DOCTOR) },
    ],
    [
      'in the middle of a round (no next check): from the last check',
      [{ profile: 'jira' }],
      { ...base, checksSince: iso(T0), expiresAt: iso(T0 + DAY), checks: 95, lastCheckAt: iso(T0 + 19 * HOUR) },
      { givesUpAt: iso(T0 + 19 * HOUR) },
    ],
  ])('%s', (_name, waitFor, status, expected) => {
    const out = withHorizon({ ...status, releaseAt: 'stale', givesUpAt: 'stale' }, ready(hj(waitFor)), CONFIG);
    expect({ releaseAt: out.releaseAt, givesUpAt: out.givesUpAt }).toEqual({ releaseAt: undefined, givesUpAt: undefined, ...expected });
  });
});

describe('decide: the hold says when', () => {
  test.each<[string, Observed, number, Partial<HeldJobStatus>]>([
    ['a new after hold: releaseAt in its first write', observed(hj([{ after: AFTER }])), T0, { releaseAt: iso(AFTER_MS) }],
    [
      'a new after-and-profile hold: releaseAt and givesUpAt in its first write',
      observed(hj([{ after: AFTER }, { profile: 'jira' }])),
      T0,
      { releaseAt: iso(AFTER_MS), givesUpAt: iso(AFTER_MS + DOCTOR) },
    ],
    [
      'a new profile hold: its clock with the first check (givesUpAt is written with its answer)',
      observed(hj([{ profile: 'jira' }])),
      T0,
      { checksSince: iso(T0), expiresAt: iso(T0 + DAY) },
    ],
    [
      'a new profile hold with waitgate-profiles missing: the clock starts all the same',
      observed(hj([{ profile: 'jira' }]), GONE),
      T0,
      { phase: Phase.Held, checksSince: iso(T0), expiresAt: iso(T0 + DAY), givesUpAt: iso(T0 + DOCTOR) },
    ],
  ])('%s', (_name, o, now, expected) => {
    expect(lastStatus(plan(o, now))).toMatchObject(expected);
  });

  test('the maximum wait runs while the profiles are away: the last check when they return, then wait-expired', () => {
    // Held at T0 with the profiles missing, and still missing two days later.
    const first = lastStatus(plan(observed(hj([{ profile: 'jira' }]), GONE), T0)) as HeldJobStatus;
    const paused = observed(hj([{ profile: 'jira' }], first), GONE);
    const later = plan(paused, T0 + 2 * DAY);
    expect(later.some((a) => a.type === 'runCheck')).toBe(false);
    expect(lastStatus(later)?.expiresAt ?? first.expiresAt).toBe(iso(T0 + DAY));

    // They return: the check runs once more ...
    const back = observed(hj([{ profile: 'jira' }], first));
    const run = plan(back, T0 + 2 * DAY).find((a) => a.type === 'runCheck');
    expect(run).toBeDefined();
    if (run?.type !== 'runCheck') return;
    const obj = hj([{ profile: 'jira' }], run.basis);
    // ... "not yet" ends it, as the reference says; a go would have launched it.
    const notYet = afterCheck(
      ready(obj),
      obj,
      CONFIG,
      { kind: 'answered', result: { profile: 'jira', verdict: CheckVerdict.NotYet, exitCode: 3 } },
      T0 + 2 * DAY,
      0,
      run.basis,
    );
    expect(lastStatus(notYet)).toMatchObject({ phase: Phase.Refused, reason: RefusalToken.Expired });
    const go = afterCheck(
      ready(obj),
      obj,
      CONFIG,
      { kind: 'answered', result: { profile: 'jira', verdict: CheckVerdict.Go, exitCode: 0 } },
      T0 + 2 * DAY,
      0,
      run.basis,
    );
    expect(lastStatus(go)?.phase).not.toBe(Phase.Refused);
  });
});
