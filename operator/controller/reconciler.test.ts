import { describe, expect, test } from '@jest/globals';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { jobNameFor } from '../../api/job-name.js';
import { withSummary } from '../../api/summary-conditions.js';
import type { Profile } from '../../api/profiles.js';
import { FINALIZER, HoldOutcome, JOB_LAUNCH_FINALIZER, Phase, RefusalToken } from '../../api/vocabulary.js';
import { CheckVerdict } from '../../api/check-verdict.js';
import { fakeDeps, fakeWorld, type FakeWorld } from '../../test/support/fake-ports.js';
import type { HeldJob } from './ports.js';
import { Reconciler } from './reconciler.js';

const T0 = Date.parse('2026-09-01T08:00:00Z');
const AFTER = '2026-09-01T09:00:00Z';
const AFTER_MS = Date.parse(AFTER);
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const CONFIG = { afterMaxMs: 30 * DAY, intervalMs: 60_000, maxMs: DAY, maxChecks: 96, maxFaults: 5, pauseWindows: [], finishedTtlMs: 0 };
const KEY = 'team-a/web-7-deploy';
const JOB = jobNameFor({ name: 'web-7-deploy', uid: 'uid-1' });
const jira: Profile = { name: 'jira', mode: 'exec', script: 'jira.sh' };

/** Builder for the HeldJob the fake informer holds. */
function heldJob(
  over: { waitFor?: object[]; status?: HeldJobStatus; finalizer?: boolean; deleted?: boolean; note?: boolean } = {},
): HeldJob {
  return {
    metadata: {
      name: 'web-7-deploy',
      namespace: 'team-a',
      uid: 'uid-1',
      resourceVersion: '1',
      creationTimestamp: iso(T0),
      ...(over.finalizer ? { finalizers: [FINALIZER] } : {}),
      ...(over.deleted ? { deletionTimestamp: iso(T0) } : {}),
    },
    spec: {
      target: 'acme/web#7',
      trigger: 'deploy',
      waitFor: over.waitFor ?? [{ after: AFTER }],
      job: { template: { spec: { containers: [{ name: 'c', image: 'x' }] } } },
      // A field the schema does not know (the CRD keeps it): the spec fails its check.
      ...(over.note ? { note: 'x' } : {}),
    },
    ...(over.status ? { status: over.status } : {}),
  };
}
const held: HeldJobStatus = { phase: Phase.Held, heldSince: iso(T0), waitingSince: iso(T0), nextCheckAt: iso(AFTER_MS), jobName: JOB };
/** Running, its Job's creation recorded. */
const confirmed: HeldJobStatus = {
  ...held,
  phase: Phase.Running,
  conditions: [{ type: 'Launched', status: 'True', reason: 'JobCreated', message: `created Job ${JOB}`, lastTransitionTime: iso(T0) }],
};
const matches = [
  { type: 'TriggerChecked', status: 'True' as const, reason: 'Matches', message: 'matches its trigger entry', lastTransitionTime: iso(T0) },
];
/** A profile hold as the operator wrote it, its summary conditions with it. */
const profileHeld: HeldJobStatus = withSummary(
  {
    phase: Phase.Held,
    heldSince: iso(T0),
    waitingSince: iso(T0),
    jobName: JOB,
    checks: 0,
    faults: 0,
    checksSince: iso(T0),
    expiresAt: iso(T0 + DAY),
    conditions: matches,
  },
  T0,
  undefined,
);
const withJira = { profiles: { state: 'ok', profiles: new Map([['jira', jira]]) } } as const;

const TRIGGERS = { triggers: { state: 'ok', waits: new Map([['deploy', true]]), declared: new Map() } } as const;

/** A pass, and the passes it queued (a Job created: its record follows in a pass of its own). */
async function reconcile(w: FakeWorld): Promise<FakeWorld> {
  const r = new Reconciler(fakeDeps(w, CONFIG));
  await r.reconcile(KEY);
  for (let seen = 0; seen < w.requeued.length && seen < 3; seen++) {
    expect(r.lane(KEY)).toBe('record');
    await r.reconcile(KEY);
  }
  return w;
}

