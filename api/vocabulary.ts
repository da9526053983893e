// Closed vocabularies of waitgate. Every switch over one of these is exhaustive.

export const API_GROUP = 'waitgate.dev';
export const API_VERSION = 'v1alpha1';
export const HELDJOB_KIND = 'HeldJob';
export const HELDJOB_PLURAL = 'heldjobs';
export const HELDJOB_SINGULAR = 'heldjob';
export const HELDJOB_SHORT_NAMES = ['hj'] as const;
/** On the operator's leader Lease: the version of the replica that holds it (`waitgate version` reads it). */
export const OPERATOR_VERSION_ANNOTATION = 'waitgate.dev/operator-version';
/** The record that a `once` trigger fired for a target (receiver/delivery/once.ts). */
export const ONCE_RECORD_KIND = 'OnceRecord';
export const ONCE_RECORD_PLURAL = 'oncerecords';
export const ONCE_RECORD_SINGULAR = 'oncerecord';

/** The life of a HeldJob. Succeeded, Failed and Refused are terminal. */
export const Phase = {
  Pending: 'Pending',
  Held: 'Held',
  Running: 'Running',
  Succeeded: 'Succeeded',
  Failed: 'Failed',
  Refused: 'Refused',
} as const;
export type Phase = (typeof Phase)[keyof typeof Phase];
export const PHASES = Object.values(Phase);

export function isTerminal(phase: Phase | undefined): boolean {
  switch (phase) {
    case undefined:
    case Phase.Pending:
    case Phase.Held:
    case Phase.Running:
      return false;
    case Phase.Succeeded:
    case Phase.Failed:
    case Phase.Refused:
      return true;
    default:
      return assertNever(phase);
  }
}

/** Refusal tokens, exactly the behaviour reference's. A refused HeldJob is never retried. */
export const RefusalToken = {
  Refused: 'wait-refused',
  Expired: 'wait-expired',
  Unanswerable: 'wait-unanswerable',
  ProfileUnknown: 'wait-profile-unknown',
  Superseded: 'wait-superseded',
  Skew: 'wait-skew',
  Unreadable: 'wait-unreadable',
  AfterBeyondMax: 'wait-after-beyond-max',
} as const;
export type RefusalToken = (typeof RefusalToken)[keyof typeof RefusalToken];
export const REFUSAL_TOKENS = Object.values(RefusalToken);

/**
 * Why a HeldJob Failed without its Job failing (status.reason when phase is Failed). A Job
 * that ran and failed leaves the reason empty; its own reason is in the message.
 */
export const FailureReason = {
  /** The apiserver refused the Job for good: invalid, forbidden (quota, admission), or its name taken by another. */
  JobRejected: 'JobRejected',
  /** The launch was recorded and its Job is not there: deleted, or never created after a crash. Never launched again. */
  JobMissing: 'JobMissing',
  /**
   * A HeldJob the receiver made names a trigger the triggers ConfigMap does not declare (or one
   * that does not fire for its forge and repository). Its Job is never created.
   */
  TriggerUndeclared: 'TriggerUndeclared',
  /**
   * A HeldJob the receiver made carries a Job, waits or revision pinning other than what the
   * receiver renders from its trigger (api/trigger-binding.ts). Its Job is never created.
   */
  JobNotTrigger: 'JobNotTrigger',
} as const;
export type FailureReason = (typeof FailureReason)[keyof typeof FailureReason];
export const FAILURE_REASONS = Object.values(FailureReason);

/** Types of the Kubernetes-style conditions in status.conditions. */
export const ConditionType = {
  /** True while the HeldJob waits on at least one wait condition. */
  Waiting: 'Waiting',
  /** True once the Job has been created. */
  Launched: 'Launched',
  /** True once the HeldJob has reached a terminal phase. */
  Finished: 'Finished',
  /** Whether the trigger entry in the triggers ConfigMap was compared with this HeldJob (wait-skew). */
  TriggerChecked: 'TriggerChecked',
  /**
   * The summary (docs/heldjobs.md, "Conditions"): True once the Job succeeded; False, with the
   * reason, while it waits or runs and when it failed or was refused.
   */
  Ready: 'Ready',
  /** kstatus: present and True while the HeldJob has not reached a terminal phase. */
  Reconciling: 'Reconciling',
  /** kstatus: present and True when it ended Failed or Refused; nothing more will happen. */
  Stalled: 'Stalled',
} as const;
export type ConditionType = (typeof ConditionType)[keyof typeof ConditionType];

