// One plain sentence per refusal token: what it means and what to do about it. The forge
// comments carry it; the command line and the docs may show the same words.
import { RefusalToken } from './vocabulary.js';

export const REFUSAL_TEXTS: { readonly [T in RefusalToken]: string } = {
  [RefusalToken.Refused]:
    'A wait check answered that its condition will never be met, so the job will not run; fix what the check looks at and apply the label again.',
  [RefusalToken.Expired]:
    'The wait conditions did not clear within the longest wait allowed, so the job will not run; apply the label again once they can clear.',
  [RefusalToken.Unanswerable]:
    'A wait check failed to give an answer too many times in a row, so the job will not run; ask the operators to look at that check script, then apply the label again.',
  [RefusalToken.ProfileUnknown]:
    'The trigger waits on a profile that this installation does not declare, so the job will not run; ask the operators to declare it or correct the trigger.',
  [RefusalToken.Superseded]:
    'Another job for the same trigger and target is already waiting or has just finished waiting, so this one was dropped; nothing to do unless you wanted a second run, in which case apply the label again in 15 minutes.',
  [RefusalToken.Skew]:
    'The trigger now says to wait but this job arrived without its conditions, so it will not run; the receiver is older than the trigger file: upgrade it, then apply the label again.',
  [RefusalToken.Unreadable]:
    'The job carries a wait condition this operator cannot read, so it will not run; the operator is older than the receiver: upgrade it, then apply the label again.',
  [RefusalToken.AfterBeyondMax]:
    'The trigger asks to wait until an instant further ahead than allowed, so the job will not run; correct the trigger or apply the label again closer to that time.',
};

/** The sentence for a refusal token. */
export function refusalText(token: RefusalToken): string {
  return REFUSAL_TEXTS[token];
}