describe('the executor carries out the decisions, in order', () => {
  test.each<[string, Partial<FakeWorld>, string[], Phase | undefined]>([
    [
      'a new hold: the job dry-run once, one status write, one wake, no finalizer',
      { heldJob: heldJob(), now: T0 },
      ['dryRun:valid', 'writeStatus:Held', 'wake'],
      Phase.Held,
    ],
    [
      'a new hold whose job can never be valid: Failed JobRejected at once, nothing held',
      { heldJob: heldJob(), now: T0, dryRun: { kind: 'invalid', code: 422, message: 'containers: Required value' } },
      ['dryRun:invalid', 'releaseScope', 'writeStatus:Failed', 'event:JobRejected', 'cancelWake'],
      Phase.Failed,
    ],
    [
      'the instant reached: the scope and the create, nothing written first; then, in the record lane, marker, Running with its Event, the fence off',
      { heldJob: heldJob({ status: held }), now: AFTER_MS },
      [
        'acquireScope:acquired',
        'holdScope',
        'create:created',
        'requeue',
        'leaveMarker',
        'writeStatus:Running',
        'event:Launched',
        `unfenceJob:${JOB}`,
      ],
      Phase.Running,
    ],
    [
      'a Job already there (a crash after the create): recorded as launched, no second Job',
      { heldJob: heldJob({ status: held, finalizer: true }), now: AFTER_MS, create: { kind: 'existed' } },
      [
        'acquireScope:acquired',
        'holdScope',
        'create:existed',
        'requeue',
        'leaveMarker',
        'writeStatus:Running',
        'event:Launched',
        `unfenceJob:${JOB}`,
      ],
      Phase.Running,
    ],
    [
      'the scope full: queued once, looked at again in 5 s, no Job',
      { heldJob: heldJob({ status: held, finalizer: true }), now: AFTER_MS, scope: 'full' },
      ['acquireScope:full', 'metric:scopeDeferred', 'writeStatus:Held', 'wake'],
      Phase.Held,
    ],
    [
      'Valkey away for the scope: the same, no Job',
      { heldJob: heldJob({ status: held, finalizer: true }), now: AFTER_MS, scope: 'unavailable' },
      ['acquireScope:unavailable', 'metric:scopeDeferred', 'writeStatus:Held', 'wake'],
      Phase.Held,
    ],
    [
      'the create fails: the scope slot goes back and the launch is tried again later',
      {
        heldJob: heldJob({ status: held, finalizer: true }),
        now: AFTER_MS,
        create: { kind: 'createFailed', code: 503, message: 'unavailable' },
      },
      ['acquireScope:acquired', 'holdScope', 'create:createFailed', 'releaseScope', 'writeStatus:Held', 'event:LaunchRetrying', 'wake'],
      Phase.Held,
    ],
    [
      'the apiserver refuses the Job (403, a quota): Failed JobRejected, the scope slot back, the finalizer off',
      {
        heldJob: heldJob({ status: held, finalizer: true }),
        now: AFTER_MS,
        create: { kind: 'createFailed', code: 403, message: 'exceeded quota: count/jobs.batch' },
      },
      [
        'acquireScope:acquired',
        'holdScope',
        'create:createFailed',
        'releaseScope',
        'writeStatus:Failed',
        'event:JobRejected',
        'cancelWake',
        'setFinalizers:',
      ],
      Phase.Failed,
    ],
    [
      'a Running hold whose Job the informer lacks and the apiserver has not: Failed JobMissing, the scope slot back',
      { heldJob: heldJob({ status: confirmed, finalizer: false }), now: AFTER_MS, read: { kind: 'gone' } },
      ['readJob:gone', 'releaseScope', 'writeStatus:Failed', 'event:JobMissing', 'cancelWake'],
      Phase.Failed,
    ],
    [
      'a recorded launch and no Job (its fence would have kept one): the create never landed; the scope, the record, the create, confirmed, unfenced',
      {
        heldJob: heldJob({ status: { ...held, phase: Phase.Running, conditions: [] }, finalizer: true }),
        now: AFTER_MS,
        read: { kind: 'gone' },
      },
      [
        'readJob:gone',
        'acquireScope:acquired',
        'holdScope',
        'create:created',
        'requeue',
        'leaveMarker',
        'writeStatus:Running',
        'event:Launched',
        `unfenceJob:${JOB}`,
      ],
      Phase.Running,
    ],
    [
      'a Running hold whose spec no longer reads, its Job ended: the end recorded, the scope slot back',
      {
        heldJob: heldJob({ status: { ...confirmed, scope: 'acme/web' }, note: true }),
        job: {
          metadata: { name: JOB, ownerReferences: [{ apiVersion: 'v', kind: 'HeldJob', name: 'web-7-deploy', uid: 'uid-1' }] },
          status: { conditions: [{ type: 'Complete', status: 'True' }] },
        },
        now: AFTER_MS,
      },
      ['releaseScope', 'writeStatus:Succeeded', 'event:Succeeded', 'cancelWake'],
      Phase.Succeeded,
    ],
    [
      'a Running hold whose spec no longer reads, its Job not in the informer and gone: read, and ended JobMissing',
      { heldJob: heldJob({ status: { ...confirmed, scope: 'acme/web' }, note: true }), now: AFTER_MS, read: { kind: 'gone' } },
      ['readJob:gone', 'releaseScope', 'writeStatus:Failed', 'event:JobMissing', 'cancelWake'],
      Phase.Failed,
    ],
    [
      'a recorded launch never created whose spec no longer reads: never created; Refused wait-unreadable, the slot back, the finalizer off',
      {
        heldJob: heldJob({ status: { ...held, phase: Phase.Running, scope: 'acme/web', conditions: [] }, finalizer: true, note: true }),
        now: AFTER_MS,
        read: { kind: 'gone' },
      },
      ['readJob:gone', 'releaseScope', 'writeStatus:Refused', 'event:Refused', 'cancelWake', 'setFinalizers:'],
      Phase.Refused,
    ],
    [
      'a Running hold whose Job the informer lacks but the apiserver has: looked at again, nothing written',
      { heldJob: heldJob({ status: { ...held, phase: Phase.Running }, finalizer: false }), now: AFTER_MS, read: { kind: 'present' } },
      ['readJob:present', 'wake'],
      Phase.Running,
    ],
    [
      'a profile due: the finalizer, then the check, then its answer written',
      {
        heldJob: heldJob({ waitFor: [{ profile: 'jira' }], status: profileHeld }),
        now: T0,
        ...withJira,
        check: { kind: 'answered', result: { profile: 'jira', verdict: CheckVerdict.NotYet, exitCode: 3 } },
      },
      ['setFinalizers:waitgate.dev/cleanup', 'runCheck:jira', 'writeStatus:Held', 'event:CheckNotYet', 'wake'],
      Phase.Held,
    ],
    [
      'every check slot taken: nothing counted, looked at again later',
      {
        heldJob: heldJob({ waitFor: [{ profile: 'jira' }], status: profileHeld, finalizer: true }),
        now: T0,
        ...withJira,
        check: { kind: 'denied' },
      },
      ['runCheck:jira', 'wake'],
      Phase.Held,
    ],
    [
      'a check that says never: refused for good, the wake cancelled',
      {
        heldJob: heldJob({ waitFor: [{ profile: 'jira' }], status: profileHeld, finalizer: true }),
        now: T0,
        ...withJira,
        check: { kind: 'answered', result: { profile: 'jira', verdict: CheckVerdict.Never, exitCode: 2 } },
      },
      ['runCheck:jira', 'event:CheckNever', 'writeStatus:Refused', 'event:Refused', 'cancelWake'],
      Phase.Refused,
    ],
    [
      'a cancel of a running one: the Job deleted, operator-cancel, the scope back, the finalizer off',
      {
        heldJob: heldJob({ status: { ...held, phase: Phase.Running }, finalizer: true, deleted: true }),
        job: { metadata: { name: JOB, ownerReferences: [{ apiVersion: 'v', kind: 'HeldJob', name: 'web-7-deploy', uid: 'uid-1' }] } },
        now: AFTER_MS,
      },
      ['cancelCheck', `deleteJob:${JOB}`, 'writeStatus:Running', 'event:OperatorCancel', 'releaseScope', 'setFinalizers:'],
      Phase.Running,
    ],
    [
      'a cancel of a launching one whose Job the informer lacks and the apiserver has: read, unfenced, deleted, operator-cancel, then the finalizer off',
      {
        heldJob: heldJob({ status: { ...held, phase: Phase.Running }, finalizer: true, deleted: true }),
        now: AFTER_MS,
        read: { kind: 'present' },
      },
      [
        'cancelCheck',
        'readJob:present',
        `unfenceJob:${JOB}`,
        `deleteJob:${JOB}`,
        'writeStatus:Running',
        'event:OperatorCancel',
        'releaseScope',
        'setFinalizers:',
      ],
      Phase.Running,
    ],
    [
      'a cancel of a launching one whose Job neither the informer nor the apiserver has: read, the scope back, the finalizer off',
      {
        heldJob: heldJob({ status: { ...held, phase: Phase.Running }, finalizer: true, deleted: true }),
        now: AFTER_MS,
        read: { kind: 'gone' },
      },
      ['cancelCheck', 'readJob:gone', 'releaseScope', 'setFinalizers:'],
      Phase.Running,
    ],
    [
      'a cancel of a launching one whose Job read fails: the finalizer stays, looked at again',
      {
        heldJob: heldJob({ status: { ...held, phase: Phase.Running }, finalizer: true, deleted: true }),
        now: AFTER_MS,
        read: { kind: 'unknown', message: 'connection refused' },
      },
      ['cancelCheck', 'readJob:unknown', 'wake'],
      Phase.Running,
    ],
    [
      'a cancel of a held one whose create was tried and may have landed (LaunchRetrying): read before the finalizer comes off',
      {
        heldJob: heldJob({
          status: {
            ...held,
            conditions: [{ type: 'Waiting', status: 'True', reason: 'LaunchRetrying', message: 'no answer', lastTransitionTime: iso(T0) }],
          },
          finalizer: true,
          deleted: true,
        }),
        now: AFTER_MS,
        read: { kind: 'present' },
      },
      [
        'cancelCheck',
        'readJob:present',
        `unfenceJob:${JOB}`,
        `deleteJob:${JOB}`,
        'writeStatus:Held',
        'event:OperatorCancel',
        'releaseScope',
        'setFinalizers:',
      ],
      Phase.Held,
    ],
    [
      'a cancel of a held one that never launched: no read, the scope back, the finalizer off',
      { heldJob: heldJob({ status: held, finalizer: true, deleted: true }), now: AFTER_MS, read: { kind: 'present' } },
      ['cancelCheck', 'releaseScope', 'setFinalizers:'],
      Phase.Held,
    ],
    [
      'a Job of that name owned by another is not this HeldJob’s: it is not adopted',
      {
        heldJob: heldJob({ status: held, finalizer: true }),
        job: { metadata: { name: JOB, ownerReferences: [{ apiVersion: 'v', kind: 'HeldJob', name: 'x', uid: 'other' }] } },
        now: AFTER_MS,
        create: { kind: 'nameTaken' },
      },
      [
        'acquireScope:acquired',
        'holdScope',
        'create:nameTaken',
        'releaseScope',
        'writeStatus:Failed',
        'event:JobRejected',
        'cancelWake',
        'setFinalizers:',
      ],
      Phase.Failed,
    ],
    [
      'a HeldJob gone: its wake and check are cancelled, nothing else',
      { heldJob: undefined, now: T0 },
      ['cancelWake', 'cancelCheck'],
      undefined,
    ],
  ])('%s', async (_n, world, journal, phase) => {
    const w = await reconcile(fakeWorld({ ...TRIGGERS, ...world }));
    expect(w.journal).toEqual(journal);
    expect(w.heldJob?.status?.phase).toBe(phase);
  });

  test('a status write that meets a newer object stops the pass: nothing after it runs', async () => {
    const w = await reconcile(fakeWorld({ ...TRIGGERS, heldJob: heldJob(), now: T0, failStatusWith: 409 }));
    expect(w.journal).toEqual(['dryRun:valid', 'writeStatus:failed 409']);
  });

  test('any other failed status write is an error for the work queue to retry', async () => {
    await expect(reconcile(fakeWorld({ ...TRIGGERS, heldJob: heldJob(), now: T0, failStatusWith: 500 }))).rejects.toThrow('HTTP 500');
  });

  test("a check's answer whose record failed is written on the retry, not asked again: the script runs once", async () => {
    const w = fakeWorld({
      ...TRIGGERS,
      heldJob: heldJob({ waitFor: [{ profile: 'jira' }], status: profileHeld, finalizer: true }),
      now: T0,
      ...withJira,
      check: { kind: 'answered', result: { profile: 'jira', verdict: CheckVerdict.NotYet, exitCode: 3 } },
      failStatusWith: 503,
    });
    const r = new Reconciler(fakeDeps(w, CONFIG));
    await expect(r.reconcile(KEY)).rejects.toThrow('HTTP 503');
    await r.reconcile(KEY);
    expect(w.journal.filter((e) => e.startsWith('runCheck'))).toHaveLength(1);
    expect(w.journal.slice(-3)).toEqual(['writeStatus:Held', 'event:CheckNotYet', 'wake']);
    // Recorded: the next due check runs the script again.
    w.now = T0 + 10 * 60_000;
    await r.reconcile(KEY);
    expect(w.journal.filter((e) => e.startsWith('runCheck'))).toHaveLength(2);
  });

  test('a version already written over, handed out again by a lagging informer, is not decided on: the script runs once', async () => {
    const before = heldJob({ waitFor: [{ profile: 'jira' }], status: profileHeld, finalizer: true });
    const w = fakeWorld({
      ...TRIGGERS,
      heldJob: before,
      now: T0,
      ...withJira,
      check: { kind: 'answered', result: { profile: 'jira', verdict: CheckVerdict.NotYet, exitCode: 3 } },
    });
    const r = new Reconciler(fakeDeps(w, CONFIG));
    await r.reconcile(KEY);
    expect(w.journal.filter((e) => e.startsWith('runCheck'))).toHaveLength(1);
    const written = w.heldJob;
    // The informer still has the version the check's record was written over.
    w.heldJob = before;
    await r.reconcile(KEY);
    expect(w.journal.filter((e) => e.startsWith('runCheck'))).toHaveLength(1);
    // The gate is told the pass ended without a check (a place kept for it may go).
    expect(w.passesEnded).toEqual([KEY, KEY]);
    // The newer version arrives: decided on as usual (nothing due yet).
    w.heldJob = written;
    await r.reconcile(KEY);
    expect(w.journal.filter((e) => e.startsWith('runCheck'))).toHaveLength(1);
    // A restarted operator (nothing in memory) decides on what it is handed.
    w.heldJob = before;
    const s = new Reconciler(fakeDeps(w, CONFIG));
    await s.reconcile(KEY);
    expect(w.journal.filter((e) => e.startsWith('runCheck'))).toHaveLength(2);
  });

  test('the launched Job is the one the decision built: deterministic name, owned by the HeldJob', async () => {
    const w = await reconcile(fakeWorld({ ...TRIGGERS, heldJob: heldJob({ status: held, finalizer: true }), now: AFTER_MS }));
    expect(w.created).toHaveLength(1);
    expect(w.created[0]?.metadata).toMatchObject({ name: JOB, namespace: 'team-a', ownerReferences: [{ uid: 'uid-1', controller: true }] });
  });

  test('a finished HeldJob past its time to live: finalizer off, then deleted as the object now written is, and the pass ends', async () => {
    const ttl = { ...CONFIG, finishedTtlMs: 60_000 };
    const w = fakeWorld({
      ...TRIGGERS,
      heldJob: heldJob({ status: { phase: Phase.Succeeded, finishedAt: iso(T0) }, finalizer: true }),
      now: T0,
    });
    await new Reconciler(fakeDeps(w, ttl)).reconcile(KEY);
    expect(w.journal).toEqual(['setFinalizers:', 'wake']);
    expect(w.wakes).toEqual([T0 + 60_000]);
    w.now = T0 + 60_000;
    const rv = w.heldJob?.metadata.resourceVersion;
    await new Reconciler(fakeDeps(w, ttl)).reconcile(KEY);
    expect(w.journal.slice(2)).toEqual([`deleteHeldJob:uid-1@${rv}`]);
    expect(w.heldJob).toBeUndefined();
  });

  test('a fence lifted once is not lifted again while the Job cache still shows it', async () => {
    const w = fakeWorld({ ...TRIGGERS, heldJob: heldJob({ status: held }), now: AFTER_MS });
    const r = new Reconciler(fakeDeps(w, CONFIG));
    await r.reconcile(KEY);
    expect(r.lane(KEY)).toBe('record');
    await r.reconcile(KEY);
    expect(w.journal.filter((e) => e.startsWith('unfenceJob'))).toHaveLength(1);
    expect(w.heldJob?.status?.phase).toBe(Phase.Running);
    // The informer brings the Job as created: fenced still.
    w.job = {
      metadata: {
        name: JOB,
        finalizers: [JOB_LAUNCH_FINALIZER],
        ownerReferences: [{ apiVersion: 'v', kind: 'HeldJob', name: 'web-7-deploy', uid: 'uid-1' }],
      },
    };
    await r.reconcile(KEY);
    expect(w.journal.filter((e) => e.startsWith('unfenceJob'))).toHaveLength(1);
    // A new process knows nothing of it: it lifts the fence the cache shows (harmless, idempotent).
    await new Reconciler(fakeDeps(w, CONFIG)).reconcile(KEY);
    expect(w.journal.filter((e) => e.startsWith('unfenceJob'))).toHaveLength(2);
  });

  test('a refusal is counted once', async () => {
    const w = await reconcile(fakeWorld({ ...TRIGGERS, heldJob: heldJob({ waitFor: [{ after: iso(T0 + 31 * DAY) }] }), now: T0 }));
    expect(w.refusals).toEqual([RefusalToken.AfterBeyondMax]);
  });
});