/**
 * Reasons of the conditions in status.conditions, CamelCase as the API conventions ask. A
 * refusal's reason is its token's (REFUSAL_REASONS); the token itself stays in status.reason.
 */
export const ConditionReason = {
  // Waiting, True: why the HeldJob is not running yet.
  Paused: 'Paused',
  Held: 'Held',
  ProfilesUnreadable: 'ProfilesUnreadable',
  /** A check Pod was refused at admission: its profile names a Secret not labelled for checks. */
  CheckSecretRefused: 'CheckSecretRefused',
  NotYet: 'NotYet',
  CouldNotTell: 'CouldNotTell',
  /** An approval condition waits for a member of its group to say go (waitgate approve). */
  AwaitingApproval: 'AwaitingApproval',
  ScopeQueued: 'ScopeQueued',
  /** The create got no answer or a passing error (408, 429, 5xx): nothing is held, tried again. */
  LaunchRetrying: 'LaunchRetrying',
  // Waiting, False: it stopped waiting because every condition cleared.
  Cleared: 'Cleared',
  // Launched, True.
  JobCreated: 'JobCreated',
  // Launched, Unknown: the launch is recorded and the create is under way (never sent twice).
  Creating: 'Creating',
  // Launched, Unknown: the only condition left is an instant; at it the Job is created, nothing first.
  Armed: 'Armed',
  // Finished, True (besides Succeeded, Failed and the refusal tokens).
  Succeeded: 'Succeeded',
  Failed: 'Failed',
  OperatorCancel: 'OperatorCancel',
  JobRejected: 'JobRejected',
  JobMissing: 'JobMissing',
  TriggerUndeclared: 'TriggerUndeclared',
  JobNotTrigger: 'JobNotTrigger',
  // TriggerChecked: the wait-skew comparison with the trigger entry.
  Matches: 'Matches',
  Skew: 'Skew',
  TriggerNotInFile: 'TriggerNotInFile',
  TriggersMissing: 'TriggersMissing',
  TriggersUnreadable: 'TriggersUnreadable',
  // Ready False and Reconciling True while the Job runs.
  JobRunning: 'JobRunning',
  // Ready False, Reconciling True before the first hold is recorded.
  Pending: 'Pending',
  // Refused (Waiting False, Finished True, Ready False, Stalled True): one per refusal token.
  WaitRefused: 'WaitRefused',
  WaitExpired: 'WaitExpired',
  WaitUnanswerable: 'WaitUnanswerable',
  WaitProfileUnknown: 'WaitProfileUnknown',
  WaitSuperseded: 'WaitSuperseded',
  WaitSkew: 'WaitSkew',
  WaitUnreadable: 'WaitUnreadable',
  WaitAfterBeyondMax: 'WaitAfterBeyondMax',
} as const;
export type ConditionReason = (typeof ConditionReason)[keyof typeof ConditionReason];

/** The condition reason of each refusal token: the token is kebab-case, a reason CamelCase. */
export const REFUSAL_REASONS = {
  [RefusalToken.Refused]: ConditionReason.WaitRefused,
  [RefusalToken.Expired]: ConditionReason.WaitExpired,
  [RefusalToken.Unanswerable]: ConditionReason.WaitUnanswerable,
  [RefusalToken.ProfileUnknown]: ConditionReason.WaitProfileUnknown,
  [RefusalToken.Superseded]: ConditionReason.WaitSuperseded,
  [RefusalToken.Skew]: ConditionReason.WaitSkew,
  [RefusalToken.Unreadable]: ConditionReason.WaitUnreadable,
  [RefusalToken.AfterBeyondMax]: ConditionReason.WaitAfterBeyondMax,
} as const satisfies { readonly [T in RefusalToken]: ConditionReason };

