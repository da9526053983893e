// The Node.js version check the bins (bin/waitgate.js, and so `kubectl waitgate`, and the
// plugin's completer) run before they import the command line. An older Node.js would
// otherwise die deep inside a dependency (undici, under @kubernetes/client-node) with an error
// that names neither Node.js nor the version it needs.
//
// This module is loaded by Node.js versions the project does not support, so it must load on
// them: it imports nothing but node: built-ins, and is written in ES2020 at the newest (no
// top-level await, class fields, private names, logical assignment, `.at()` or `Object.hasOwn`).
// cli/node-version.test.ts parses its build output as ES2020.
import { readFileSync } from 'node:fs';

interface Version {
  readonly parts: readonly [number, number, number];
  readonly prerelease: boolean;
}

const VERSION_PATTERN = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/** `20.20.2`, `v24.1.0`, `25.0.0-pre`, or a partial `22.19`; `full` is whether all three numbers were given. */
function parseVersion(text: string): (Version & { readonly full: boolean }) | undefined {
  const m = VERSION_PATTERN.exec(text.trim());
  if (!m) return undefined;
  return {
    parts: [Number(m[1]), Number(m[2] || 0), Number(m[3] || 0)],
    prerelease: m[4] !== undefined,
    full: m[3] !== undefined,
  };
}

/** Semver precedence, prerelease tags aside: a prerelease sorts just before its release. */
function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) {
    const d = (a.parts[i] as number) - (b.parts[i] as number);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  if (a.prerelease === b.prerelease) return 0;
  return a.prerelease ? -1 : 1;
}

const COMPARATOR_PATTERN = /^(>=|<=|>|<|=)?(.+)$/;

/** Whether `version` meets one comparator (`>=22.19`); undefined when it cannot be read. */
function meets(version: Version, comparator: string): boolean | undefined {
  const m = COMPARATOR_PATTERN.exec(comparator);
  if (!m) return undefined;
  const op = m[1] || '=';
  const bound = parseVersion(m[2] as string);
  if (!bound) return undefined;
  // A partial version means 22.19.0 only where that is exact: `>=22.19` and `<23`. In `>22`,
  // `<=22` or `=22` it is a whole release line, and that is more than this check needs.
  if (!bound.full && op !== '>=' && op !== '<') return undefined;
  const c = compare(version, bound);
  switch (op) {
    case '>=':
      return c >= 0;
    case '>':
      return c > 0;
    case '<=':
      return c <= 0;
    case '<':
      return c < 0;
    default:
      return c === 0;
  }
}

/**
 * Whether the Node.js `version` (process.versions.node, e.g. `20.20.2`) satisfies `range`
 * (package.json's engines.node, e.g. `>=22.19`): alternatives joined by `||`, each one or
 * more comparators (`>=`, `>`, `<=`, `<`, `=` or none) with a version, `>=22.19` meaning
 * `>=22.19.0`. A prerelease counts just below its release (`22.19.0-pre` does not meet
 * `>=22.19`; `25.0.0-pre` does). undefined when the version or the range cannot be read
 * (`^`, `~`, `x` ranges among them).
 */
export function satisfiesRange(version: string, range: string): boolean | undefined {
  const v = parseVersion(version);
  if (!v) return undefined;
  let any = false;
  for (const alternative of range.split('||')) {
    const comparators = alternative
      .trim()
      .replace(/(>=|<=|>|<|=)\s+/g, '$1')
      .split(/\s+/)
      .filter((c) => c !== '');
    if (comparators.length === 0) return undefined;
    let all = true;
    for (const c of comparators) {
      const r = meets(v, c);
      if (r === undefined) return undefined;
      if (!r) all = false;
    }
    if (all) any = true;
  }
  return any;
}

/**
 * The one line to print when this Node.js is too old for the range, or undefined when it will
 * do. A version or range this cannot read is let through: the check never stands in the way
 * of a Node.js it does not understand.
 */
export function nodeVersionProblem(version: string, range: string): string | undefined {
  if (satisfiesRange(version, range) !== false) return undefined;
  return `waitgate: needs Node.js ${range.trim()} (this is v${version}); install a newer Node.js`;
}

/** package.json's engines.node, or undefined when the file or the field cannot be read. */
export function enginesNode(packageJson: URL): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(packageJson, 'utf8')) as { engines?: { node?: unknown } };
    const node = pkg.engines && pkg.engines.node;
    return typeof node === 'string' ? node : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The bins' check: true when this Node.js satisfies package.json's engines.node; otherwise it
 * writes the line to stderr, sets exit code 1 and returns false (the bin then imports nothing).
 */
export function nodeVersionOk(packageJson: URL): boolean {
  const range = enginesNode(packageJson);
  const problem = range === undefined ? undefined : nodeVersionProblem(process.versions.node, range);
  if (problem === undefined) return true;
  process.stderr.write(`${problem}\n`);
  process.exitCode = 1;
  return false;
}
