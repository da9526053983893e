// The id-only target of a HeldJob: `<owner>/<repo>#<n>` or `<owner>/<repo>!<n>`. One rule,
// used by the HeldJob schema (and so the CRD), the receiver's parsers and the CLI.

/** `acme/web#7` (an issue or a GitHub pull request) or `acme/web!12` (a GitLab merge request). */
export const TARGET_PATTERN = '^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)+[#!][1-9][0-9]{0,9}$';
/** The longest target a HeldJob may carry. */
export const TARGET_MAX_LENGTH = 256;

const TARGET = new RegExp(TARGET_PATTERN);

/** Why `target` cannot be a HeldJob's target, or undefined when it can. */
export function targetProblem(target: string): string | undefined {
  if (target.length > TARGET_MAX_LENGTH) return `target is ${String(target.length)} characters, over ${String(TARGET_MAX_LENGTH)}`;
  if (!TARGET.test(target)) return 'target is not <owner>/<repo>#<n> or <owner>/<repo>!<n> with n from 1 to 9999999999';
  return undefined;
}

/** The repository of a target: the target without #n or !n. */
export function repositoryOf(target: string): string {
  return target.replace(/[#!]\d+$/, '');
}

/** Who a scope key is for: the forge of a HeldJob the receiver made, else the namespace it was written in. */
export interface ScopeOwner {
  /** receiverForgeOf(heldJob): set only for a HeldJob the receiver made. */
  readonly forge: string | undefined;
  readonly namespace: string;
}

/**
 * The scope a target's Job counts against, fleet-wide: its repository on its forge
 * (`github:acme/web`) for a HeldJob the receiver made, and its repository in the namespace it
 * was written in (`ns/team-a:acme/web`) for one written by hand, so a namespace's own HeldJobs
 * never hold the place of a forge repository's deliveries, nor of another namespace's.
 */
export function scopeKeyOf(target: string, owner: ScopeOwner): string {
  const repository = repositoryOf(target);
  return owner.forge !== undefined ? `${owner.forge}:${repository}` : `ns/${owner.namespace}:${repository}`;
}

/** A target taken apart: `acme/web#7` → repository `acme/web`, separator `#`, number `7`. */
export interface TargetParts {
  readonly repository: string;
  readonly separator: '#' | '!';
  readonly number: string;
}

/** The parts of a valid target, or undefined for anything targetProblem refuses. */
export function targetParts(target: string): TargetParts | undefined {
  if (targetProblem(target) !== undefined) return undefined;
  const m = /^(.+)([#!])(\d+)$/.exec(target);
  if (!m) return undefined;
  return { repository: m[1] as string, separator: m[2] as '#' | '!', number: m[3] as string };
}