/** Reasons of the Events recorded on a HeldJob (`kubectl describe` lists them). */
export const EventReason = {
  Refused: 'Refused',
  Launched: 'Launched',
  Succeeded: 'Succeeded',
  Failed: 'Failed',
  OperatorCancel: 'OperatorCancel',
  JobRejected: 'JobRejected',
  JobMissing: 'JobMissing',
  /** A receiver-made HeldJob names no declared trigger: failed, no Job (FailureReason.TriggerUndeclared). */
  TriggerUndeclared: 'TriggerUndeclared',
  /** A receiver-made HeldJob is not what its trigger renders: failed, no Job (FailureReason.JobNotTrigger). */
  JobNotTrigger: 'JobNotTrigger',
  LaunchRetrying: 'LaunchRetrying',
  /** A member of the approval group said go (Normal; the message names who). */
  Approved: 'Approved',
  CheckGo: 'CheckGo',
  CheckNotYet: 'CheckNotYet',
  CheckCouldNotTell: 'CheckCouldNotTell',
  CheckNever: 'CheckNever',
  ProfilesUnreadable: 'ProfilesUnreadable',
  /** A check Pod was refused at admission: its profile names a Secret not labelled for checks (Warning). */
  CheckSecretRefused: 'CheckSecretRefused',
  TriggerNotInFile: 'TriggerNotInFile',
  TriggersMissing: 'TriggersMissing',
  TriggersUnreadable: 'TriggersUnreadable',
  /** Reporting a transition to the forge failed for good (status.reports says why). */
  ForgeReportGaveUp: 'ForgeReportGaveUp',
  /** The spec changed after the launch or the end: nothing follows from it (the Job runs as launched). */
  SpecChangeIgnored: 'SpecChangeIgnored',
  /**
   * A running Job's scope place was lost (Valkey lost it, or it lapsed) and taken back over the
   * limit: more Jobs of its scope run than allowed, and none launches until the count is under it.
   */
  ScopeOvercommitted: 'ScopeOvercommitted',
} as const;
export type EventReason = (typeof EventReason)[keyof typeof EventReason];

export const EventType = { Normal: 'Normal', Warning: 'Warning' } as const;
export type EventType = (typeof EventType)[keyof typeof EventType];

/**
 * The forges a delivery comes from. Each has one module per program behind a table keyed by
 * this vocabulary (api/forges.ts, receiver/forges/index.ts, operator/forge/index.ts), so a
 * forge added here and missing from any of them is a type error.
 */
export const Forge = { GitHub: 'github', GitLab: 'gitlab', Azure: 'azure' } as const;
export type Forge = (typeof Forge)[keyof typeof Forge];
export const FORGES = Object.values(Forge);

/**
 * What a target is on its forge: `#` is an issue (on every forge; an Azure DevOps work item) or
 * a GitHub pull request; `!` a merge request (GitLab's, or an Azure DevOps pull request).
 * Which forge writes which is api/forges.ts's table.
 */
export const TargetKind = { Issue: 'issue', PullRequest: 'pull_request', MergeRequest: 'merge_request' } as const;
export type TargetKind = (typeof TargetKind)[keyof typeof TargetKind];
export const TARGET_KINDS = Object.values(TargetKind);

/** Labels and annotations waitgate puts on what it creates. */
export const Labels = {
  managedBy: 'app.kubernetes.io/managed-by',
  heldJob: 'waitgate.dev/heldjob',
  /** On the HeldJobs the receiver creates: hashes that find a delivery's siblings by label. */
  triggerHash: 'waitgate.dev/trigger-hash',
  targetHash: 'waitgate.dev/target-hash',
  forge: 'waitgate.dev/forge',
  /**
   * Who made a HeldJob: MADE_BY_RECEIVER on every HeldJob the receiver creates. Such a HeldJob
   * is bound to its trigger (api/trigger-binding.ts); one without it was written by hand.
   */
  madeBy: 'waitgate.dev/made-by',
} as const;
export const MANAGED_BY = 'waitgate';
/** The value of Labels.madeBy on the HeldJobs the receiver creates. */
export const MADE_BY_RECEIVER = 'receiver';

/** The finalizer that lets the operator release leases and stop a check before a HeldJob goes. */
export const FINALIZER = 'waitgate.dev/cleanup';

/**
 * The finalizer a Job is created with, taken off once the HeldJob's status records the Job as
 * created. Until then the Job cannot vanish unseen: a restarted operator that finds a recorded
 * launch and no Job knows the create never landed, and makes it, once.
 */
export const JOB_LAUNCH_FINALIZER = 'waitgate.dev/launch';

/** What the record says when a HeldJob was deleted while its Job ran. */
export const OPERATOR_CANCEL = 'operator-cancel';

