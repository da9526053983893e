// What a label trigger's on may say, beyond its type and labels: the keys it may carry (an
// unknown one is refused, never ignored), on.repositories, and repositories written where they
// would not be read. A filter that is silently dropped widens the trigger to every repository
// a hook covers, so each of these is refused at load.
import { childPath, kindOf, show } from './json-path.js';
import { TriggerRefusalCode as Code } from './refusal-codes.js';
import { parseRepositoryPattern } from './repositories.js';
import type { PathRefusal } from './types.js';
import { readsAsWaitFor, type EntryPart } from './wait-for-placement.js';

/** The keys a label trigger's on may carry. */
export const LabelOnKey = { Type: 'type', Any: 'any', Once: 'once', Repositories: 'repositories' } as const;
export type LabelOnKey = (typeof LabelOnKey)[keyof typeof LabelOnKey];
export const LABEL_ON_KEYS: readonly LabelOnKey[] = Object.values(LabelOnKey);

/** Other words people write for a key of on. */
const ALIASES: Readonly<Record<string, LabelOnKey>> = {
  repo: LabelOnKey.Repositories,
  repos: LabelOnKey.Repositories,
  repository: LabelOnKey.Repositories,
  repositorys: LabelOnKey.Repositories,
  project: LabelOnKey.Repositories,
  projects: LabelOnKey.Repositories,
  label: LabelOnKey.Any,
  labels: LabelOnKey.Any,
  anyof: LabelOnKey.Any,
  kind: LabelOnKey.Type,
};

const normalized = (key: string) => key.replace(/[\s_.-]/g, '').toLowerCase();

/** Edit distance (insert, delete, substitute, swap two neighbours), capped: anything over `cap` is cap + 1. */
function distance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, ((d[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = best;
    }
  }
  return Math.min((d[a.length] as number[])[b.length] as number, cap + 1);
}

/** The key of on that `key` was most likely meant to be, if any is near enough to say. */
export function suggestOnKey(key: string): LabelOnKey | undefined {
  const n = normalized(key);
  const exact = LABEL_ON_KEYS.find((k) => normalized(k) === n);
  if (exact) return exact;
  const alias = ALIASES[n];
  if (alias) return alias;
  if (n.startsWith('repo')) return LabelOnKey.Repositories;
  let best: LabelOnKey | undefined;
  let bestDistance = Infinity;
  for (const k of LABEL_ON_KEYS) {
    const cap = k.length <= 4 ? 1 : 2;
    const d = distance(n, k, cap);
    if (d <= cap && d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * Keys of a label trigger's on that this version does not read. Keys that read as waitFor
 * are left to misplacedWaits, which has its own code for them.
 */
export function unknownOnKeys(on: Record<string, unknown>, onPath: string): PathRefusal[] {
  const out: PathRefusal[] = [];
  for (const key of Object.keys(on)) {
    if ((LABEL_ON_KEYS as readonly string[]).includes(key) || readsAsWaitFor(key)) continue;
    if (on[key] === undefined) continue; // as absent as in JSON, where undefined cannot be written
    const meant = suggestOnKey(key);
    const hint =
      meant === undefined
        ? `on holds only ${LABEL_ON_KEYS.join(', ')}`
        : `did you mean ${show(meant)}? on holds only ${LABEL_ON_KEYS.join(', ')}`;
    const why =
      meant === LabelOnKey.Repositories
        ? 'the trigger would otherwise fire for every repository the hook covers'
        : 'a setting that was silently ignored would do nothing while looking as if it did';
    out.push({
      path: childPath(onPath, key),
      code: Code.OnUnknownKey,
      message: `on has no key ${show(key)}; ${hint}. It is refused rather than ignored, since ${why}`,
    });
  }
  return out;
}

/** on.repositories: a non-empty list of repository names and globs (api/triggers/repositories.ts). */
export function repositoriesProblems(value: unknown, path: string): PathRefusal[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    return [
      {
        path,
        code: Code.RepositoriesInvalid,
        message: `on.repositories must be a list of repository names and globs such as ["acme/web", "acme/*"], but it is ${kindOf(value)}`,
      },
    ];
  }
  if (value.length === 0) {
    return [
      {
        path,
        code: Code.RepositoriesInvalid,
        message:
          'on.repositories is empty, so no repository could fire this trigger; name at least one, or remove the key to fire for every repository',
      },
    ];
  }
  const out: PathRefusal[] = [];
  for (const [i, item] of value.entries()) {
    const at = childPath(path, i);
    if (typeof item !== 'string') {
      out.push({
        path: at,
        code: Code.RepositoriesInvalid,
        message: `each repository must be text such as "acme/web", but this is ${kindOf(item)}`,
      });
      continue;
    }
    const parsed = parseRepositoryPattern(item);
    if (!parsed.ok) out.push({ path: at, code: Code.RepositoriesInvalid, message: `the repository ${show(item)} ${parsed.problem}` });
  }
  return out;
}

/** `repos`, `Repositories`, `repo`...: anything that reads as repositories. */
export function readsAsRepositories(key: string): boolean {
  return ['repositories', 'repository', 'repos', 'repo'].includes(normalized(key));
}

/**
 * Keys at the top of an entry or under run that read as repositories: they would not be read
 * there (run keeps unknown keys for newer versions), and the trigger would fire for every
 * repository. Under on they are on-unknown-key or on.repositories itself.
 */
export function misplacedRepositories(obj: Record<string, unknown>, part: Exclude<EntryPart, 'on'>, partPath: string): PathRefusal[] {
  const out: PathRefusal[] = [];
  for (const key of Object.keys(obj)) {
    if (!readsAsRepositories(key) || obj[key] === undefined) continue;
    out.push({
      path: childPath(partPath, key),
      code: Code.RepositoriesMisplaced,
      message: `${show(key)} is not read ${part === 'run' ? 'under run' : 'at the top of the entry'}: the repositories a trigger fires for are on.repositories. It is refused rather than ignored, since the trigger would otherwise fire for every repository the hook covers`,
    });
  }
  return out;
}
