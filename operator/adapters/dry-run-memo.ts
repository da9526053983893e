// Passing dry runs, remembered a while: 10,000 holds of one job in one namespace ask the
// apiserver once a minute, not 10,000 times. A refusal is never remembered. Memory only: a
// restarted operator asks again.

/** A passing dry run answers for the same reuse key for this long. */
export const DRY_RUN_REUSE_MS = 60_000;
/** At most this many are remembered; the oldest goes first. */
export const DRY_RUN_MEMO_MAX = 4_096;

export class DryRunMemo {
  private readonly passed = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly max = DRY_RUN_MEMO_MAX,
  ) {}

  /** Whether a dry run of this key passed less than DRY_RUN_REUSE_MS ago. */
  passedRecently(key: string): boolean {
    const at = this.passed.get(key);
    if (at === undefined) return false;
    if (this.now() - at < DRY_RUN_REUSE_MS) return true;
    this.passed.delete(key);
    return false;
  }

  /** A dry run of this key passed now. */
  remember(key: string): void {
    this.passed.delete(key);
    this.passed.set(key, this.now());
    if (this.passed.size > this.max) this.passed.delete(this.passed.keys().next().value as string);
  }
}
