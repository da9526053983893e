// What the decisions may ask for, and the outcomes the executor hands back. The executor
// carries each action out, in order, and decides nothing.
import type * as k8s from '@kubernetes/client-node';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import type { Profile } from '../../api/profiles.js';
import type { EventReason, EventType, RefusalToken } from '../../api/vocabulary.js';
import type { CheckResult } from './record-check.js';

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
   * Take the scope slots (overall and per scope key), then create this Job. Its outcome goes
   * back to afterLaunch() with `ready`, the status every condition cleared into.
   */
  | { readonly type: 'launch'; readonly job: k8s.V1Job; readonly scopeKey: string; readonly ready: HeldJobStatus }
  /** Give back the scope slots (idempotent). */
  | { readonly type: 'releaseScope'; readonly scopeKey: string }
  /** Delete the running Job (a cancel). */
  | { readonly type: 'deleteJob'; readonly jobName: string }
  /** Run one profile check under a check slot; its outcome goes back to afterCheck(). */
  | { readonly type: 'runCheck'; readonly profile: Profile; readonly target: string }
  /** Leave the marker that refuses a second delivery for 15 minutes (wait-superseded). */
  | { readonly type: 'leaveMarker'; readonly trigger: string; readonly target: string }
  /** How late the operator woke for an `after` instant. */
  | { readonly type: 'observeAfterLateness'; readonly ms: number }
  /** Look at this HeldJob again at this instant (epoch ms). */
  | { readonly type: 'wakeAt'; readonly at: number };

/** How a launch went: the scope slots, then the create. */
export type LaunchOutcome =
  | { readonly kind: 'created' }
  /** A Job of this name owned by this HeldJob already exists: launched before. */
  | { readonly kind: 'existed' }
  /** Every scope slot (overall or for this repository) is taken. */
  | { readonly kind: 'scopeFull' }
  /** Valkey cannot be reached for the scope slots. */
  | { readonly kind: 'scopeUnavailable' }
  /** A Job of this name exists and belongs to something else. */
  | { readonly kind: 'nameTaken' }
  /** The apiserver answered the create with an error (code undefined: no answer at all). */
  | { readonly kind: 'createFailed'; readonly code: number | undefined; readonly message: string };

/** How a profile check went. */
export type CheckRun =
  | { readonly kind: 'answered'; readonly result: CheckResult }
  /** Every check slot of the fleet is taken. */
  | { readonly kind: 'denied' }
  /** Valkey cannot be reached: nothing that needs a slot runs, and nothing is counted. */
  | { readonly kind: 'unavailable' }
  /** Cancelled (the HeldJob is being deleted). */
  | { readonly kind: 'cancelled' };
