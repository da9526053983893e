// The id-only target of a HeldJob: `<owner>/<repo>#<n>` or `<owner>/<repo>!<n>`.

/** The scope a target's Job counts against: its repository (the target without #n or !n). */
export function scopeKeyOf(target: string): string {
  return target.replace(/[#!]\d+$/, '');
}
