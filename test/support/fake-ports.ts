// Fakes of the controller's ports (operator/controller/ports.ts), for the executor's table
// tests. Each records what it was asked, in one shared journal, so a test can say in which
// order the executor did its I/O.
import type * as k8s from '@kubernetes/client-node';
import { pino } from 'pino';
import type { HeldJobObject, HeldJobStatus } from '../../api/heldjob-schema.js';
import type { Profile } from '../../api/profiles.js';
import type { HoldOutcome, RefusalToken } from '../../api/vocabulary.js';
import type { CheckRun, CreateOutcome, DryRunOutcome, EventSpec, JobRead } from '../../operator/decide/actions.js';
import type { DecideConfig, ProfilesView, TriggersView } from '../../operator/decide/observed.js';
import type { HeldJob } from '../../operator/controller/ports.js';
import type { ReconcilerDeps } from '../../operator/controller/reconciler.js';

export class ApiError extends Error {
  constructor(readonly code: number) {
    super(`HTTP ${code}`);
  }
}

export interface FakeWorld {
  readonly journal: string[];
  /** Keys whose pass the reconciler said had ended (CheckGate.passEnded), in order. */
  readonly passesEnded: string[];
  heldJob: HeldJob | undefined;
  job: k8s.V1Job | undefined;
  now: number;
  scope: 'acquired' | 'full' | 'unavailable';
  create: CreateOutcome;
  dryRun: DryRunOutcome;
  /** What a direct read of the Job finds. */
  read: JobRead;
  /** The Job's last state before the informer saw it deleted. */
  lastJob: k8s.V1Job | undefined;
  check: CheckRun;
  /** The next status write fails with this HTTP code (409: someone wrote first). */
  failStatusWith: number | undefined;
  profiles: ProfilesView;
  triggers: TriggersView;
  readonly statuses: HeldJobStatus[];
  readonly events: EventSpec[];
  readonly created: k8s.V1Job[];
  readonly wakes: number[];
  readonly refusals: RefusalToken[];
  /** Hold ends the executor counted (waitgate_hold_duration_seconds), in order. */
  readonly holdEnds: { outcome: HoldOutcome; seconds: number }[];
  /** Keys the executor queued another pass for (a Job created, its record to follow). */
  readonly requeued: string[];
}

export function fakeWorld(over: Partial<FakeWorld> = {}): FakeWorld {
  return {
    journal: [],
    passesEnded: [],
    heldJob: undefined,
    job: undefined,
    now: 0,
    scope: 'acquired',
    create: { kind: 'created' },
    dryRun: { kind: 'valid' },
    read: { kind: 'gone' },
    lastJob: undefined,
    check: { kind: 'cancelled' },
    failStatusWith: undefined,
    profiles: { state: 'ok', profiles: new Map() },
    triggers: { state: 'missing' },
    statuses: [],
    events: [],
    created: [],
    wakes: [],
    refusals: [],
    holdEnds: [],
    requeued: [],
    ...over,
  };
}

let resourceVersion = 1;
const bump = (hj: HeldJob, patch: Partial<HeldJob>): HeldJob => ({
  ...hj,
  ...patch,
  metadata: { ...hj.metadata, ...(patch.metadata ?? {}), resourceVersion: String(++resourceVersion) },
});

/** ReconcilerDeps whose every port is backed by the world `w`. */
export function fakeDeps(w: FakeWorld, config: DecideConfig): ReconcilerDeps {
  const log = (entry: string) => w.journal.push(entry);
  return {
    heldJobs: { get: () => w.heldJob },
    jobs: { get: () => w.job, lastSeen: () => w.lastJob },
    writer: {
      writeStatus: async (hj: HeldJobObject, status: HeldJobStatus) => {
        if (w.failStatusWith !== undefined) {
          const code = w.failStatusWith;
          w.failStatusWith = undefined;
          log(`writeStatus:failed ${code}`);
          throw new ApiError(code);
        }
        log(`writeStatus:${status.phase ?? ''}`);
        w.statuses.push(status);
        w.heldJob = bump(hj, { status });
        return w.heldJob;
      },
      setFinalizers: async (hj: HeldJob, finalizers: readonly string[]) => {
        log(`setFinalizers:${finalizers.join(',')}`);
        w.heldJob = bump(hj, { metadata: { ...hj.metadata, finalizers: [...finalizers] } });
        return w.heldJob;
      },
      recordEvent: async (_hj: HeldJobObject, event: EventSpec) => {
        log(`event:${event.reason}`);
        w.events.push(event);
      },
      delete: async (hj: HeldJobObject) => {
        log(`deleteHeldJob:${hj.metadata.uid}@${hj.metadata.resourceVersion ?? ''}`);
        w.heldJob = undefined;
      },
    },
    launcher: {
      create: async (job: k8s.V1Job) => {
        log(`create:${w.create.kind}`);
        if (w.create.kind === 'created') w.created.push(job);
        return w.create;
      },
      dryRun: async () => {
        log(`dryRun:${w.dryRun.kind}`);
        return w.dryRun;
      },
      read: async () => {
        log(`readJob:${w.read.kind}`);
        return w.read;
      },
      delete: async (name: string) => {
        log(`deleteJob:${name}`);
      },
      unfence: async (name: string) => {
        log(`unfenceJob:${name}`);
      },
    },
    scope: {
      acquire: async () => {
        log(`acquireScope:${w.scope}`);
        return w.scope;
      },
      hold: async () => {
        log('holdScope');
      },
      release: async () => {
        log('releaseScope');
      },
    },
    checks: {
      run: async (_key: string, profile: Profile) => {
        log(`runCheck:${profile.name}`);
        return w.check;
      },
      cancel: () => log('cancelCheck'),
      passEnded: (key: string) => {
        w.passesEnded.push(key);
      },
    },
    markers: {
      leave: async () => {
        log('leaveMarker');
      },
    },
    views: { profiles: () => w.profiles, triggers: () => w.triggers },
    metrics: {
      refused: (token) => {
        w.refusals.push(token);
      },
      afterLateness: () => undefined,
      scopeDeferred: () => log('metric:scopeDeferred'),
      holdEnded: (outcome, seconds) => {
        w.holdEnds.push({ outcome, seconds });
      },
    },
    waker: {
      schedule: (_key, at) => {
        log('wake');
        w.wakes.push(at);
      },
      cancel: () => log('cancelWake'),
    },
    clock: { now: () => w.now },
    random: () => 0,
    config,
    log: pino({ level: 'silent' }),
    requeue: (key) => {
      log('requeue');
      w.requeued.push(key);
    },
  };
}
