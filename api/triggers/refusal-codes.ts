// The closed vocabulary of reasons a triggers file is refused at load. Each code names one
// rule, so a refusal can be matched by code rather than by the wording of its message.

export const TriggerRefusalCode = {
  // The file as a whole.
  NotJson: 'triggers-not-json',
  NotArray: 'triggers-not-array',
  // One entry, outside its waits.
  Shape: 'trigger-shape',
  NameRepeated: 'trigger-name-repeated',
  JobInvalid: 'trigger-job-invalid',
  /** A cron schedule: waitgate acts on forge events; a CronJob runs schedules. */
  Cron: 'trigger-cron',
  /** run.replicas beside run.job's own completions, parallelism or completionMode: one would be dropped. */
  ReplicasConflict: 'trigger-replicas-conflict',
  // on, beyond its type and labels.
  /** A key under a label trigger's on that this version does not read: refused, never ignored. */
  OnUnknownKey: 'on-unknown-key',
  /** on.repositories that is not a list of repository names and globs, or one pattern in it that is not one. */
  RepositoriesInvalid: 'on-repositories-invalid',
  /** repositories (or repos, repo, repository) at the top of an entry or under run, where it would not be read. */
  RepositoriesMisplaced: 'on-repositories-misplaced',
  // run.waitFor and where it may stand.
  WaitForShape: 'waitfor-shape',
  WaitForCount: 'waitfor-count',
  WaitForUnknownKey: 'waitfor-unknown-key',
  WaitForExclusive: 'waitfor-exclusive',
  WaitForMisspelled: 'waitfor-misspelled',
  AfterZoneless: 'waitfor-after-zoneless',
  AfterInvalid: 'waitfor-after-invalid',
  AfterRepeated: 'waitfor-after-repeated',
  ProfileInvalid: 'waitfor-profile-invalid',
  ProfileRepeated: 'waitfor-profile-repeated',
  ApprovalInvalid: 'waitfor-approval-invalid',
  ApprovalRepeated: 'waitfor-approval-repeated',
  WithOnce: 'waitfor-with-once',
  WithReplicas: 'waitfor-with-replicas',
  OnCron: 'waitfor-on-cron',
} as const;
export type TriggerRefusalCode = (typeof TriggerRefusalCode)[keyof typeof TriggerRefusalCode];
export const TRIGGER_REFUSAL_CODES: readonly TriggerRefusalCode[] = Object.values(TriggerRefusalCode);

export function isTriggerRefusalCode(value: unknown): value is TriggerRefusalCode {
  return typeof value === 'string' && (TRIGGER_REFUSAL_CODES as readonly string[]).includes(value);
}

/** The `where` of a refusal that concerns the whole file rather than one entry. */
export const WHERE_FILE = '(file)';