describe('waitgate_hold_duration_seconds: each hold counted once, at the write that ends it', () => {
  test('a launch: counted at its record, not again by later passes nor by a new operator (a restart)', async () => {
    const w = fakeWorld({ ...TRIGGERS, heldJob: heldJob({ status: held }), now: AFTER_MS });
    const r = new Reconciler(fakeDeps(w, CONFIG));
    await r.reconcile(KEY);
    await r.reconcile(KEY);
    expect(w.heldJob?.status?.phase).toBe(Phase.Running);
    await r.reconcile(KEY);
    await new Reconciler(fakeDeps(w, CONFIG)).reconcile(KEY);
    expect(w.holdEnds).toEqual([{ outcome: HoldOutcome.Launched, seconds: (AFTER_MS - T0) / 1000 }]);
  });

  test('a refusal by a check: refused, once, though the pass is run again', async () => {
    const w = fakeWorld({
      heldJob: heldJob({ waitFor: [{ profile: 'jira' }], status: profileHeld, finalizer: true }),
      now: T0 + 30_000,
      ...withJira,
      check: { kind: 'answered', result: { profile: 'jira', verdict: CheckVerdict.Never, exitCode: 2 } },
    });
    await new Reconciler(fakeDeps(w, CONFIG)).reconcile(KEY);
    await new Reconciler(fakeDeps(w, CONFIG)).reconcile(KEY);
    expect(w.holdEnds).toEqual([{ outcome: HoldOutcome.Refused, seconds: 30 }]);
  });

  test('a refusal that met a newer object (409) is not counted; its retry is, once', async () => {
    const w = fakeWorld({
      heldJob: heldJob({ waitFor: [{ profile: 'jira' }], status: profileHeld, finalizer: true }),
      now: T0,
      ...withJira,
      check: { kind: 'answered', result: { profile: 'jira', verdict: CheckVerdict.Never, exitCode: 2 } },
      failStatusWith: 409,
    });
    await new Reconciler(fakeDeps(w, CONFIG)).reconcile(KEY);
    expect(w.holdEnds).toEqual([]);
    await new Reconciler(fakeDeps(w, CONFIG)).reconcile(KEY);
    expect(w.holdEnds.map((e) => e.outcome)).toEqual([HoldOutcome.Refused]);
  });

  test('a cancel of a held one: cancelled at the finalizer off; nothing when the informer then sees it gone', async () => {
    const w = fakeWorld({ ...TRIGGERS, heldJob: heldJob({ status: held, finalizer: true, deleted: true }), now: T0 + 5_000 });
    const r = new Reconciler(fakeDeps(w, CONFIG));
    await r.reconcile(KEY);
    const lastSeen = w.heldJob;
    expect(lastSeen?.metadata.finalizers).toEqual([]);
    if (lastSeen) await r.forget(lastSeen);
    expect(w.holdEnds).toEqual([{ outcome: HoldOutcome.Cancelled, seconds: 5 }]);
  });

  test('a held one without a finalizer deleted: cancelled when the informer sees it gone', async () => {
    const w = fakeWorld({ ...TRIGGERS, heldJob: heldJob({ status: held }), now: T0 + 5_000 });
    await new Reconciler(fakeDeps(w, CONFIG)).forget(heldJob({ status: held }));
    expect(w.holdEnds).toEqual([{ outcome: HoldOutcome.Cancelled, seconds: 5 }]);
  });

  test('a cancel of a running one: the hold ended at its launch, nothing more', async () => {
    const w = fakeWorld({
      heldJob: heldJob({ status: { ...held, phase: Phase.Running, launchedAt: iso(T0) }, finalizer: true, deleted: true }),
      now: AFTER_MS,
    });
    await new Reconciler(fakeDeps(w, CONFIG)).reconcile(KEY);
    expect(w.holdEnds).toEqual([]);
  });
});

describe('reports to the forge', () => {
  test('a due report goes to the reporter without waiting for it, and the rest of the pass goes on', async () => {
    const finished = heldJob({ finalizer: true, status: { ...confirmed, phase: Phase.Succeeded, finishedAt: iso(T0) } });
    // The receiver's forge label names the forge of its `#` target (api/forges.ts).
    const w = fakeWorld({
      heldJob: { ...finished, metadata: { ...finished.metadata, labels: { 'waitgate.dev/forge': 'github' } } },
      now: T0,
    });
    const taken: string[] = [];
    const reports = { transitions: ['finished'] as const, forges: ['github'] as const, namespaces: [] };
    await new Reconciler({
      ...fakeDeps(w, { ...CONFIG, reports }),
      reports: { submit: (r) => void taken.push(`${r.transition}:${r.target.repository}#${r.target.number}`) },
    }).reconcile(KEY);
    expect(taken).toEqual(['finished:acme/web#7']);
    // The terminal pass still takes the finalizer off, as without reporting.
    expect(w.journal).toEqual(['setFinalizers:']);
  });
});
