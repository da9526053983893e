// Which profile a round of checks asks next. Pure.
//
// Every profile must answer go in the same round, and a round stops at the first answer that
// is not go (record-check.ts starts a new one at the next check). So the order decides what a
// round costs: a profile asked before the one that holds the round up is a check spent, and
// counted against WAITGATE_WAIT_MAX_CHECKS, for nothing. The profiles whose last answer was not
// a go (or that have not been asked yet) are asked first, in the order written; those that said
// go last are asked after them, to confirm in the same round. While one profile keeps saying
// "not yet", a round is one check, however many profiles the hold names; a profile behind a
// metered API that already said go is not asked again until the others say go too.
import { CheckVerdict } from '../../api/check-verdict.js';

/**
 * The next profile to ask in this round: of those not yet go in it (`cleared`), the first
 * written whose last answer (`lastVerdicts`) was not a go, else the first written of the rest;
 * undefined when every profile has said go in this round.
 */
export function nextProfile(
  profiles: readonly string[],
  cleared: ReadonlySet<string>,
  lastVerdicts: Readonly<Record<string, CheckVerdict>> | undefined,
): string | undefined {
  const left = profiles.filter((p) => !cleared.has(p));
  return left.find((p) => lastVerdicts?.[p] !== CheckVerdict.Go) ?? left[0];
}
