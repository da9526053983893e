import { describe, expect, test } from '@jest/globals';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { STATUS_TEXT_MAX_BYTES, utf8Bytes } from '../../api/bounded-text.js';
import { FailureReason, FINALIZER, Phase } from '../../api/vocabulary.js';
import type { Action, CreateOutcome, JobRead, ScopeOutcome } from './actions.js';
import { decide } from './decide.js';
import { buildJob } from './job.js';
import {
  afterCreate,
  afterDryRun,
  afterJobRead,
  afterScope,
  isNeverValid,
  JOB_READ_AGAIN_MS,
  launchedStatus,
  launchingStatus,
  LAUNCH_RETRY_MS,
  unrecorded,
} from './launch.js';
import { JobOutcome, type Observed, type ObservedJob } from './observed.js';
import { viewOf } from './view.js';

const T0 = Date.parse('2026-09-01T09:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const heldJob: Observed['heldJob'] = {
  metadata: { name: 'web-7-deploy', namespace: 'team-a', uid: 'uid-1', finalizers: [FINALIZER] },
  spec: { target: 'acme/web#7', trigger: 'deploy', job: { template: {} } },
};
const view = viewOf(heldJob);
if (!view.ok) throw new Error(view.problem);
const job = buildJob(heldJob, view.spec, view.jobName);
const ready: HeldJobStatus = { phase: Phase.Held, heldSince: iso(T0 - 60_000), waitingSince: iso(T0 - 60_000) };
const launching = launchingStatus(ready, view, T0, undefined);
const running = launchedStatus(launching, view.jobName, T0, undefined);
const queued: HeldJobStatus = {
  ...ready,
  conditions: [
    {
      type: 'Waiting',
      status: 'True',
      reason: 'ScopeQueued',
      message: 'every condition cleared; waiting for a scope slot',
      lastTransitionTime: iso(T0),
    },
  ],
};
const types = (as: readonly Action[]) => as.map((a) => a.type);
const written = (as: readonly Action[]) => {
  const w = as.find((a) => a.type === 'updateStatus');
  return w?.type === 'updateStatus' ? w : undefined;
};

describe('afterScope: at the instant, nothing is written before the create', () => {
  test.each<[string, HeldJobStatus, ScopeOutcome, string[], Phase | undefined]>([
    ['acquired: the create, nothing written first', ready, 'acquired', ['createJob'], undefined],
    ['full, first time: queued in status, look again', ready, 'full', ['updateStatus', 'wakeAt'], Phase.Held],
    ['full, already queued: no write, look again', queued, 'full', ['wakeAt'], undefined],
    ['unavailable: as full', ready, 'unavailable', ['updateStatus', 'wakeAt'], Phase.Held],
  ])('%s', (_n, status, outcome, want, phase) => {
    const actions = afterScope(view, status, job, outcome, T0);
    expect(types(actions)).toEqual(want);
    expect(written(actions)?.status.phase).toBe(phase);
  });

  test('the launch recorded (as the record pass writes it) says Creating and stops WAITED', () => {
    const status = launchingStatus(ready, view, T0, view.generation);
    expect(status).toMatchObject({ jobName: view.jobName, waitedSeconds: 60, launchedAt: iso(T0), phase: Phase.Running });
    expect(status.waitingSince).toBeUndefined();
    expect(status.conditions?.find((c) => c.type === 'Launched')).toMatchObject({ status: 'Unknown', reason: 'Creating' });
  });
});

