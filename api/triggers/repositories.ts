// on.repositories: which repositories may fire a trigger, as exact names and globs. One
// grammar and one matcher, used by the triggers parser (to refuse a pattern at load) and the
// receiver (to match a delivery's forge and repository).
//
//   pattern   = [ forge ":" ] owner 1*( "/" segment )
//   forge     = "github" / "gitlab" / "azure"
//   owner     = 1*namechar              ; written out, never a wildcard
//   segment   = "**" / 1*( namechar / "*" )
//   namechar  = ALPHA / DIGIT / "_" / "." / "-"
//
// `*` matches any run of characters (none included) inside one segment, never a `/`. `**`,
// only ever a whole segment, matches any number of whole segments (none included), so
// `group/**` is every project under group at any depth. Matching ignores case, on both forges:
// neither lets two repositories' names differ only in case (GitHub owners and names, GitLab
// group and project paths are unique regardless of case), so a match without case can never
// reach a repository other than the one named, and `Acme/Web` does not silently miss `acme/web`.
import { TARGET_MAX_LENGTH } from '../target.js';
import { FORGE_NOTATION } from '../forges.js';
import { FORGES, type Forge } from '../vocabulary.js';

/** The longest repository a target can name: the target less `#1`. */
export const MAX_REPOSITORY_LENGTH = TARGET_MAX_LENGTH - 2;

export interface RepositoryPattern {
  /** The forge the pattern is limited to, or undefined for either. */
  readonly forge?: Forge;
  /** Lower-cased segments: literal text, text with `*`, or `**`. */
  readonly segments: readonly string[];
}

export type RepositoryPatternCheck =
  { readonly ok: true; readonly pattern: RepositoryPattern } | { readonly ok: false; readonly problem: string };

/** What a pattern's path is made of: name characters, `*` and `/`. */
const PATH_CHAR = /^[A-Za-z0-9_.*/-]$/;
const FORGE_PREFIX = /^([^/:]*):(.*)$/s;

/** Parses one pattern of on.repositories; `problem` says what is wrong in a phrase that follows the quoted pattern. */
export function parseRepositoryPattern(text: string): RepositoryPatternCheck {
  const no = (problem: string): RepositoryPatternCheck => ({ ok: false, problem });
  if (text.length === 0) return no('is empty; name a repository as owner/name, or a group of them as owner/*');
  if (/\s/.test(text)) return no('contains white space, which no repository name has');
  let forge: Forge | undefined;
  let path = text;
  const prefixed = FORGE_PREFIX.exec(text);
  if (prefixed) {
    const name = prefixed[1] as string;
    if (!(FORGES as readonly string[]).includes(name)) {
      return no(`names the forge ${JSON.stringify(name)}; a prefix is one of ${FORGES.map((f) => `${f}:`).join(', ')}`);
    }
    forge = name as Forge;
    path = prefixed[2] as string;
    if (path === '') return no(`names no repository after ${name}:`);
  }
  if (path.length > MAX_REPOSITORY_LENGTH) return no(`is longer than ${MAX_REPOSITORY_LENGTH} characters, more than any target can name`);
  const bad = [...path].find((c) => !PATH_CHAR.test(c));
  if (bad !== undefined) {
    return no(
      `contains ${JSON.stringify(bad)}: names are letters, digits, _, . and -, and the only wildcards are * (within a segment) and ** (any number of segments)`,
    );
  }
  const segments = path.split('/');
  if (segments.length < 2) {
    return no(`is one segment; name owner/name (a group's repositories are ${JSON.stringify(`${text}/*`)})`);
  }
  for (const [i, segment] of segments.entries()) {
    if (segment === '') return no('has an empty segment (a leading, trailing or doubled /)');
    if (segment === '.' || segment === '..') return no(`has the segment ${JSON.stringify(segment)}, which no repository path has`);
    if (segment.includes('**') && segment !== '**') {
      return no(`has ** inside the segment ${JSON.stringify(segment)}; ** stands alone between slashes, and * matches within a segment`);
    }
    if (i === 0 && segment.includes('*')) {
      return no(
        'has a wildcard in its first segment, the owner or top-level group; write the owner out, since a trigger open to every owner fires for anyone whose repository the hook covers',
      );
    }
  }
  const two = forge === undefined ? undefined : FORGE_NOTATION[forge].twoSegments;
  if (forge !== undefined && two !== undefined && segments.filter((s) => s !== '**').length > 2) {
    return no(`has more segments than a ${FORGE_NOTATION[forge].title} repository, which is ${two}`);
  }
  return { ok: true, pattern: { ...(forge === undefined ? {} : { forge }), segments: segments.map((s) => s.toLowerCase()) } };
}

/** Whether one segment matches a segment pattern with `*` (any run of characters). Both lower-cased. */
function segmentMatches(pattern: string, segment: string): boolean {
  // The classic wildcard walk: on a mismatch, let the last * take one more character.
  let p = 0;
  let s = 0;
  let star = -1;
  let taken = 0;
  while (s < segment.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === segment[s]) {
      p++;
      s++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      taken = s;
    } else if (star >= 0) {
      p = star + 1;
      s = ++taken;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/** Whether `repository` (owner/name, group/sub/project) from `forge` matches a parsed pattern. */
export function patternMatches(pattern: RepositoryPattern, forge: Forge, repository: string): boolean {
  if (pattern.forge !== undefined && pattern.forge !== forge) return false;
  const parts = repository.toLowerCase().split('/');
  const segs = pattern.segments;
  // can[i][j]: pattern segments from i match repository segments from j.
  const can: boolean[][] = Array.from({ length: segs.length + 1 }, () => Array<boolean>(parts.length + 1).fill(false));
  (can[segs.length] as boolean[])[parts.length] = true;
  for (let i = segs.length - 1; i >= 0; i--) {
    const seg = segs[i] as string;
    const row = can[i] as boolean[];
    const next = can[i + 1] as boolean[];
    for (let j = parts.length; j >= 0; j--) {
      if (seg === '**') row[j] = (next[j] as boolean) || (j < parts.length && (row[j + 1] as boolean));
      else row[j] = j < parts.length && (next[j + 1] as boolean) && segmentMatches(seg, parts[j] as string);
    }
  }
  return (can[0] as boolean[])[0] as boolean;
}

/**
 * Whether a trigger whose on.repositories is `patterns` fires for a delivery from `repository`
 * on `forge`. Without patterns, every repository does (the trigger is not narrowed); a pattern
 * that does not parse matches nothing.
 */
export function repositoryAllowed(patterns: readonly string[] | undefined, forge: Forge, repository: string): boolean {
  if (patterns === undefined) return true;
  return patterns.some((text) => {
    const parsed = parseRepositoryPattern(text);
    return parsed.ok && patternMatches(parsed.pattern, forge, repository);
  });
}
