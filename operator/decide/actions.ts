// What the decisions may ask for, and the outcomes the executor hands back. The executor
// carries each action out, in order, and decides nothing.
import type * as k8s from '@kubernetes/client-node';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import type { Profile } from '../../api/profiles.js';
import type { EventReason, EventType, RefusalToken } from '../../api/vocabulary.js';
import type { CheckResult } from './record-check.js';
import type { ReportRequest } from './report.js';

export interface EventSpec {
  readonly type: EventType;
  readonly reason: EventReason | RefusalToken;
  readonly message: string;
}

export type Action =
  /** Write this whole status (then record the event, count the refusal). */
  | { readonly type: 'updateStatus'; readonly status: HeldJobStatus; readonly event?: EventSpec; readonly refusal?: RefusalToken }
  /** Record an Event on the HeldJob. */
  | { readonly type: 'event'; readonly event: EventSpec }
  /** Replace metadata.finalizers with this list. */
  | { readonly type: 'setFinalizers'; readonly finalizers: readonly string[] }
  /**
   * Take the scope slots (overall and per scope key). The outcome goes back to afterScope()
   * with `ready`, the status every condition cleared into.
   */
  | { readonly type: 'acquireScope'; readonly job: k8s.V1Job; readonly scopeKey: string; readonly ready: HeldJobStatus }
  /**
   * Create this Job (the launch is already recorded in status). The outcome goes back to
   * afterCreate() with `ready`, the status to return to if the create is to be tried again.
   */
  | { readonly type: 'createJob'; readonly job: k8s.V1Job; readonly scopeKey: string; readonly ready: HeldJobStatus }
  /**
   * Ask the apiserver whether this Job could be created at all (a server-side dry run). If it
   * could, or if no answer came, carry on with `then`; the outcome goes back to afterDryRun().
   * A pass of the same `reuseKey` (dryRunKey) in the last minute may answer for it.
   */
  | { readonly type: 'dryRunJob'; readonly job: k8s.V1Job; readonly reuseKey: string; readonly then: readonly Action[] }
  /**
   * The Job is not in the informer: read it from the apiserver itself before calling it gone.
   * The outcome goes back to afterJobRead().
   */
  | { readonly type: 'readJob'; readonly jobName: string }
  /**
   * A cancel of a hold that may have created its Job, which the informer does not have (its
   * watch may lag behind the create): read the Job from the apiserver itself before the
   * finalizer comes off. The outcome goes back to afterCancelRead().
   */
  | { readonly type: 'readJobToCancel'; readonly jobName: string }
  /**
   * A pending hold a newer delivery superseded (api/superseded-hold.ts): read its Job from the
   * apiserver itself before ending it, as a Job created just before may not be in the informer
   * yet. The outcome goes back to afterSupersedeRead().
   */
  | { readonly type: 'readJobToSupersede'; readonly jobName: string; readonly by: string }
  /**
   * The Job was created (or found created) and is fenced until its creation is recorded: that
   * record, the Event and the fence removal follow in a pass of their own, in the lane that
   * yields to launches (writes users read never hold up writes that start work).
   */
  | { readonly type: 'recordLater'; readonly jobName: string; readonly scopeKey: string }
  /** Take the launch finalizer off the Job: its creation is recorded, so it may go when deleted. */
  | { readonly type: 'unfenceJob'; readonly jobName: string }
  /** Give back the scope slots (idempotent). */
  /** `ended`: the hold is over or gone (its place is never taken back); else given back while a launch waits to be tried again. */
  | { readonly type: 'releaseScope'; readonly scopeKey: string; readonly ended: boolean }
  /** Delete the running Job (a cancel). */
  | { readonly type: 'deleteJob'; readonly jobName: string }
  /**
   * Run one profile check under a check slot; its outcome goes back to afterCheck(), which
   * records it on `basis`: the status as this pass would have written it before the check
   * (the first hold, the round's start), so the check's start and its answer are one write.
   */
  | { readonly type: 'runCheck'; readonly profile: Profile; readonly target: string; readonly basis: HeldJobStatus }
  /** Leave the marker that refuses a second delivery for 15 minutes (wait-superseded). */
  | { readonly type: 'leaveMarker'; readonly trigger: string; readonly target: string }
  /** How late the operator woke for an `after` instant. */
  | { readonly type: 'observeAfterLateness'; readonly ms: number }
  /**
   * Delete the finished HeldJob (its time to live is up), only if it is still the object this
   * pass read (uid and resourceVersion); its Job goes with it through the owner reference.
   */
  | { readonly type: 'deleteHeldJob'; readonly finishedTtlMs: number }
  /** Look at this HeldJob again at this instant (epoch ms). */
  | { readonly type: 'wakeAt'; readonly at: number }
  /** Tell the forge about a transition; done beside the launch path, never awaited by it. */
  | { readonly type: 'report'; readonly report: ReportRequest };

/** How taking the scope slots went. */
export type ScopeOutcome = 'acquired' | 'full' | 'unavailable';

/** How a Job create ended, as the apiserver said it. */
export type CreateOutcome =
  | { readonly kind: 'created' }
  /** A Job of this name owned by this HeldJob already exists: launched before. */
  | { readonly kind: 'existed' }
  /** A Job of this name exists and belongs to something else. */
  | { readonly kind: 'nameTaken' }
  /** The apiserver answered the create with an error (code undefined: no answer at all). */
  | { readonly kind: 'createFailed'; readonly code: number | undefined; readonly message: string };

/** What a server-side dry-run create said. */
export type DryRunOutcome =
  | { readonly kind: 'valid' }
  | { readonly kind: 'invalid'; readonly code: number | undefined; readonly message: string }
  /** No answer, or one that may change (429, 5xx, 403 from a quota that may free up). */
  | { readonly kind: 'unknown' };

/** What a direct read of the Job found. */
export type JobRead =
  | { readonly kind: 'present' }
  | { readonly kind: 'gone' }
  /** The read itself failed: nothing can be said yet. */
  | { readonly kind: 'unknown'; readonly message: string };

/** How a profile check went. */
export type CheckRun =
  | { readonly kind: 'answered'; readonly result: CheckResult }
  /** Every check slot of the fleet is taken. */
  | { readonly kind: 'denied' }
  /** Valkey cannot be reached: nothing that needs a slot runs, and nothing is counted. */
  | { readonly kind: 'unavailable' }
  /** Cancelled (the HeldJob is being deleted). */
  | { readonly kind: 'cancelled' }
  /**
   * The check Pod was refused at admission: the profile names a Secret not labelled for checks
   * (api/check-secrets.ts). A configuration slip: the hold pauses, nothing is counted.
   */
  | { readonly kind: 'misconfigured'; readonly profile: string; readonly secret: string; readonly message: string };