describe('afterCreate', () => {
  test.each<[string, CreateOutcome, string[], Phase | undefined, string | undefined]>([
    ['created: its record left to a pass of its own (the lane that yields)', { kind: 'created' }, ['recordLater'], undefined, undefined],
    ['existed (a retried create that had landed): the same', { kind: 'existed' }, ['recordLater'], undefined, undefined],
    [
      'the name taken by another: Failed JobRejected, slot back, finalizer off',
      { kind: 'nameTaken' },
      ['releaseScope', 'updateStatus', 'setFinalizers'],
      Phase.Failed,
      FailureReason.JobRejected,
    ],
    [
      'invalid (422): Failed JobRejected',
      { kind: 'createFailed', code: 422, message: 'spec.template.spec.containers: Required value' },
      ['releaseScope', 'updateStatus', 'setFinalizers'],
      Phase.Failed,
      FailureReason.JobRejected,
    ],
    [
      'forbidden by a quota (403): Failed JobRejected',
      { kind: 'createFailed', code: 403, message: 'exceeded quota' },
      ['releaseScope', 'updateStatus', 'setFinalizers'],
      Phase.Failed,
      FailureReason.JobRejected,
    ],
    [
      '503: slot back, back to Held, tried again',
      { kind: 'createFailed', code: 503, message: 'unavailable' },
      ['releaseScope', 'updateStatus', 'wakeAt'],
      Phase.Held,
      undefined,
    ],
    [
      'no answer: slot back, back to Held, tried again',
      { kind: 'createFailed', code: undefined, message: 'ETIMEDOUT' },
      ['releaseScope', 'updateStatus', 'wakeAt'],
      Phase.Held,
      undefined,
    ],
  ])('%s', (_n, outcome, want, phase, reason) => {
    const actions = afterCreate({ view, heldJob }, launching, ready, outcome, T0);
    expect(types(actions)).toEqual(want);
    expect(written(actions)?.status.phase).toBe(phase);
    expect(written(actions)?.status.reason).toBe(reason);
    // A hold that ended gives its place back for good (no sweep takes it back); one that tries
    // again gives it back only for now.
    expect(actions.filter((a) => a.type === 'releaseScope')).toEqual(
      want.includes('releaseScope') ? [{ type: 'releaseScope', scopeKey: view.scopeKey, ended: phase === Phase.Failed }] : [],
    );
  });

  test('a rejection is said in status and in a Warning Event, with the apiserver message', () => {
    const w = written(
      afterCreate({ view, heldJob }, launching, ready, { kind: 'createFailed', code: 422, message: 'containers: Required' }, T0),
    );
    expect(w?.status.message).toMatch(/422.*containers: Required/);
    expect(w?.event).toMatchObject({ type: 'Warning', reason: 'JobRejected' });
  });

  test('a passing failure is tried again after LAUNCH_RETRY_MS, said once', () => {
    const first = afterCreate({ view, heldJob }, launching, ready, { kind: 'createFailed', code: 503, message: 'x' }, T0);
    expect(first).toContainEqual({ type: 'wakeAt', at: T0 + LAUNCH_RETRY_MS });
    const again = afterCreate(
      { view, heldJob },
      launching,
      written(first)!.status,
      { kind: 'createFailed', code: 503, message: 'x' },
      T0 + 1,
    );
    expect(types(again)).toEqual(['releaseScope', 'wakeAt']);
  });
});

