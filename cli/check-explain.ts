// What one check's answer means, in plain words, as `waitgate check` prints it. Pure.
import { CheckExit, CheckVerdict, verdictOf } from '../api/check-verdict.js';
import type { CheckAnswer } from '../operator/checks/exec-check.js';
import { ConditionReason, RefusalToken } from '../api/vocabulary.js';
import { CHECK_SECRET_LABEL, CHECK_SECRET_LABEL_VALUE } from '../api/check-secrets.js';
import { formatSpan } from './format.js';

/** A "could not tell" faster than this, with no output at all, looks like the grep -q trap. */
export const GREP_TRAP_MAX_MS = 1000;

export interface ExplainSettings {
  readonly timeoutMs: number;
  readonly maxFaults: number;
  /** A check Pod's answer (waitgate check --pod): no output is counted, a refused Pod is explained. */
  readonly pod?: boolean;
}

export interface Explanation {
  readonly verdict: CheckVerdict;
  /** `exit 3 after 12ms: not yet.` */
  readonly summary: string;
  /** What the operator would do with this answer, and why it reads so. */
  readonly details: readonly string[];
  /** Exit 1, fast and silent: most likely a pipeline ending in `grep -q`. */
  readonly grepTrap: boolean;
}

/** Exit 1, within GREP_TRAP_MAX_MS, not a timeout or signal, and not a byte on stdout or stderr. */
export function looksLikeGrepTrap(a: CheckAnswer): boolean {
  return (
    a.exitCode === CheckExit.CouldNotTell &&
    a.signal === null &&
    !a.timedOut &&
    a.spawnError === undefined &&
    a.durationMs < GREP_TRAP_MAX_MS &&
    a.stdoutBytes === 0 &&
    a.stderrBytes === 0
  );
}

export function explainAnswer(a: CheckAnswer, s: ExplainSettings): Explanation {
  const verdict = verdictOf(a);
  const took = formatSpan(a.durationMs);
  const counted = `The operator keeps holding the job but counts this as a fault: ${s.maxFaults} "could not tell" in a row (WAITGATE_WAIT_MAX_FAULTS) and the HeldJob is refused ${RefusalToken.Unanswerable}.`;
  switch (verdict) {
    case CheckVerdict.Go:
      return {
        verdict,
        summary: `exit 0 after ${took}: go.`,
        details: ['This condition has cleared. Once every other condition of the HeldJob has cleared too, its Job starts.'],
        grepTrap: false,
      };
    case CheckVerdict.NotYet:
      return {
        verdict,
        summary: `exit 3 after ${took}: not yet.`,
        details: ['The hold goes on and the check runs again at the next cadence. Not counted against the job.'],
        grepTrap: false,
      };
    case CheckVerdict.Never:
      return {
        verdict,
        summary: `exit 2 after ${took}: never.`,
        details: [
          `The operator would refuse the HeldJob for good (${RefusalToken.Refused}); it never runs and is not retried.`,
          'Exit 2 only when the answer is final; when you could not find out, exit 1.',
        ],
        grepTrap: false,
      };
    case CheckVerdict.CouldNotTell:
      return couldNotTell(a, s, took, counted);
  }
}

function couldNotTell(a: CheckAnswer, s: ExplainSettings, took: string, counted: string): Explanation {
  const verdict = CheckVerdict.CouldNotTell;
  if (a.refusedSecret !== undefined) {
    return {
      verdict,
      summary: `check Pod refused: it names Secret ${a.refusedSecret}, which is not labelled ${CHECK_SECRET_LABEL}=${CHECK_SECRET_LABEL_VALUE}.`,
      details: [
        `The cluster's admission policy admits a check Pod only if every Secret it names carries that label. Label the Secret (kubectl label secret ${a.refusedSecret} ${CHECK_SECRET_LABEL}=${CHECK_SECRET_LABEL_VALUE} in the operator's namespace) or take it out of the profile.`,
        `The operator counts nothing for this: the hold pauses (Waiting reason ${ConditionReason.CheckSecretRefused}, with a Warning naming the Secret) and is tried again at the next interval or when the profiles change.`,
      ],
      grepTrap: false,
    };
  }
  if (a.spawnError !== undefined) {
    return {
      verdict,
      summary: `could not start (${a.spawnError}): could not tell.`,
      details: [a.spawnDetail ?? spawnWhy(a.spawnError), counted],
      grepTrap: false,
    };
  }
  if (a.timedOut) {
    return {
      verdict,
      summary: `no answer within ${formatSpan(s.timeoutMs)}: timed out, could not tell.`,
      details: [
        `The check timeout (WAITGATE_WAIT_CHECK_TIMEOUT_MS, ${s.timeoutMs} ms) passed: it was sent SIGTERM, then SIGKILL if it stayed. Whatever it exits with afterwards is not an answer.`,
        counted,
      ],
      grepTrap: false,
    };
  }
  if (a.signal !== null) {
    return {
      verdict,
      summary: `killed by ${a.signal} after ${took}: could not tell.`,
      details: ['A check that ends by a signal has given no answer.', counted],
      grepTrap: false,
    };
  }
  if (a.exitCode === CheckExit.CouldNotTell) {
    // A check Pod's output is not counted, so its silence says nothing.
    const grepTrap = s.pod !== true && looksLikeGrepTrap(a);
    const details = [counted];
    if (grepTrap) {
      details.push(
        `This looks like the grep -q trap: it exited 1 within ${formatSpan(GREP_TRAP_MAX_MS)} without a byte of output, which is what a pipeline ending in \`grep -q\` does when nothing matches.`,
        'grep answers "no match" with 1, and 1 here means could not tell. "Not yet" must be exit 3: map each answer yourself (see docs/checks.md, "The trap").',
      );
    }
    return { verdict, summary: `exit 1 after ${took}: could not tell.`, details, grepTrap };
  }
  return {
    verdict,
    summary: `exit ${String(a.exitCode)} after ${took}: could not tell.`,
    details: [
      `${String(a.exitCode)} is none of the answers a check may give (0 go, 3 not yet, 2 never), so it reads as could not tell.`,
      counted,
    ],
    grepTrap: false,
  };
}

function spawnWhy(code: string): string {
  switch (code) {
    case 'ENOEXEC':
      return 'The script does not start with a `#!` line (or is not a program the kernel can run); the operator never hands a script to a shell. A `#!` line saved with CRLF line ends fails the same way.';
    case 'EACCES':
      return 'The script could not be executed: it is not a regular file, or not executable.';
    case 'ENOENT':
      return 'The interpreter its `#!` line names does not exist here.';
    default:
      return `Starting it failed with ${code}.`;
  }
}

/** The lines `waitgate check` prints for an answer. */
export function renderExplanation(a: CheckAnswer, e: Explanation, pod = false): string[] {
  return [
    e.summary,
    ...e.details.map((d) => `  ${d}`),
    pod
      ? "output: not read (it was in the check Pod's log, deleted with the Pod; the operator does not read it either)"
      : `output: stdout ${a.stdoutBytes} bytes, stderr ${a.stderrBytes} bytes (counted, never shown; the operator does not read them either)`,
  ];
}
