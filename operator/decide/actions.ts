// What decide() may ask for. The reconciler carries each out, in order.
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import type { Profile } from '../../api/profiles.js';
import type { RefusalToken } from '../../api/vocabulary.js';

export interface EventSpec {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export type Action =
  /** Write this whole status (and record the event, the refusal metric). */
  | { readonly type: 'updateStatus'; readonly status: HeldJobStatus; readonly event?: EventSpec; readonly refusal?: RefusalToken }
  /** Record an Event on the HeldJob. */
  | { readonly type: 'event'; readonly event: EventSpec }
  | { readonly type: 'addFinalizer' }
  | { readonly type: 'removeFinalizer' }
  /**
   * Take the scope slots (overall and per scope key), then create the Job. When the scope is
   * full, write `queuedStatus` (once) and stop here; the reconciler looks again shortly.
   */
  | { readonly type: 'launch'; readonly jobName: string; readonly scopeKey: string; readonly queuedStatus: HeldJobStatus }
  /** Give back the scope slots (idempotent). */
  | { readonly type: 'releaseScope'; readonly scopeKey: string }
  /** Delete the running Job (a cancel). */
  | { readonly type: 'deleteJob'; readonly jobName: string }
  /** Run one profile check (taking a check slot first); its answer goes through recordCheck. */
  | { readonly type: 'runCheck'; readonly profile: Profile; readonly target: string }
  /** Leave the marker that refuses a second delivery for 15 minutes (wait-superseded). */
  | { readonly type: 'leaveMarker'; readonly trigger: string; readonly target: string }
  /** How late the operator woke for an `after` instant. */
  | { readonly type: 'observeAfterLateness'; readonly ms: number }
  /** Look at this HeldJob again at this instant (epoch ms). */
  | { readonly type: 'wakeAt'; readonly at: number };