describe('afterDryRun: a job that can never be valid ends the hold at its first look', () => {
  const then: Action[] = [{ type: 'wakeAt', at: T0 + 1 }];
  test('valid or unknown: carry on', () => {
    expect(afterDryRun({ view, heldJob }, then, { kind: 'valid' }, T0)).toEqual(then);
    expect(afterDryRun({ view, heldJob }, then, { kind: 'unknown' }, T0)).toEqual(then);
  });
  test('invalid: Failed JobRejected', () => {
    const actions = afterDryRun({ view, heldJob }, then, { kind: 'invalid', code: 422, message: 'bad' }, T0);
    expect(written(actions)?.status).toMatchObject({ phase: Phase.Failed, reason: FailureReason.JobRejected });
  });
  test.each<[string, (message: string) => readonly Action[]]>([
    ['the dry run', (message) => afterDryRun({ view, heldJob }, then, { kind: 'invalid', code: 422, message }, T0)],
    ['the create', (message) => afterCreate({ view, heldJob }, launching, ready, { kind: 'createFailed', code: 422, message }, T0)],
  ])(
    'an apiserver message over 32 KiB from %s: the end is written with every message bounded, and the Event too is short',
    (_n, refuse) => {
      // What the apiserver answers a Job whose template carries a 40,000-character label value.
      const message = `Job.batch "web-7-deploy-1a2b3c" is invalid: spec.template.labels: Invalid value: "${'x'.repeat(40_000)}": must be no more than 63 characters`;
      const w = written(refuse(message));
      expect(w?.status).toMatchObject({ phase: Phase.Failed, reason: FailureReason.JobRejected });
      const texts = [w?.status.message, ...(w?.status.conditions ?? []).map((c) => c.message)].filter((t) => t !== undefined);
      expect(texts.length).toBeGreaterThan(1);
      for (const t of texts) expect(utf8Bytes(t)).toBeLessThanOrEqual(STATUS_TEXT_MAX_BYTES);
      expect(w?.status.message).toMatch(/^the apiserver refused the Job \(422\)|^the job can never be created \(422\)/);
      expect(w?.status.message).toMatch(/… \[cut from \d+ bytes\]$/);
      // The Event says the same (the adapter bounds what it sends; what it is told is the full text).
      expect(w?.event?.reason).toBe(FailureReason.JobRejected);
    },
  );
  test('decide asks for the dry run at the first hold only', () => {
    const waiting: Observed['heldJob'] = {
      ...heldJob,
      spec: { target: 'acme/web#7', trigger: 'deploy', job: { template: {} }, waitFor: [{ after: iso(T0 + 60_000) }] },
    };
    const o = (status?: HeldJobStatus): Observed => ({
      heldJob: { ...waiting, ...(status ? { status } : {}) },
      view: viewOf(waiting),
      job: undefined,
      config: {
        afterMaxMs: 86_400_000,
        intervalMs: 60_000,
        maxMs: 86_400_000,
        maxChecks: 96,
        maxFaults: 5,
        pauseWindows: [],
        finishedTtlMs: 0,
      },
      profiles: { state: 'ok', profiles: new Map() },
      triggers: { state: 'missing' },
    });
    expect(types(decide(o(), T0))).toEqual(['dryRunJob']);
    expect(types(decide(o({ phase: Phase.Held, heldSince: iso(T0) }), T0))).not.toContain('dryRunJob');
  });
});

describe('afterJobRead: a Running hold whose Job is not in the informer', () => {
  const observed = (status: HeldJobStatus, lastJob?: ObservedJob): Observed & { view: typeof view } => ({
    heldJob: { ...heldJob, status },
    view,
    job: undefined,
    lastJob,
    config: { afterMaxMs: 1, intervalMs: 1, maxMs: 1, maxChecks: 1, maxFaults: 1, pauseWindows: [], finishedTtlMs: 0 },
    profiles: { state: 'ok', profiles: new Map() },
    triggers: { state: 'missing' },
  });
  test.each<[string, HeldJobStatus, JobRead, ObservedJob | undefined, string[], Phase | undefined, RegExp | undefined]>([
    ['the apiserver has it: look again soon', running, { kind: 'present' }, undefined, ['wakeAt'], undefined, undefined],
    ['the read failed: look again later', running, { kind: 'unknown', message: 'x' }, undefined, ['wakeAt'], undefined, undefined],
    [
      'gone, created: Failed JobMissing, slot back',
      running,
      { kind: 'gone' },
      undefined,
      ['releaseScope', 'updateStatus', 'setFinalizers'],
      Phase.Failed,
      /gone before it finished/,
    ],
    [
      'gone, its creation never recorded but the informer saw it (fence taken off by hand): Failed JobMissing, never created again',
      launching,
      { kind: 'gone' },
      { name: view.jobName, outcome: JobOutcome.Active },
      ['releaseScope', 'updateStatus', 'setFinalizers'],
      Phase.Failed,
      /never runs twice/,
    ],
    [
      'recorded, never seen, not there: the fence would have kept it, so the create never landed; the launch goes on',
      launching,
      { kind: 'gone' },
      undefined,
      ['acquireScope'],
      undefined,
      undefined,
    ],
    [
      'gone after it succeeded (its TTL): Succeeded, as its last state said',
      running,
      { kind: 'gone' },
      { name: view.jobName, outcome: JobOutcome.Succeeded },
      ['releaseScope', 'updateStatus', 'setFinalizers'],
      Phase.Succeeded,
      undefined,
    ],
  ])('%s', (_n, status, read, last, want, phase, message) => {
    const actions = afterJobRead(observed(status, last), read, T0);
    expect(types(actions)).toEqual(want);
    expect(written(actions)?.status.phase).toBe(phase);
    if (message) expect(written(actions)?.status.message).toMatch(message);
    if (read.kind === 'present') expect(actions).toContainEqual({ type: 'wakeAt', at: T0 + JOB_READ_AGAIN_MS });
    if (types(actions)[0] === 'acquireScope') {
      const [acquire] = actions as [Extract<(typeof actions)[number], { type: 'acquireScope' }>];
      // The same Job, under its one name; the record is written again from a cleared hold.
      expect(acquire.job.metadata?.name).toBe(view.jobName);
      expect(acquire.ready.phase).toBe(Phase.Held);
      expect(acquire.ready.conditions?.some((c) => c.type === 'Launched')).toBe(false);
    }
  });
});

