// What the decisions see: the HeldJob parsed once, its Job, the ConfigMaps, the settings.
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import type { PauseWindow } from '../../api/pause-windows.js';
import type { Profile } from '../../api/profiles.js';
import type { Trigger } from '../../api/triggers/types.js';
import type { ReportSettings } from './report.js';
import type { HeldJobView } from './view.js';

/** What the Job informer knows of the HeldJob's Job. */
export const JobOutcome = { Active: 'Active', Succeeded: 'Succeeded', Failed: 'Failed' } as const;
export type JobOutcome = (typeof JobOutcome)[keyof typeof JobOutcome];

export interface ObservedJob {
  readonly name: string;
  readonly outcome: JobOutcome;
  /** Why a failed Job failed, when the Job says (BackoffLimitExceeded, DeadlineExceeded, ...). */
  readonly failureReason?: string;
  /** It still carries the launch finalizer (JOB_LAUNCH_FINALIZER). */
  readonly fenced?: boolean;
}

export interface DecideConfig {
  /** The furthest an `after` may lie beyond the HeldJob's creation. */
  readonly afterMaxMs: number;
  readonly intervalMs: number;
  readonly maxMs: number;
  readonly maxChecks: number;
  readonly maxFaults: number;
  readonly pauseWindows: readonly PauseWindow[];
  /** What is reported to the forges; unset: nothing (no forge credentials). */
  readonly reports?: ReportSettings | undefined;
  /** How long a finished HeldJob is kept after status.finishedAt; 0 keeps it. */
  readonly finishedTtlMs: number;
}

/** The profiles ConfigMap as the operator last read it. */
export type ProfilesView =
  { readonly state: 'ok'; readonly profiles: ReadonlyMap<string, Profile> } | { readonly state: 'unreadable'; readonly problem: string };

/**
 * The triggers ConfigMap as the operator last read it: which triggers say wait, and each
 * declared trigger (a receiver-made HeldJob is bound to its own: api/trigger-binding.ts).
 */
export type TriggersView =
  | { readonly state: 'ok'; readonly waits: ReadonlyMap<string, boolean>; readonly declared: ReadonlyMap<string, Trigger> }
  | { readonly state: 'missing' }
  | { readonly state: 'unreadable'; readonly problem: string };

/** The HeldJob a pass decides about, as read (api/heldjob-schema.ts). */
export type ObservedHeldJob = HeldJobObject;

export interface Observed {
  readonly heldJob: ObservedHeldJob;
  /** The HeldJob's spec, read once for this pass. */
  readonly view: HeldJobView;
  /** The HeldJob's own Job, if the Job informer has one (a Job of that name owned by another is not it). */
  readonly job: ObservedJob | undefined;
  /** The Job's last state when the informer saw it deleted (kept a while), if it was. */
  readonly lastJob?: ObservedJob | undefined;
  readonly config: DecideConfig;
  readonly profiles: ProfilesView;
  readonly triggers: TriggersView;
}
