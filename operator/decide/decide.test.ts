import { describe, expect, test } from '@jest/globals';
import { decide } from './decide.js';
import { afterCancelRead, CANCEL_READ_AGAIN_MS, decideGone } from './finished.js';
import type { Action, JobRead } from './actions.js';
import { afterSupersedeRead } from './launch.js';
import { withLaunch } from '../../test/support/launch-plan.js';
import { JobOutcome, type Observed, type ObservedJob, type ProfilesView, type TriggersView } from './observed.js';
import { viewOf } from './view.js';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { jobNameFor } from '../../api/job-name.js';
import { withSummary } from '../../api/summary-conditions.js';
import type { Profile } from '../../api/profiles.js';
import type { Trigger } from '../../api/triggers/types.js';
import { FINALIZER, Phase, RefusalToken } from '../../api/vocabulary.js';

const T0 = Date.parse('2026-09-01T08:00:00Z');
const AFTER = '2026-09-01T09:00:00Z';
const AFTER_MS = Date.parse(AFTER);
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const JOB_TEMPLATE = { template: { spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Never' } } };

/** Builder for the HeldJob under decision. */
function heldJob(
  over: {
    waitFor?: object[] | null;
    spec?: Record<string, unknown>;
    status?: HeldJobStatus;
    deleted?: boolean;
    annotations?: Record<string, string>;
    finalizer?: boolean;
  } = {},
): Observed['heldJob'] {
  const waitFor = over.waitFor === undefined ? [{ after: AFTER }] : over.waitFor;
  return {
    metadata: {
      name: 'web-7-deploy',
      namespace: 'team-a',
      uid: 'uid-1',
      generation: 1,
      creationTimestamp: iso(T0),
      ...(over.deleted ? { deletionTimestamp: iso(T0) } : {}),
      ...(over.annotations ? { annotations: over.annotations } : {}),
      ...(over.finalizer === false ? {} : { finalizers: [FINALIZER] }),
    },
    spec: over.spec ?? { target: 'acme/web#7', trigger: 'deploy', ...(waitFor ? { waitFor } : {}), job: JOB_TEMPLATE },
    ...(over.status ? { status: over.status } : {}),
  };
}

const jira: Profile = { name: 'jira', mode: 'exec', script: 'jira.sh' };
const ci: Profile = { name: 'ci', mode: 'exec', script: 'ci.sh' };
const PROFILES: ProfilesView = {
  state: 'ok',
  profiles: new Map([
    ['jira', jira],
    ['ci', ci],
  ]),
};
const TRIGGERS: TriggersView = {
  state: 'ok',
  waits: new Map([
    ['deploy', true],
    ['plain', false],
  ]),
  declared: new Map(),
};
const CONFIG = { afterMaxMs: 30 * DAY, intervalMs: 60_000, maxMs: DAY, maxChecks: 96, maxFaults: 5, pauseWindows: [], finishedTtlMs: 0 };

function observed(hj: Observed['heldJob'], job?: ObservedJob, over: Partial<Observed> = {}): Observed {
  return { heldJob: hj, view: viewOf(hj), job, config: CONFIG, profiles: PROFILES, triggers: TRIGGERS, ...over };
}

/** decide(), and when it launches, what follows a launch whose Job was created. */
function plan(o: Observed, now: number): readonly Action[] {
  return withLaunch(o, decide(o, now), now);
}

const JOB = jobNameFor({ name: 'web-7-deploy', uid: 'uid-1' });
const types = (as: readonly Action[]) => as.map((a) => a.type);
/** The status a pass writes: its last status write, or the one a check's answer is to record (runCheck's basis). */
const statusOf = (as: readonly Action[]) => {
  const u = [...as].reverse().find((a) => a.type === 'updateStatus' || a.type === 'runCheck');
  if (u?.type === 'runCheck') return u.basis;
  return u && u.type === 'updateStatus' ? u.status : undefined;
};
const held: HeldJobStatus = { phase: Phase.Held, heldSince: iso(T0), waitingSince: iso(T0), nextCheckAt: iso(AFTER_MS), jobName: JOB };
/** Running, its Job's create confirmed. */
/** A status as this operator writes it: its summary conditions and observedGeneration (generation 1) with it. */
const written = (status: HeldJobStatus): HeldJobStatus => withSummary(status, T0, 1);
const running: HeldJobStatus = written({
  ...held,
  phase: Phase.Running,
  conditions: [
    {
      type: 'Launched',
      status: 'True',
      reason: 'JobCreated',
      message: `created Job ${JOB}`,
      lastTransitionTime: iso(T0),
      observedGeneration: 1,
    },
  ],
});
const profileHeld = (over: HeldJobStatus = {}): HeldJobStatus => written(profileStatus(over));
const profileStatus = (over: HeldJobStatus = {}): HeldJobStatus => ({
  phase: Phase.Held,
  heldSince: iso(T0),
  waitingSince: iso(T0),
  jobName: JOB,
  checks: 0,
  faults: 0,
  checksSince: iso(T0),
  expiresAt: iso(T0 + DAY),
  conditions: [
    {
      type: 'TriggerChecked',
      status: 'True',
      reason: 'Matches',
      message: 'matches its trigger entry',
      lastTransitionTime: iso(T0),
      observedGeneration: 1,
    },
  ],
  ...over,
});

type Row = [string, Observed, number, string[], Partial<HeldJobStatus> | undefined];

describe('decide: after', () => {
  test.each<Row>([
    [
      'new, instant ahead: hold, sleep until it (no finalizer: nothing to clean up yet, one write)',
      observed(heldJob({ finalizer: false })),
      T0,
      ['updateStatus', 'wakeAt'],
      { phase: Phase.Held, heldSince: iso(T0), waitLabel: 'after 2026-09-01T09:00Z' },
    ],
    [
      'held, instant ahead, status current: only re-arm the wake',
      observed(heldJob({ status: statusOf(plan(observed(heldJob()), T0)) })),
      T0 + 1000,
      ['wakeAt'],
      undefined,
    ],
    [
      'held, instant reached: the scope and the create, nothing written first; the record in a pass of its own',
      observed(heldJob({ status: held })),
      AFTER_MS,
      ['observeAfterLateness', 'acquireScope', 'recordLater', 'leaveMarker', 'updateStatus', 'unfenceJob'],
      { phase: Phase.Running, jobName: JOB, scope: 'ns/team-a:acme/web', waitedSeconds: 3600, afterClearedAt: iso(AFTER_MS) },
    ],
    [
      'held, instant long past (restart after the instant): launch now',
      observed(heldJob({ status: held })),
      AFTER_MS + DAY,
      ['observeAfterLateness', 'acquireScope', 'recordLater', 'leaveMarker', 'updateStatus', 'unfenceJob'],
      { phase: Phase.Running },
    ],
    [
      'new, no conditions, its trigger does not wait: launch at once (no finalizer, no dry run: the create answers)',
      observed(heldJob({ waitFor: null, spec: { target: 'acme/web#7', trigger: 'plain', job: JOB_TEMPLATE }, finalizer: false })),
      T0,
      ['acquireScope', 'recordLater', 'leaveMarker', 'updateStatus', 'unfenceJob'],
      { phase: Phase.Running, waitLabel: '-' },
    ],
    [
      'held, Job exists (crash after create): no second create',
      observed(heldJob({ status: held }), { name: JOB, outcome: JobOutcome.Active }),
      AFTER_MS,
      ['leaveMarker', 'updateStatus'],
      { phase: Phase.Running },
    ],
    [
      'held, Job exists and already over: scope back, one write to the end',
      observed(heldJob({ status: held }), { name: JOB, outcome: JobOutcome.Succeeded }),
      AFTER_MS,
      ['releaseScope', 'updateStatus'],
      { phase: Phase.Succeeded },
    ],
    [
      'running, Job active: the finalizer comes off (a delete needs no operator now)',
      observed(heldJob({ status: running }), { name: JOB, outcome: JobOutcome.Active }),
      AFTER_MS,
      ['setFinalizers'],
      undefined,
    ],
    [
      'running, Job active, no finalizer: nothing',
      observed(heldJob({ status: running, finalizer: false }), { name: JOB, outcome: JobOutcome.Active }),
      AFTER_MS,
      [],
      undefined,
    ],
    [
      'running, Job active and still fenced (a crash after the record): the launch fence off',
      observed(heldJob({ status: running, finalizer: false }), { name: JOB, outcome: JobOutcome.Active, fenced: true }),
      AFTER_MS,
      ['unfenceJob'],
      undefined,
    ],
    [
      'terminal, Job still fenced: the fence off, then the finalizer',
      observed(heldJob({ status: written({ phase: Phase.Succeeded }) }), { name: JOB, outcome: JobOutcome.Succeeded, fenced: true }),
      AFTER_MS,
      ['unfenceJob', 'setFinalizers'],
      undefined,
    ],
    [
      'running, Job not in the informer: read it from the apiserver',
      observed(heldJob({ status: running })),
      AFTER_MS,
      ['readJob'],
      undefined,
    ],
    [
      'running, launch recorded, create not confirmed, Job there (crash after the create): recorded as created, no second Job',
      observed(heldJob({ status: { ...held, phase: Phase.Running, conditions: [] } }), { name: JOB, outcome: JobOutcome.Active }),
      AFTER_MS,
      ['leaveMarker', 'updateStatus'],
      { phase: Phase.Running },
    ],
    [
      'running, Job succeeded: scope back, Succeeded, finalizer off',
      observed(heldJob({ status: running }), { name: JOB, outcome: JobOutcome.Succeeded }),
      AFTER_MS,
      ['releaseScope', 'updateStatus', 'setFinalizers'],
      { phase: Phase.Succeeded },
    ],
    [
      'running, Job failed: Failed',
      observed(heldJob({ status: running }), {
        name: JOB,
        outcome: JobOutcome.Failed,
        failureReason: 'BackoffLimitExceeded',
      }),
      AFTER_MS,
      ['releaseScope', 'updateStatus', 'setFinalizers'],
      { phase: Phase.Failed, message: `Job ${JOB} failed (BackoffLimitExceeded)` },
    ],
    [
      'terminal with the finalizer: take it off, nothing else',
      observed(heldJob({ status: written({ phase: Phase.Succeeded }) })),
      AFTER_MS,
      ['setFinalizers'],
      undefined,
    ],
    [
      'refused, no finalizer: nothing, ever',
      observed(heldJob({ status: written({ phase: Phase.Refused, reason: RefusalToken.Expired }), finalizer: false })),
      AFTER_MS,
      [],
      undefined,
    ],
    [
      'after beyond 30 days of the delivery: refused',
      observed(heldJob({ waitFor: [{ after: iso(T0 + 31 * DAY) }] })),
      T0,
      ['updateStatus'],
      { phase: Phase.Refused, reason: RefusalToken.AfterBeyondMax },
    ],
    [
      // The receiver's words (api/refusal-rules.ts): the instant as written, not as parsed.
      'after beyond the maximum, written with an offset: refused in the same words as the receiver',
      observed(heldJob({ waitFor: [{ after: '2026-10-02T11:00:00+02:00' }] })),
      T0,
      ['updateStatus'],
      {
        phase: Phase.Refused,
        reason: RefusalToken.AfterBeyondMax,
        message: 'after 2026-10-02T11:00:00+02:00 lies more than 2592000000 ms beyond the delivery at 2026-09-01T08:00:00.000Z',
      },
    ],
    [
      'after exactly 30 days out: held',
      observed(heldJob({ waitFor: [{ after: iso(T0 + 30 * DAY) }] })),
      T0,
      ['updateStatus', 'wakeAt'],
      { phase: Phase.Held },
    ],
    [
      'unknown key in a condition: refused unreadable',
      observed(heldJob({ waitFor: [{ until: AFTER }], finalizer: false })),
      T0,
      ['updateStatus'],
      { phase: Phase.Refused, reason: RefusalToken.Unreadable },
    ],
    [
      'misspelt waitFor in spec: refused unreadable, not run',
      observed(heldJob({ spec: { target: 'acme/web#7', trigger: 'd', waitfor: [{ after: AFTER }], job: JOB_TEMPLATE }, finalizer: false })),
      T0,
      ['updateStatus'],
      { phase: Phase.Refused, reason: RefusalToken.Unreadable },
    ],
    [
      'impossible date: refused unreadable',
      observed(heldJob({ waitFor: [{ after: '2026-02-31T09:00:00Z' }], finalizer: false })),
      T0,
      ['updateStatus'],
      { phase: Phase.Refused, reason: RefusalToken.Unreadable },
    ],
    [
      'a receiver refusal record: refused with its token, never held',
      observed(
        heldJob({ annotations: { 'waitgate.dev/refusal': 'wait-superseded', 'waitgate.dev/refusal-message': 'm' }, finalizer: false }),
      ),
      T0,
      ['updateStatus'],
      { phase: Phase.Refused, reason: RefusalToken.Superseded, message: 'm' },
    ],
    [
      'a refusal record with a token this operator does not know: unreadable',
      observed(heldJob({ annotations: { 'waitgate.dev/refusal': 'wait-someday' } })),
      AFTER_MS,
      ['updateStatus'],
      { phase: Phase.Refused, reason: RefusalToken.Unreadable },
    ],
  ])('%s', (_name, o, now, expectedTypes, expectedStatus) => {
    const actions = plan(o, now);
    expect(types(actions)).toEqual(expectedTypes);
    if (expectedStatus) expect(statusOf(actions)).toMatchObject(expectedStatus);
  });

  test.each<[string, object[], { status: string; reason: string } | undefined]>([
    [
      "only an instant: armed in the hold's own write (Launched Unknown, Armed)",
      [{ after: AFTER }],
      { status: 'Unknown', reason: 'Armed' },
    ],
    ['an instant and a profile: not armed (a check comes first)', [{ after: AFTER }, { profile: 'jira' }], undefined],
  ])('arming: %s', (_n, waitFor, launched) => {
    const actions = plan(observed(heldJob({ waitFor, finalizer: false })), T0);
    expect(types(actions)).toEqual(['updateStatus', 'wakeAt']);
    const c = statusOf(actions)?.conditions?.find((x) => x.type === 'Launched');
    if (launched) expect(c).toMatchObject({ ...launched, message: `armed: Job ${JOB} is created at ${iso(AFTER_MS)}` });
    else expect(c).toBeUndefined();
  });

  test('arming: a profile added by an edit before the instant disarms the hold in the next write', () => {
    const armedStatus = statusOf(plan(observed(heldJob({ finalizer: false })), T0));
    const edited = heldJob({ waitFor: [{ after: AFTER }, { profile: 'jira' }], status: armedStatus, finalizer: false });
    const s = statusOf(plan(observed({ ...edited, metadata: { ...edited.metadata, generation: 2 } }), T0 + 1000));
    expect(s?.conditions?.find((c) => c.type === 'Launched')).toBeUndefined();
  });

  test('the instant of an armed hold: the scope and the create, and nothing written or said before the Job exists', () => {
    const armedStatus = statusOf(plan(observed(heldJob({ finalizer: false })), T0));
    const fire = decide(observed(heldJob({ status: armedStatus, finalizer: false })), AFTER_MS);
    expect(types(fire)).toEqual(['observeAfterLateness', 'acquireScope']);
  });

  test('the wake is at the exact instant, with no jitter', () => {
    expect(plan(observed(heldJob()), T0).find((a) => a.type === 'wakeAt')).toEqual({ type: 'wakeAt', at: AFTER_MS });
  });

  test('a restarted operator keeps heldSince from status', () => {
    expect(statusOf(plan(observed(heldJob({ status: held })), AFTER_MS))?.heldSince).toBe(held.heldSince);
  });

  test('launching clears waitingSince so WAITED stops counting', () => {
    const s = statusOf(plan(observed(heldJob({ status: held })), AFTER_MS));
    expect(s?.waitingSince).toBeUndefined();
    expect(s?.nextCheckAt).toBeUndefined();
  });

  test('deciding twice from the same world gives the same plan', () => {
    const o = observed(heldJob({ status: held }));
    expect(plan(o, AFTER_MS)).toEqual(plan(o, AFTER_MS));
  });

  test('the wake lateness is what the clock says past the instant', () => {
    expect(plan(observed(heldJob({ status: held })), AFTER_MS + 42).find((a) => a.type === 'observeAfterLateness')).toEqual({
      type: 'observeAfterLateness',
      ms: 42,
    });
  });
});

describe('decide: profiles, cheapest first', () => {
  const both = [{ after: AFTER }, { profile: 'jira' }];
  test.each<Row>([
    ['an unreached after never costs a check', observed(heldJob({ waitFor: both })), T0, ['updateStatus', 'wakeAt'], { phase: Phase.Held }],
    [
      'after reached: the first check, and the profile clock starts now',
      observed(heldJob({ waitFor: both, status: held })),
      AFTER_MS,
      ['observeAfterLateness', 'runCheck'],
      { checksSince: iso(AFTER_MS), expiresAt: iso(AFTER_MS + DAY) },
    ],
    [
      'new profile hold: the finalizer, then check at once; the hold is recorded with the answer',
      observed(heldJob({ waitFor: [{ profile: 'jira' }], finalizer: false })),
      T0,
      ['setFinalizers', 'runCheck'],
      { phase: Phase.Held, checks: 0, limits: { maxChecks: 96, maxFaults: 5 } },
    ],
    [
      'not due yet: sleep until the next check',
      observed(heldJob({ waitFor: [{ profile: 'jira' }], status: profileHeld({ checks: 1, nextCheckAt: iso(T0 + 60_000) }) })),
      T0 + 1000,
      ['updateStatus', 'wakeAt'],
      undefined,
    ],
    [
      'due: check',
      observed(heldJob({ waitFor: [{ profile: 'jira' }], status: profileHeld({ checks: 1, nextCheckAt: iso(T0 + 60_000) }) })),
      T0 + 60_000,
      ['runCheck'],
      undefined,
    ],
    [
      'past the maximum wait: the last check still runs',
      observed(heldJob({ waitFor: [{ profile: 'jira' }], status: profileHeld({ checks: 40, nextCheckAt: iso(T0 + DAY) }) })),
      T0 + DAY + 5000,
      ['runCheck'],
      undefined,
    ],
    [
      'one of two cleared this round: the other at once',
      observed(
        heldJob({ waitFor: [{ profile: 'jira' }, { profile: 'ci' }], status: profileHeld({ checks: 1, clearedProfiles: ['jira'] }) }),
      ),
      T0 + 1000,
      ['runCheck'],
      undefined,
    ],
    [
      'all cleared: launch',
      observed(
        heldJob({ waitFor: [{ profile: 'jira' }, { profile: 'ci' }], status: profileHeld({ checks: 2, clearedProfiles: ['jira', 'ci'] }) }),
      ),
      T0 + 1000,
      ['acquireScope', 'recordLater', 'leaveMarker', 'updateStatus', 'unfenceJob'],
      { phase: Phase.Running },
    ],
    [
      'the last check was a go and another profile is left: refused wait-expired, nothing asked past the count (model test)',
      observed(
        heldJob({
          waitFor: [{ profile: 'jira' }, { profile: 'ci' }],
          status: profileHeld({ checks: 96, clearedProfiles: ['jira'], lastVerdicts: { jira: 'go', ci: 'not-yet' } }),
        }),
      ),
      T0 + 1000,
      ['updateStatus'],
      { phase: Phase.Refused, reason: RefusalToken.Expired, checks: 96 },
    ],
    [
      'the after edited away while it waited: the first check now, not at the old instant (model test)',
      observed(
        heldJob({
          waitFor: [{ profile: 'jira' }],
          status: { ...held, nextCheckAt: AFTER, releaseAt: AFTER, checks: 0, faults: 0 },
        }),
      ),
      T0 + 1000,
      ['runCheck'],
      undefined,
    ],
    [
      'the after edited away after checks began: the next check at its cadence, not at the old instant (model test)',
      observed(
        heldJob({
          waitFor: [{ profile: 'jira' }],
          status: profileHeld({ checks: 1, nextCheckAt: AFTER, releaseAt: AFTER, lastCheckAt: iso(T0) }),
        }),
      ),
      T0 + 1000,
      ['runCheck'],
      undefined,
    ],
    [
      'a profile not declared (any more): refused',
      observed(heldJob({ waitFor: [{ profile: 'gone' }], status: profileHeld() })),
      T0,
      ['updateStatus'],
      { phase: Phase.Refused, reason: RefusalToken.ProfileUnknown },
    ],
    [
      'profiles ConfigMap unreadable: held loudly, no check, no count',
      observed(heldJob({ waitFor: [{ profile: 'jira' }], status: profileHeld() }), undefined, {
        profiles: { state: 'unreadable', problem: 'bad JSON' },
      }),
      T0,
      ['updateStatus'],
      { phase: Phase.Held, checks: 0 },
    ],
  ])('%s', (_name, o, now, expectedTypes, expectedStatus) => {
    const actions = plan(o, now);
    expect(types(actions)).toEqual(expectedTypes);
    if (expectedStatus) expect(statusOf(actions)).toMatchObject(expectedStatus);
  });

  test.each<[string, HeldJobStatus, string]>([
    ['a new round of a new hold: the first written', profileHeld({ checks: 0 }), 'jira'],
    [
      'the second held the last round up: it is asked first, the go is not asked again yet',
      profileHeld({ checks: 2, nextCheckAt: iso(T0), lastVerdicts: { jira: 'go', ci: 'not-yet' } }),
      'ci',
    ],
    [
      'it said go in this round: the first is asked again, in the same round',
      profileHeld({ checks: 3, clearedProfiles: ['ci'], lastVerdicts: { jira: 'go', ci: 'go' } }),
      'jira',
    ],
  ])('two profiles, %s', (_n, status, profile) => {
    const run = plan(observed(heldJob({ waitFor: [{ profile: 'jira' }, { profile: 'ci' }], status })), T0 + 1000).find(
      (a) => a.type === 'runCheck',
    );
    expect(run).toMatchObject({ type: 'runCheck', profile: { name: profile } });
  });

  test('the check it asks for names the profile and the target', () => {
    const run = plan(observed(heldJob({ waitFor: [{ profile: 'jira' }], status: profileHeld() })), T0).find((a) => a.type === 'runCheck');
    expect(run).toMatchObject({ type: 'runCheck', profile: jira, target: 'acme/web#7' });
  });
});

describe('decide: pause windows', () => {
  const lunch = [{ start: '08:00', end: '09:30', timeZone: 'UTC' }];
  const pauseEnd = Date.parse('2026-09-01T09:30:00Z');
  test('a new HeldJob in a pause window is not held yet: the clock has not started', () => {
    const actions = plan(
      observed(heldJob({ waitFor: [{ profile: 'jira' }], finalizer: false }), undefined, { config: { ...CONFIG, pauseWindows: lunch } }),
      T0 + 60_000,
    );
    expect(types(actions)).toEqual(['updateStatus', 'wakeAt']);
    expect(statusOf(actions)).toMatchObject({ phase: Phase.Pending, nextCheckAt: iso(pauseEnd) });
    expect(statusOf(actions)?.heldSince).toBeUndefined();
    expect(actions.find((a) => a.type === 'wakeAt')).toEqual({ type: 'wakeAt', at: pauseEnd });
  });

  test('a held job in a pause window is not checked and does not launch', () => {
    const actions = plan(
      observed(heldJob({ waitFor: [{ profile: 'jira' }], status: profileHeld({ clearedProfiles: ['jira'] }) }), undefined, {
        config: { ...CONFIG, pauseWindows: lunch },
      }),
      T0 + 60_000,
    );
    expect(types(actions)).not.toContain('runCheck');
    expect(types(actions)).not.toContain('acquireScope');
  });

  test('once the window ends the first hold starts then', () => {
    const s = statusOf(
      plan(
        observed(heldJob({ waitFor: [{ profile: 'jira' }], finalizer: false }), undefined, { config: { ...CONFIG, pauseWindows: lunch } }),
        pauseEnd,
      ),
    );
    expect(s).toMatchObject({ phase: Phase.Held, heldSince: iso(pauseEnd) });
  });
});

describe('decide: the triggers file (wait-skew)', () => {
  const noWait = (trigger: string) =>
    heldJob({ waitFor: null, spec: { target: 'acme/web#7', trigger, job: JOB_TEMPLATE }, finalizer: false });
  test.each<[string, Observed, string[], Partial<HeldJobStatus>]>([
    [
      'the file says wait, the HeldJob carries none: refused before any spend',
      observed(noWait('deploy')),
      ['updateStatus'],
      { phase: Phase.Refused, reason: RefusalToken.Skew },
    ],
    [
      'the file does not wait either: launched',
      observed(noWait('plain')),
      ['acquireScope', 'recordLater', 'leaveMarker', 'updateStatus', 'unfenceJob'],
      { phase: Phase.Running },
    ],
  ])('%s', (_n, o, expectedTypes, expectedStatus) => {
    const actions = plan(o, T0);
    expect(types(actions)).toEqual(expectedTypes);
    expect(statusOf(actions)).toMatchObject(expectedStatus);
  });

  const pinned: Trigger = {
    name: 'pinned',
    on: { type: 'label', any: ['deploy'] },
    run: { kind: 'github', flow: 'deploy', pinRevision: true, job: JOB_TEMPLATE },
  };
  const PINNED: TriggersView = { state: 'ok', waits: new Map([['pinned', false]]), declared: new Map([['pinned', pinned]]) };
  const REV = 'a'.repeat(40);
  const deployWaits: Trigger = {
    name: 'deploy',
    on: { type: 'label', any: ['deploy'] },
    run: { kind: 'github', flow: 'deploy', waitFor: [{ after: AFTER }], job: JOB_TEMPLATE },
  };
  const DEPLOY_WAITS: TriggersView = { state: 'ok', waits: new Map([['deploy', true]]), declared: new Map([['deploy', deployWaits]]) };
  test.each<[string, Observed, Partial<HeldJobStatus>, RegExp | undefined]>([
    [
      'the trigger pins the revision, the HeldJob records none: wait-skew, not the moving head',
      observed(noWait('pinned'), undefined, { triggers: PINNED }),
      { phase: Phase.Refused, reason: RefusalToken.Skew },
      /pins the revision \(run\.pinRevision\) but this HeldJob records none.*upgrade it, and re-deliver$/,
    ],
    [
      'it records the revision: launched',
      observed(heldJob({ waitFor: null, spec: { target: 'acme/web#7', trigger: 'pinned', revision: REV, job: JOB_TEMPLATE } }), undefined, {
        triggers: PINNED,
      }),
      { phase: Phase.Running },
      undefined,
    ],
    [
      'made by a receiver of an older schema: the refusal says to upgrade the receiver',
      observed(
        {
          ...noWait('deploy'),
          metadata: {
            ...noWait('deploy').metadata,
            labels: { 'waitgate.dev/made-by': 'receiver', 'waitgate.dev/forge': 'github' },
            annotations: { 'waitgate.dev/receiver-schema': '0' },
          },
        },
        undefined,
        { triggers: DEPLOY_WAITS },
      ),
      { phase: Phase.Refused, reason: RefusalToken.Skew },
      /made by a receiver of schema 0 \(this operator reads schema 1\): upgrade the receiver, and re-deliver$/,
    ],
  ])('%s', (_n, o, expectedStatus, message) => {
    // Past the grace a receiver-made hold is given for a triggers file the operator has not seen yet.
    const s = statusOf(plan(o, T0 + 60_000));
    expect(s).toMatchObject(expectedStatus);
    if (message) expect(s?.message).toMatch(message);
  });

  test('unreadable, from a receiver of a newer schema: the refusal says to upgrade the operator', () => {
    const hj = heldJob({ waitFor: [{ approval: 'x', soon: 1 }], finalizer: false });
    const made = {
      ...hj,
      metadata: {
        ...hj.metadata,
        labels: { 'waitgate.dev/made-by': 'receiver', 'waitgate.dev/forge': 'github' },
        annotations: { 'waitgate.dev/receiver-schema': '9' },
      },
    };
    const s = statusOf(plan(observed(made), T0));
    expect(s).toMatchObject({ phase: Phase.Refused, reason: RefusalToken.Unreadable });
    expect(s?.message).toMatch(/made by a receiver of schema 9 \(this operator reads schema 1\): upgrade the operator$/);
  });

  test.each<[string, TriggersView, string]>([
    ['missing', { state: 'missing' }, 'TriggersMissing'],
    ['unreadable', { state: 'unreadable', problem: 'x' }, 'TriggersUnreadable'],
    ['without this trigger', { state: 'ok', waits: new Map(), declared: new Map() }, 'TriggerNotInFile'],
  ])('a triggers file %s: not silent (condition and warning event), but not a refusal', (_n, triggers, reason) => {
    const actions = plan(observed(noWait('deploy'), undefined, { triggers }), T0);
    const s = statusOf(actions);
    expect(s?.phase).toBe(Phase.Running);
    expect(s?.conditions?.find((c) => c.type === 'TriggerChecked')).toMatchObject({ status: 'Unknown', reason });
  });

  test('the warning event comes once, not on every pass', () => {
    const first = plan(observed(heldJob({ status: held }), undefined, { triggers: { state: 'missing' } }), T0 + 1000);
    const said = (as: readonly Action[]) => as.some((a) => a.type === 'event' && a.event.reason === 'TriggersMissing');
    expect(said(first)).toBe(true);
    const again = plan(observed(heldJob({ status: statusOf(first) }), undefined, { triggers: { state: 'missing' } }), T0 + 2000);
    expect(said(again)).toBe(false);
  });
});

describe('decide: cancel (kubectl delete heldjob)', () => {
  const waiting = (reason: string) => ({ type: 'Waiting', status: 'True' as const, reason, message: 'm', lastTransitionTime: iso(T0) });
  test.each<[string, Observed, string[]]>([
    [
      'a held one: scope back (if any), finalizer off',
      observed(heldJob({ deleted: true, status: held })),
      ['releaseScope', 'setFinalizers'],
    ],
    [
      'a running one: its Job deleted, recorded as operator-cancel',
      observed(heldJob({ deleted: true, status: running }), { name: JOB, outcome: JobOutcome.Active }),
      ['deleteJob', 'updateStatus', 'releaseScope', 'setFinalizers'],
    ],
    ['without our finalizer: nothing to do', observed(heldJob({ deleted: true, finalizer: false })), []],
    [
      'a launching one whose Job the informer lacks (its watch lags the create): the apiserver asked first, the finalizer kept',
      observed(heldJob({ deleted: true, status: running })),
      ['readJobToCancel'],
    ],
    [
      'a launch recorded, its create not yet confirmed, no Job in the informer: the apiserver asked first',
      observed(heldJob({ deleted: true, status: { ...held, phase: Phase.Running } })),
      ['readJobToCancel'],
    ],
    [
      'a held one whose create may have landed (LaunchRetrying), no Job in the informer: the apiserver asked first',
      observed(heldJob({ deleted: true, status: { ...held, conditions: [waiting('LaunchRetrying')] } })),
      ['readJobToCancel'],
    ],
    [
      'a held one queued for a scope slot, never launched: no read',
      observed(heldJob({ deleted: true, status: { ...held, conditions: [waiting('ScopeQueued')] } })),
      ['releaseScope', 'setFinalizers'],
    ],
    [
      'a finished one: its Job is over, no read',
      observed(heldJob({ deleted: true, status: { ...running, phase: Phase.Succeeded } })),
      ['releaseScope', 'setFinalizers'],
    ],
  ])('%s', (_n, o, expectedTypes) => {
    const actions = plan(o, AFTER_MS);
    expect(types(actions)).toEqual(expectedTypes);
    const u = actions.find((a) => a.type === 'updateStatus');
    if (u && u.type === 'updateStatus') {
      expect(u.status.message).toMatch(/^operator-cancel/);
      expect(u.event?.reason).toBe('OperatorCancel');
    }
  });

  test.each<[string, JobRead, string[]]>([
    [
      'the Job is there: the fence off, the Job deleted, the cancel recorded, the finalizer off',
      { kind: 'present' },
      ['unfenceJob', 'deleteJob', 'updateStatus', 'releaseScope', 'setFinalizers'],
    ],
    ['the Job is not there: the scope back, the finalizer off', { kind: 'gone' }, ['releaseScope', 'setFinalizers']],
    ['no answer: the finalizer stays, looked at again', { kind: 'unknown', message: 'timeout' }, ['wakeAt']],
  ])('after the read before a cancel, %s', (_n, read, expectedTypes) => {
    const o = observed(heldJob({ deleted: true, status: { ...held, phase: Phase.Running } }));
    const actions = afterCancelRead(o, read, AFTER_MS);
    expect(types(actions)).toEqual(expectedTypes);
    for (const a of actions) {
      if (a.type === 'deleteJob' || a.type === 'unfenceJob') expect(a.jobName).toBe(JOB);
      if (a.type === 'wakeAt') expect(a.at).toBe(AFTER_MS + CANCEL_READ_AGAIN_MS);
      if (a.type === 'updateStatus') {
        expect(a.status.message).toMatch(/^operator-cancel/);
        expect(a.event?.reason).toBe('OperatorCancel');
      }
    }
  });
});

describe('reports to the forge', () => {
  const refused: HeldJobStatus = { phase: Phase.Refused, reason: RefusalToken.Expired, finishedAt: iso(T0) };
  const reports = { transitions: ['refused'] as const, forges: ['github'] as const, namespaces: [] };
  /** The receiver's forge label: without it, a `#` target names no forge (api/forges.ts). */
  const onGithub = (hj: Observed['heldJob']): Observed['heldJob'] => ({
    ...hj,
    metadata: { ...hj.metadata, labels: { 'waitgate.dev/forge': 'github' } },
  });

  test('a refused HeldJob is reported, first in the pass, when the forge has credentials', () => {
    const as = decide(observed(onGithub(heldJob({ status: refused })), undefined, { config: { ...CONFIG, reports } }), T0 + 1000);
    expect(types(as)[0]).toBe('report');
    expect(types(as).slice(1)).toEqual(types(decide(observed(heldJob({ status: refused })), T0 + 1000)));
  });

  test('a refusal record whose spec fails its check is still reported to its target', () => {
    const hj = onGithub(
      heldJob({
        status: refused,
        spec: { target: 'acme/web#7', trigger: 'deploy', waitFor: [{ until: 'x' }], job: JOB_TEMPLATE },
      }),
    );
    const as = decide(observed(hj, undefined, { config: { ...CONFIG, reports } }), T0 + 1000);
    expect(types(as)).toContain('report');
  });

  test('without credentials nothing is reported', () => {
    expect(types(decide(observed(onGithub(heldJob({ status: refused }))), T0 + 1000))).not.toContain('report');
  });

  test('a target whose forge cannot be told (no forge label on a `#`) is not reported', () => {
    expect(types(decide(observed(heldJob({ status: refused }), undefined, { config: { ...CONFIG, reports } }), T0 + 1000))).not.toContain(
      'report',
    );
  });
});

describe('decide: observedGeneration', () => {
  const at = (hj: Observed['heldJob'], generation: number): Observed['heldJob'] => ({ ...hj, metadata: { ...hj.metadata, generation } });

  test('every condition a pass sets says which generation it was set from', () => {
    const s = statusOf(plan(observed(at(heldJob(), 3)), T0));
    expect(s?.observedGeneration).toBe(3);
    expect(s?.conditions?.map((c) => [c.type, c.observedGeneration])).toEqual([
      ['TriggerChecked', 3],
      ['Waiting', 3],
      ['Launched', 3],
      ['Ready', 3],
      ['Reconciling', 3],
    ]);
  });

  test.each<[string, HeldJobStatus, ObservedJob | undefined]>([
    ['finished', written({ phase: Phase.Succeeded }), undefined],
    ['running', running, { name: JOB, outcome: JobOutcome.Active }],
  ])('%s, its spec edited since: observed once, and only that', (_n, status, job) => {
    const edited = at(heldJob({ status, finalizer: false }), 2);
    const actions = plan(observed(edited, job), AFTER_MS);
    expect(types(actions)).toEqual(['updateStatus']);
    const s = statusOf(actions) as HeldJobStatus;
    expect(s.observedGeneration).toBe(2);
    expect(s.phase).toBe(status.phase);
    expect(s.conditions?.find((c) => c.type === 'Ready')?.observedGeneration).toBe(2);
    // Once written, nothing more.
    expect(plan(observed({ ...edited, status: s }, job), AFTER_MS + 1000)).toEqual([]);
  });
});

describe('decideGone: a HeldJob deleted with no finalizer (the launch takes none)', () => {
  const fenced: ObservedJob = { name: JOB, outcome: JobOutcome.Active, fenced: true };
  test.each<[string, HeldJobStatus, ObservedJob | undefined, string[]]>([
    ['armed, its instant not come: its place (none taken) given back, nothing else', held, undefined, ['releaseScope']],
    [
      'fired, its Job created and not recorded: the cancel said, the Job deleted, its fence lifted',
      held,
      fenced,
      ['releaseScope', 'event', 'deleteJob', 'unfenceJob'],
    ],
    [
      'running, recorded: the cancel said; the garbage collector deletes the Job',
      running,
      { name: JOB, outcome: JobOutcome.Active },
      ['releaseScope', 'event'],
    ],
    ['its Job over: nothing to cancel', running, { name: JOB, outcome: JobOutcome.Succeeded }, ['releaseScope']],
  ])('%s', (_n, status, job, want) => {
    expect(types(decideGone(observed(heldJob({ status, finalizer: false }), job)))).toEqual(want);
  });
});

describe('decide: a spec that no longer reads (edited; the CRD keeps unknown fields)', () => {
  const at = (hj: Observed['heldJob'], generation: number): Observed['heldJob'] => ({ ...hj, metadata: { ...hj.metadata, generation } });
  /** The spec with a field it does not know: it fails its check. */
  const NOTE = { target: 'acme/web#7', trigger: 'deploy', waitFor: [{ after: AFTER }], job: JOB_TEMPLATE, note: 'x' };
  /** The HeldJob at generation 2 (its status last written at 1, unless said), with `spec`. */
  const edited = (over: { status: HeldJobStatus; spec?: Record<string, unknown>; finalizer?: boolean }) =>
    at(heldJob({ spec: over.spec ?? NOTE, status: over.status, finalizer: over.finalizer ?? false }), 2);
  /** Running, its creation confirmed, the scope recorded at the launch. */
  const launched: HeldJobStatus = { ...running, scope: 'acme/web' };
  const seen = (s: HeldJobStatus): HeldJobStatus => ({ ...s, observedGeneration: 2 });
  const active: ObservedJob = { name: JOB, outcome: JobOutcome.Active };
  const succeeded: ObservedJob = { name: JOB, outcome: JobOutcome.Succeeded };
  const failed: ObservedJob = { name: JOB, outcome: JobOutcome.Failed, failureReason: 'BackoffLimitExceeded' };

  type Row = [
    string,
    Observed,
    string[],
    Partial<HeldJobStatus> | undefined,
    { readonly scope?: string; readonly event?: RegExp; readonly eventReason?: string },
  ];
  test.each<Row>([
    [
      'running, Job active, a field added: the generation observed once, with a Warning naming the problem; nothing else',
      observed(edited({ status: launched }), active),
      ['updateStatus'],
      { phase: Phase.Running, observedGeneration: 2 },
      {
        eventReason: 'SpecChangeIgnored',
        event: /changed after the launch \(generation 2\) and no longer reads \(spec: Unrecognized key: "note"\); the Job runs as launched/,
      },
    ],
    ['running, Job active, the change already observed: nothing', observed(edited({ status: seen(launched) }), active), [], undefined, {}],
    [
      'running, Job succeeded: the place back under the scope recorded at the launch, Succeeded in one write',
      observed(edited({ status: seen(launched) }), succeeded),
      ['releaseScope', 'updateStatus'],
      { phase: Phase.Succeeded, message: `Job ${JOB} succeeded` },
      { scope: 'acme/web', eventReason: 'Succeeded' },
    ],
    [
      'running, Job failed while no operator saw the edit: Failed, and the change said after it',
      observed(edited({ status: launched }), failed),
      ['releaseScope', 'updateStatus', 'event'],
      { phase: Phase.Failed, message: `Job ${JOB} failed (BackoffLimitExceeded)` },
      { scope: 'acme/web', eventReason: 'Failed' },
    ],
    [
      'running, the target edited to another repository (the spec reads): the place goes back under the scope it was taken in',
      observed(edited({ status: launched, spec: { target: 'acme/api#9', trigger: 'deploy', job: JOB_TEMPLATE } }), succeeded),
      ['releaseScope', 'updateStatus', 'event'],
      { phase: Phase.Succeeded },
      { scope: 'acme/web' },
    ],
    [
      'running, launched before status recorded a scope: the target, read as far as it reads',
      observed(edited({ status: seen(running) }), succeeded),
      ['releaseScope', 'updateStatus'],
      { phase: Phase.Succeeded },
      { scope: 'ns/team-a:acme/web' },
    ],
    [
      'running, no scope recorded and no target to read: the end is recorded all the same (the place lapses with its lease)',
      observed(edited({ status: seen(running), spec: { trigger: 'deploy', job: JOB_TEMPLATE, note: 'x' } }), succeeded),
      ['updateStatus'],
      { phase: Phase.Succeeded },
      {},
    ],
    ['running, Job not in the informer: read from the apiserver', observed(edited({ status: launched })), ['readJob'], undefined, {}],
    [
      'running, launch recorded, creation not confirmed, Job there: recorded as created, the marker from what reads',
      observed(edited({ status: { ...held, phase: Phase.Running, scope: 'acme/web', conditions: [] } }), active),
      ['leaveMarker', 'updateStatus'],
      { phase: Phase.Running, scope: 'acme/web' },
      { eventReason: 'Launched' },
    ],
    [
      'held, its own Job there (a crash before the record): it launched, so it follows its Job; not refused',
      observed(edited({ status: held }), active),
      ['leaveMarker', 'updateStatus'],
      { phase: Phase.Running, scope: 'ns/team-a:acme/web' },
      { eventReason: 'Launched' },
    ],
    [
      'held with the finalizer (checking or launching): Refused wait-unreadable, the scope slot and the finalizer given back',
      observed(edited({ status: held, finalizer: true })),
      ['releaseScope', 'updateStatus', 'setFinalizers'],
      { phase: Phase.Refused, reason: RefusalToken.Unreadable, message: 'spec: Unrecognized key: "note"' },
      { scope: 'ns/team-a:acme/web', eventReason: 'Refused', event: /^wait-unreadable: spec: Unrecognized key: "note"$/ },
    ],
    [
      'held, asleep until its instant, its job edited so that it no longer reads: Refused wait-unreadable, naming the field',
      observed(
        edited({ status: held, spec: { target: 'acme/web#7', trigger: 'deploy', waitFor: [{ after: AFTER }], job: { backoffLimit: 0 } } }),
      ),
      ['updateStatus'],
      { phase: Phase.Refused, reason: RefusalToken.Unreadable },
      { event: /spec\.job\.template/ },
    ],
    [
      'succeeded, then edited: the generation observed once, and said: nothing follows',
      observed(edited({ status: written({ phase: Phase.Succeeded, scope: 'acme/web' }) })),
      ['updateStatus'],
      { phase: Phase.Succeeded, observedGeneration: 2 },
      { eventReason: 'SpecChangeIgnored', event: /changed after the hold ended \(generation 2\) and no longer reads .*nothing follows/ },
    ],
    [
      'deleted while held with the finalizer: the scope back (by the target that reads), the finalizer off',
      observed(at(heldJob({ spec: NOTE, status: held, deleted: true }), 2)),
      ['releaseScope', 'setFinalizers'],
      undefined,
      { scope: 'ns/team-a:acme/web' },
    ],
  ])('%s', (_name, o, expectedTypes, expectedStatus, more) => {
    const actions = plan(o, AFTER_MS);
    expect(types(actions)).toEqual(expectedTypes);
    if (expectedStatus) expect(statusOf(actions)).toMatchObject(expectedStatus);
    const released = actions.find((a) => a.type === 'releaseScope');
    if (more.scope) expect(released).toEqual({ type: 'releaseScope', scopeKey: more.scope, ended: true });
    const said = actions.flatMap((a) => (a.type === 'event' ? [a.event] : a.type === 'updateStatus' && a.event ? [a.event] : []));
    if (more.eventReason) expect(said.map((e) => e.reason)).toContain(more.eventReason);
    if (more.event) expect(said.map((e) => e.message)).toEqual(expect.arrayContaining([expect.stringMatching(more.event)]));
  });

  test('a job edited while held, still readable: the launch builds the edited job', () => {
    const job = { template: { spec: { containers: [{ name: 'c', image: 'edited:2' }], restartPolicy: 'Never' } } };
    const o = observed(
      at(heldJob({ spec: { target: 'acme/web#7', trigger: 'deploy', waitFor: [{ after: AFTER }], job }, status: held }), 2),
    );
    const acquire = decide(o, AFTER_MS).find((a) => a.type === 'acquireScope');
    expect(acquire?.type === 'acquireScope' && acquire.job.spec?.template.spec?.containers[0]?.image).toBe('edited:2');
  });

  test('a running hold whose spec no longer reads, deleted with no finalizer: its place back, the cancel said', () => {
    const actions = decideGone(observed(edited({ status: launched }), active));
    expect(types(actions)).toEqual(['releaseScope', 'event']);
    expect(actions[0]).toEqual({ type: 'releaseScope', scopeKey: 'acme/web', ended: true });
    expect(actions[1]?.type === 'event' && actions[1].event.reason).toBe('OperatorCancel');
  });

  test('the change is said once: once written, the next pass says nothing', () => {
    const first = plan(observed(edited({ status: launched }), active), AFTER_MS);
    const after = { ...edited({ status: launched }), status: statusOf(first) as HeldJobStatus };
    expect(plan(observed(after, active), AFTER_MS + 1000)).toEqual([]);
  });
});

describe('decide: a HeldJob the receiver made is bound to its trigger', () => {
  const mineJob = { template: { spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Never' } } };
  const mine = { name: 'mine', on: { type: 'label' as const, any: ['go'] }, run: { kind: 'github', flow: 'f', job: mineJob } };
  const triggers: TriggersView = { state: 'ok', waits: new Map([['mine', false]]), declared: new Map([['mine', mine]]) };
  const privileged = {
    template: { spec: { containers: [{ name: 'c', image: 'x', securityContext: { privileged: true } }], restartPolicy: 'Never' } },
  };
  const made = (
    spec: Record<string, unknown>,
    labels: Record<string, string> = { 'waitgate.dev/made-by': 'receiver', 'waitgate.dev/forge': 'github' },
  ) => {
    const hj = heldJob({ spec: { target: 'acme/web#7', ...spec } });
    return { ...hj, metadata: { ...hj.metadata, labels } };
  };
  const LATER = T0 + 60_000;
  test.each<[string, Observed, number, string[], HeldJobStatus]>([
    [
      'its trigger as rendered: launched',
      observed(made({ trigger: 'mine', job: mineJob }), undefined, { triggers }),
      LATER,
      ['acquireScope'],
      {},
    ],
    [
      'a privileged Job under trigger mine: Failed JobNotTrigger, no Job',
      observed(made({ trigger: 'mine', job: privileged }), undefined, { triggers }),
      LATER,
      ['releaseScope', 'updateStatus', 'setFinalizers'],
      { phase: Phase.Failed, reason: 'JobNotTrigger' },
    ],
    [
      'trigger ghost, declared by nobody: Failed TriggerUndeclared, no Job',
      observed(made({ trigger: 'ghost', job: mineJob }), undefined, { triggers }),
      LATER,
      ['releaseScope', 'updateStatus', 'setFinalizers'],
      { phase: Phase.Failed, reason: 'TriggerUndeclared' },
    ],
    [
      'just created, not yet bound (the watch may lag the receiver): held, looked at again',
      observed(made({ trigger: 'ghost', job: mineJob }), undefined, { triggers }),
      T0 + 1000,
      ['updateStatus', 'wakeAt'],
      { phase: Phase.Pending },
    ],
    [
      'the triggers ConfigMap missing: held, never launched nor failed',
      observed(made({ trigger: 'mine', job: privileged }), undefined, { triggers: { state: 'missing' } }),
      LATER,
      ['updateStatus'],
      { phase: Phase.Pending },
    ],
    [
      'written by hand (no label): not bound, launched',
      observed(made({ trigger: 'ghost', job: privileged }, {}), undefined, { triggers }),
      LATER,
      ['acquireScope'],
      {},
    ],
  ])('%s', (_n, o, now, expectedTypes, expectedStatus) => {
    const actions = decide(o, now);
    expect(types(actions)).toEqual(expectedTypes);
    const u = actions.find((a) => a.type === 'updateStatus');
    if (u?.type === 'updateStatus') {
      expect(u.status).toMatchObject(expectedStatus);
      if (expectedStatus.phase === Phase.Failed) expect(u.event).toMatchObject({ type: 'Warning', reason: expectedStatus.reason });
    }
    expect(actions.some((a) => a.type === 'createJob')).toBe(false);
  });

  test('held while the triggers cannot be read: Waiting says why, with a warning once', () => {
    const actions = decide(
      observed(made({ trigger: 'mine', job: mineJob }), undefined, { triggers: { state: 'unreadable', problem: 'x' } }),
      LATER,
    );
    const u = actions.find((a) => a.type === 'updateStatus');
    expect(u?.type === 'updateStatus' && u.status.conditions?.find((c) => c.type === 'Waiting')).toMatchObject({
      status: 'True',
      reason: 'TriggersUnreadable',
    });
    expect(u?.type === 'updateStatus' && u.event?.reason).toBe('TriggersUnreadable');
  });
});

describe('decide: the newest pending wins (a superseded pending hold, #30 finding 4)', () => {
  const mineJob = { template: { spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Never' } } };
  const mine = { name: 'mine', on: { type: 'label' as const, any: ['go'] }, run: { kind: 'github', flow: 'f', job: mineJob } };
  const triggers: TriggersView = { state: 'ok', waits: new Map([['mine', false]]), declared: new Map([['mine', mine]]) };
  const receiverLabels = { 'waitgate.dev/made-by': 'receiver', 'waitgate.dev/forge': 'github' };
  const superseded = { 'waitgate.dev/superseded-by': 'web-7-mine-abcd1234-3' };
  const hold = (
    over: { waitFor?: object[]; status?: HeldJobStatus; labels?: Record<string, string>; annotations?: Record<string, string> } = {},
  ) => {
    const hj = heldJob({
      spec: { target: 'acme/web#7', trigger: 'mine', job: mineJob, ...(over.waitFor ? { waitFor: over.waitFor } : {}) },
      annotations: over.annotations ?? superseded,
      ...(over.status ? { status: over.status } : {}),
    });
    return { ...hj, metadata: { ...hj.metadata, labels: over.labels ?? receiverLabels } };
  };
  const LATER = T0 + 60_000;
  const queued: HeldJobStatus = {
    ...held,
    conditions: [{ type: 'Waiting', status: 'True', reason: 'ScopeQueued', message: 'm', lastTransitionTime: iso(T0) }],
  };
  test.each<[string, Observed, string[]]>([
    ['pending, never looked at: its Job read from the apiserver first', observed(hold(), undefined, { triggers }), ['readJobToSupersede']],
    ['queued for its scope place: read first', observed(hold({ status: queued }), undefined, { triggers }), ['readJobToSupersede']],
    [
      'its Job in the informer (it started first): it runs, recorded as launched',
      observed(hold(), { name: JOB, outcome: JobOutcome.Active, fenced: true }, { triggers }),
      ['leaveMarker', 'updateStatus', 'unfenceJob'],
    ],
    ['Running (its launch recorded): the mark says nothing', observed(hold({ status: running }), undefined, { triggers }), ['readJob']],
    [
      'written by hand (no made-by label): the mark says nothing',
      observed(hold({ labels: {} }), undefined, { triggers }),
      ['acquireScope'],
    ],
    [
      "a hold with conditions: never superseded so (this one is not its trigger's, and fails its binding)",
      observed(hold({ waitFor: [{ after: AFTER }] }), undefined, { triggers }),
      ['releaseScope', 'updateStatus', 'setFinalizers'],
    ],
    [
      'a mark that is no object name: says nothing',
      observed(hold({ annotations: { 'waitgate.dev/superseded-by': 'Not A Name!' } }), undefined, { triggers }),
      ['acquireScope'],
    ],
  ])('%s', (_n, o, expectedTypes) => {
    expect(types(decide(o, LATER))).toEqual(expectedTypes);
  });

  test.each<[string, JobRead, string[], Partial<HeldJobStatus> | undefined]>([
    [
      'no Job: ends Refused wait-superseded, what it holds given back',
      { kind: 'gone' },
      ['releaseScope', 'updateStatus', 'setFinalizers'],
      {
        phase: Phase.Refused,
        reason: RefusalToken.Superseded,
      },
    ],
    ['its Job is there: nothing ends, looked at again', { kind: 'present' }, ['wakeAt'], undefined],
    ['no answer: nothing ends, asked again later', { kind: 'unknown', message: 'timeout' }, ['wakeAt'], undefined],
  ])('afterSupersedeRead: %s', (_n, read, expectedTypes, status) => {
    const actions = afterSupersedeRead(observed(hold({ status: queued }), undefined, { triggers }), read, 'web-7-mine-abcd1234-3', LATER);
    expect(types(actions)).toEqual(expectedTypes);
    if (status) {
      const u = actions.find((a) => a.type === 'updateStatus');
      expect(u?.type === 'updateStatus' && u.status).toMatchObject(status);
      expect(u?.type === 'updateStatus' && u.status.message).toContain('web-7-mine-abcd1234-3');
    }
  });

  test('once Refused, it is deleted at once (its delivery is on the record), even with a time to live of 0', () => {
    const refusedStatus: HeldJobStatus = { phase: Phase.Refused, reason: RefusalToken.Superseded, finishedAt: iso(LATER) };
    const ended = hold({ status: refusedStatus });
    const withTtl = { ...CONFIG, finishedTtlMs: 7 * DAY };
    expect(types(decide(observed(ended, undefined, { triggers, config: withTtl }), LATER + 1))).toContain('deleteHeldJob');
    expect(types(decide(observed(ended, undefined, { triggers, config: CONFIG }), LATER + 1))).toContain('deleteHeldJob');
    // Any other Refused hold waits out its time to live.
    const other = hold({ status: refusedStatus, annotations: {} });
    const kept = types(decide(observed(other, undefined, { triggers, config: withTtl }), LATER + 1));
    expect(kept).toContain('wakeAt');
    expect(kept).not.toContain('deleteHeldJob');
  });
});