describe('afterJobRead: the spec no longer reads', () => {
  const unreadable: Observed['heldJob'] = {
    ...heldJob,
    spec: { target: 'acme/web#7', trigger: 'deploy', job: { template: {} }, note: 'x' },
  };
  const observed = (status: HeldJobStatus, lastJob?: ObservedJob): Observed => {
    const hj = { ...unreadable, status };
    return {
      heldJob: hj,
      view: viewOf(hj),
      job: undefined,
      lastJob,
      config: { afterMaxMs: 1, intervalMs: 1, maxMs: 1, maxChecks: 1, maxFaults: 1, pauseWindows: [], finishedTtlMs: 0 },
      profiles: { state: 'ok', profiles: new Map() },
      triggers: { state: 'missing' },
    };
  };
  test('recorded, never created: it cannot be built, so it never is; Refused wait-unreadable, nothing launched, the slot back', () => {
    const actions = afterJobRead(observed(launching), { kind: 'gone' }, T0);
    expect(types(actions)).toEqual(['releaseScope', 'updateStatus', 'setFinalizers']);
    expect(actions[0]).toEqual({ type: 'releaseScope', scopeKey: 'ns/team-a:acme/web', ended: true });
    const s = written(actions)?.status;
    expect(s).toMatchObject({ phase: Phase.Refused, reason: 'wait-unreadable' });
    expect(s?.message).toMatch(/Unrecognized key: "note".*before its Job was created/);
    expect(s?.launchedAt).toBeUndefined();
    expect(s?.scope).toBeUndefined();
    expect(s?.conditions?.some((c) => c.type === 'Launched')).toBe(false);
  });
  test('created and gone: Failed JobMissing as with any spec', () => {
    const actions = afterJobRead(observed(running), { kind: 'gone' }, T0);
    expect(written(actions)?.status).toMatchObject({ phase: Phase.Failed, reason: FailureReason.JobMissing });
  });
  test('gone after it ended: the end it had', () => {
    const ended = afterJobRead(observed(running, { name: view.jobName, outcome: JobOutcome.Failed }), { kind: 'gone' }, T0);
    expect(written(ended)?.status.phase).toBe(Phase.Failed);
    expect(written(ended)?.status.reason).toBeUndefined();
  });
});

describe('the launch records its scope', () => {
  test('launchingStatus writes the scope the slot was taken in; unrecorded takes it off again', () => {
    expect(launching.scope).toBe('ns/team-a:acme/web');
    expect(launchingStatus(ready, { jobName: 'j', scopeKey: undefined }, T0, 1).scope).toBeUndefined();
    expect(unrecorded(launching).scope).toBeUndefined();
  });
});

describe('isNeverValid', () => {
  test.each<[number | undefined, boolean]>([
    [undefined, false],
    [400, true],
    [403, false],
    [408, false],
    [409, false],
    [422, true],
    [429, false],
    [500, false],
    [503, false],
  ])('%s: never valid %s', (code, never) => {
    expect(isNeverValid(code)).toBe(never);
  });
});
