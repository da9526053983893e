// The forges' notation, and the one rule for "which forge is this target, and what is it there",
// which the operator (where a comment goes, what a launched Job is told) and the command line
// share. Every forge is a row of one table the compiler keeps complete.
//
// The reference spells an issue `acme/web#7` on any forge and a merge request `acme/web!12` on
// GitLab or Azure DevOps (each forge's own notation for a pull request; GitHub's is `#`). So a
// target's shape names its forge only where one forge alone writes it that way: an unlabelled
// `#` may be an issue on any of them, an unlabelled `!` GitLab's or Azure's. The receiver's
// forge label says which; without it, nothing is guessed.
import { targetParts, type TargetParts } from './target.js';
import { Forge, FORGES, TargetKind, TARGET_KINDS } from './vocabulary.js';

export type Separator = TargetParts['separator'];

export interface ForgeNotation {
  /** How the forge is named in messages and documents. */
  readonly title: string;
  /** The kinds of target the forge writes behind each separator. */
  readonly kinds: Readonly<Record<Separator, readonly TargetKind[]>>;
  /** What a repository is on the forge, when it is exactly two segments; undefined for a path of groups. */
  readonly twoSegments: string | undefined;
}

export const FORGE_NOTATION = {
  [Forge.GitHub]: {
    title: 'GitHub',
    kinds: { '#': [TargetKind.Issue, TargetKind.PullRequest], '!': [] },
    twoSegments: 'owner/name',
  },
  [Forge.GitLab]: {
    title: 'GitLab',
    kinds: { '#': [TargetKind.Issue], '!': [TargetKind.MergeRequest] },
    twoSegments: undefined,
  },
  [Forge.Azure]: {
    title: 'Azure DevOps',
    // A work item is Azure's issue; its pull request is written as the reference writes it, with `!`.
    kinds: { '#': [TargetKind.Issue], '!': [TargetKind.MergeRequest] },
    twoSegments: 'project/repository',
  },
} as const satisfies Record<Forge, ForgeNotation>;

export const isForge = (v: unknown): v is Forge => (FORGES as readonly unknown[]).includes(v);
export const isTargetKind = (v: unknown): v is TargetKind => (TARGET_KINDS as readonly unknown[]).includes(v);

/** The forges that write targets with this separator (and, when given, of this kind behind it). */
export function forgesWriting(separator: Separator, kind?: TargetKind): Forge[] {
  return FORGES.filter((f) => {
    const kinds: readonly TargetKind[] = FORGE_NOTATION[f].kinds[separator];
    return kind === undefined ? kinds.length > 0 : kinds.includes(kind);
  });
}

/** Where a target is: its forge and kind when they can be told, and its parts. */
export interface TargetPlace {
  readonly forge: Forge | undefined;
  readonly kind: TargetKind | undefined;
  readonly parts: TargetParts;
}

/** What a HeldJob records beside its target: the receiver's forge label and target-kind annotation. */
export interface RecordedPlace {
  readonly forge?: unknown;
  readonly kind?: unknown;
}

/**
 * Which forge a target is on and what it is there. A recorded forge counts only where that forge
 * writes the target's separator, and a recorded kind only where the forge (or, with no forge,
 * some forge) writes that kind behind it. What is not recorded is settled by the table only
 * where a single answer remains: a `!` is a merge request on every forge that writes one, and a
 * pull request behind `#` is GitHub's alone. Undefined for a target that is not one.
 */
export function placeOfTarget(target: string, recorded: RecordedPlace = {}): TargetPlace | undefined {
  const parts = targetParts(target);
  if (!parts) return undefined;
  const sep = parts.separator;
  let forge = isForge(recorded.forge) && forgesWriting(sep).includes(recorded.forge) ? recorded.forge : undefined;
  const fits = (k: TargetKind) =>
    forge ? (FORGE_NOTATION[forge].kinds[sep] as readonly TargetKind[]).includes(k) : forgesWriting(sep, k).length > 0;
  let kind = isTargetKind(recorded.kind) && fits(recorded.kind) ? recorded.kind : undefined;
  if (kind === undefined) {
    const candidates = new Set<TargetKind>((forge ? [forge] : forgesWriting(sep)).flatMap((f) => FORGE_NOTATION[f].kinds[sep]));
    if (candidates.size === 1) kind = [...candidates][0];
  }
  if (forge === undefined) {
    const writers = forgesWriting(sep, kind);
    if (writers.length === 1) forge = writers[0];
  }
  return { forge, kind, parts };
}
