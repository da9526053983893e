// The ports of the controller: the small interfaces its executor does its I/O through. The
// adapters implement them; the tests' fakes (test/support/fakes.ts) implement them too.
import type * as k8s from '@kubernetes/client-node';
import type { HeldJobObject, HeldJobStatus } from '../../api/heldjob-schema.js';
import type { Profile } from '../../api/profiles.js';
import type { HoldOutcome, RefusalToken } from '../../api/vocabulary.js';
import type { CheckRun, CreateOutcome, DryRunOutcome, EventSpec, JobRead } from '../decide/actions.js';
import type { ProfilesView, TriggersView } from '../decide/observed.js';
import type { ReportRequest } from '../decide/report.js';

/** A HeldJob as the informer and the writes give it back (api/heldjob-schema.ts). */
export type HeldJob = HeldJobObject;

export interface HeldJobSource {
  get(name: string, namespace: string): HeldJob | undefined;
}
export interface JobSource {
  get(name: string, namespace: string): k8s.V1Job | undefined;
  /** The last state of a Job the informer saw deleted, kept a while: how it ended, if it had. */
  lastSeen(name: string, namespace: string): k8s.V1Job | undefined;
}
/** Writes fail with 409 when the HeldJob changed since it was read. */
export interface HeldJobWriter {
  writeStatus(heldJob: HeldJobObject, status: HeldJobStatus): Promise<HeldJob>;
  setFinalizers(heldJob: HeldJob, finalizers: readonly string[]): Promise<HeldJob>;
  recordEvent(heldJob: HeldJobObject, event: EventSpec, now: number): Promise<void>;
  /**
   * Deletes this very HeldJob (preconditions: its uid and resourceVersion; 409 when it changed
   * or was made again), its dependents in the background. One already gone is fine.
   */
  delete(heldJob: HeldJobObject): Promise<void>;
}
/** The Job API as the executor uses it. Never throws for an API error: outcomes are data. */
export interface JobLauncher {
  create(job: k8s.V1Job, ownerUid: string): Promise<CreateOutcome>;
  /** A server-side dry-run create. */
  /** `reuseKey`: a pass of the same key may answer for this one for a while (dryRunKey). */
  dryRun(job: k8s.V1Job, reuseKey: string): Promise<DryRunOutcome>;
  /** A read from the apiserver itself, past any cache. */
  read(name: string, namespace: string, ownerUid: string): Promise<JobRead>;
  /** Takes the launch finalizer off the Job; a Job already gone is fine. */
  unfence(name: string, namespace: string): Promise<void>;
  delete(name: string, namespace: string): Promise<void>;
}
export interface ScopeSlots {
  acquire(scopeKey: string, holder: string): Promise<'acquired' | 'full' | 'unavailable'>;
  /**
   * The launch is recorded (the hold is Running): its place now belongs to the running hold, no
   * longer to a lease that lapses in minutes, until release(). Idempotent.
   */
  hold(scopeKey: string, holder: string): Promise<void>;
  /**
   * Gives the place back. `ended`: the hold is over or gone for good, and no sweep may take its
   * place back afterwards; otherwise it is given back only while its launch waits to be tried again.
   */
  release(scopeKey: string, holder: string, ended: boolean): Promise<void>;
}
export interface CheckGate {
  run(key: string, profile: Profile, target: string): Promise<CheckRun>;
  cancel(key: string): void;
  /** A pass over `key` has ended, whether or not it ran a check (a place kept for it may go). */
  passEnded?(key: string): void;
}
export interface Markers {
  leave(trigger: string, target: string, heldJob: string): Promise<void>;
}
export interface Views {
  profiles(): ProfilesView;
  triggers(): TriggersView;
}
export interface GateMetrics {
  refused(token: RefusalToken): void;
  afterLateness(ms: number): void;
  scopeDeferred(): void;
  /** A hold ended (operator/decide/hold-end.ts): once per HeldJob, at the write that recorded it. */
  holdEnded(outcome: HoldOutcome, seconds: number): void;
}
export interface Waker {
  schedule(key: string, at: number): void;
  cancel(key: string): void;
}
/** Takes a forge report and posts it in the background: never blocks, never throws. */
export interface ReportSink {
  submit(report: ReportRequest): void;
}
