// The shapes a loaded triggers file has, and the shape of a refusal.
import type { WaitCondition } from '../heldjob-schema.js';
import type { TriggerRefusalCode } from './refusal-codes.js';

export interface TriggerRefusal {
  /** The trigger's name when it has a usable one, else `#<index>` (0-based); `(file)` for the file itself. */
  readonly where: string;
  /** A JSON path into the file, such as `$[2].run.waitFor[1].after`. */
  readonly path: string;
  readonly code: TriggerRefusalCode;
  /** Plain English: what is wrong and why it matters. */
  readonly message: string;
}

export interface LabelOn {
  readonly type: 'label';
  readonly any: readonly string[];
  /** Fires at most once per target: a later delivery for the same target is answered once-spent. */
  readonly once?: boolean;
  /**
   * The repositories it fires for, as written: names and globs (api/triggers/repositories.ts).
   * Absent: every repository whose deliveries reach the receiver.
   */
  readonly repositories?: readonly string[];
}

export interface TriggerRun {
  readonly kind: string;
  readonly flow: string;
  /** The Job runs this many Pods at once, each with its completion index (api/triggers/job-spec.ts). */
  readonly replicas?: number;
  readonly waitFor?: readonly WaitCondition[];
  /**
   * Pin the commit the labeller saw: the hold records it (spec.revision) and the Job is told it
   * (WAITGATE_REVISION), so whoever clears the conditions later does not choose the commit.
   */
  readonly pinRevision?: boolean;
  /** A batch/v1 JobSpec, checked only for a `template` object; the apiserver checks the rest. */
  readonly job: Record<string, unknown> & { template: Record<string, unknown> };
  /** Keys this version does not know are kept, for forward compatibility. */
  readonly [extra: string]: unknown;
}

export interface Trigger {
  readonly name: string;
  /** Only label triggers load: a cron trigger is refused (trigger-cron). */
  readonly on: LabelOn;
  readonly run: TriggerRun;
}

export type TriggersCheck =
  { readonly ok: true; readonly triggers: readonly Trigger[] } | { readonly ok: false; readonly refusals: readonly TriggerRefusal[] };

/** A refusal before it is attributed to a trigger. */
export type PathRefusal = Omit<TriggerRefusal, 'where'>;