/** The state of one wait condition, as `kubectl describe` shows it. */
export const WaitState = {
  Waiting: 'Waiting',
  Cleared: 'Cleared',
  NotChecked: 'NotChecked',
} as const;
export type WaitState = (typeof WaitState)[keyof typeof WaitState];

/**
 * Annotations on HeldJobs: most are stamped by the receiver on the HeldJobs it creates; the
 * approval and cancel records (approvedBy .. cancelledBy) are written by users, through
 * `waitgate approve`, `waitgate reject` and `waitgate cancel`, and the admission policy
 * waitgate-heldjob-approval holds each name to the user who wrote it.
 */
export const Annotations = {
  /** The forge's delivery id; on a refusal record, that of the first refusal it counted. */
  delivery: 'waitgate.dev/delivery',
  /** The receiver's schema version: what it writes into a HeldJob, and how. */
  receiverSchema: 'waitgate.dev/receiver-schema',
  /** Set on a HeldJob that records a refused delivery: the refusal token. It never holds. */
  refusal: 'waitgate.dev/refusal',
  /** On a refusal record: the message of the latest refusal it counted. */
  refusalMessage: 'waitgate.dev/refusal-message',
  /**
   * On a refusal record, which counts every refusal of its trigger, target and token
   * (api/refusal-record.ts): how many, when first and last, the last delivery's id, and the
   * latest few deliveries as `<forge>/<id>`, space-separated, oldest first.
   */
  refusalCount: 'waitgate.dev/refusal-count',
  refusalFirstSeen: 'waitgate.dev/refusal-first-seen',
  refusalLastSeen: 'waitgate.dev/refusal-last-seen',
  refusalLastDelivery: 'waitgate.dev/refusal-last-delivery',
  refusalDeliveries: 'waitgate.dev/refusal-deliveries',
  /**
   * On a hold: which hold of its trigger and target it is (1, 2, ...). Its name derives from
   * trigger, target and this number, so two deliveries that would both hold meet one name.
   */
  holdGeneration: 'waitgate.dev/hold-generation',
  /** What the target is on its forge (TargetKind): a `#` target alone cannot say issue or pull request. */
  targetKind: 'waitgate.dev/target-kind',
  /**
   * On an OnceRecord: the instant (RFC 3339) after which it no longer spends its trigger; the
   * receiver deletes it (uid precondition) as a delivery meets it, and a collector may (#30).
   */
  expiresAt: 'waitgate.dev/expires-at',
  /**
   * On a receiver-made hold of a trigger without conditions, still pending: the newer hold of
   * its trigger and target that replaced it (the newest pending wins; api/superseded-hold.ts).
   */
  supersededBy: 'waitgate.dev/superseded-by',
  /** On a hold with an approval condition: the user name of the member of its group who said go. Set once. */
  approvedBy: 'waitgate.dev/approved-by',
  /** Optional, beside approvedBy: why, in the approver's words (bounded: APPROVAL_REASON_MAX). */
  approvalReason: 'waitgate.dev/approval-reason',
  /** On a hold with an approval condition: the user name of the member who said no; the hold ends Refused wait-refused. Set once. */
  rejectedBy: 'waitgate.dev/rejected-by',
  /** Optional, beside rejectedBy: why (bounded: APPROVAL_REASON_MAX). */
  rejectionReason: 'waitgate.dev/rejection-reason',
  /** Written by `waitgate cancel` just before its delete: who cancelled. Set once, to the requester's own name. */
  cancelledBy: 'waitgate.dev/cancelled-by',
} as const;

/**
 * How a hold ended, for waitgate_hold_duration_seconds: its Job launched, the HeldJob deleted
 * while still held (a cancel), refused for good, or ended Failed before any launch.
 */
export const HoldOutcome = { Launched: 'launched', Cancelled: 'cancelled', Refused: 'refused', Failed: 'failed' } as const;
export type HoldOutcome = (typeof HoldOutcome)[keyof typeof HoldOutcome];
export const HOLD_OUTCOMES = Object.values(HoldOutcome);

export function isFailureReason(v: unknown): v is FailureReason {
  return typeof v === 'string' && (FAILURE_REASONS as readonly string[]).includes(v);
}

export function isRefusalToken(v: unknown): v is RefusalToken {
  return typeof v === 'string' && (REFUSAL_TOKENS as readonly string[]).includes(v);
}

export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
