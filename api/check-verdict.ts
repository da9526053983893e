// What a check's answer means. Pure: exec mode (adapters/exec-check.ts) and pod mode (the
// terminated container's state) both end in the same four verdicts.

/** The exit codes a check may give on purpose. Everything else reads as could-not-tell. */
export const CheckExit = {
  /** Every other condition permitting, the job starts now. */
  Go: 0,
  /** Could not tell. Held, and counted as a fault. */
  CouldNotTell: 1,
  /** This will never clear: the HeldJob is refused (wait-refused). */
  Never: 2,
  /** Not yet: held and checked again later, not counted. */
  NotYet: 3,
} as const;
export type CheckExit = (typeof CheckExit)[keyof typeof CheckExit];

export const CheckVerdict = {
  Go: 'go',
  NotYet: 'not-yet',
  Never: 'never',
  CouldNotTell: 'could-not-tell',
} as const;
export type CheckVerdict = (typeof CheckVerdict)[keyof typeof CheckVerdict];
export const CHECK_VERDICTS = Object.values(CheckVerdict);

/** The part of a check's answer a verdict is read from. */
export interface CheckOutcome {
  /** null when killed by a signal or never started. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  /** Set when the check could not be started at all (e.g. 'ENOENT', 'EACCES', 'ENOEXEC'). */
  readonly spawnError?: string;
}

/**
 * exit 0 go; 3 not yet; 2 never; 1, any other code, a signal, a timeout or a spawn error:
 * could not tell. A timeout wins over whatever code the check exited with after it was told
 * to stop, and a signal wins over any code.
 */
export function verdictOf(answer: CheckOutcome): CheckVerdict {
  if (answer.spawnError !== undefined || answer.timedOut || answer.signal !== null) return CheckVerdict.CouldNotTell;
  switch (answer.exitCode) {
    case CheckExit.Go:
      return CheckVerdict.Go;
    case CheckExit.NotYet:
      return CheckVerdict.NotYet;
    case CheckExit.Never:
      return CheckVerdict.Never;
    default:
      return CheckVerdict.CouldNotTell;
  }
}
