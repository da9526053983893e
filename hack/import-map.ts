// The import map of docs/development.md ("The map"), checked: `hack/lint.sh` runs this file
// (`node hack/import-map.ts`, Node's own type stripping) and fails on any import that breaks it.
//
//   programs (operator/, receiver/, cli/) import api/ and lib/, and their own folder;
//   api/ imports only the lib/ helpers that do no I/O (LIB_WITHOUT_IO);
//   lib/ imports neither api/ nor a program;
//   the receiver imports nothing from operator/; the CLI imports from it only the check runner.
// Tests beside the code (*.test.ts) may import test/ (builders, fakes) as well. test/, bench/ and
// hack/ themselves are not in the map. Packages (`zod`, `node:fs`) are not checked here.
//
// This file imports nothing of the project's own, so Node can run it without a build.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The folders the map speaks of; an import between two of them is checked. */
export const MAPPED = ['api', 'lib', 'operator', 'receiver', 'cli'] as const;

/** The lib/ helpers that do no I/O, the only ones api/ may import. */
export const LIB_WITHOUT_IO: readonly string[] = ['lib/hash.ts', 'lib/config/env.ts', 'lib/valkey/keys.ts'];

/** What the CLI may import from operator/: the check runner, so `waitgate check` runs a script as the operator would. */
// pod-check.ts: `waitgate check --pod` builds and runs the operator's own check Pod (one spec, one runner).
export const CHECK_RUNNER: readonly string[] = [
  'operator/checks/exec-check.ts',
  'operator/checks/profile-scripts.ts',
  'operator/checks/pod-check.ts',
];

const topOf = (path: string): string => path.split('/')[0] ?? '';

/**
 * Where a relative import of `from` leads, as a repository path of the .ts file (`./x.js` is
 * `x.ts`); undefined for a package or a builtin.
 */
export function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const to = posix.normalize(posix.join(posix.dirname(from), specifier));
  return to.replace(/\.js$/, '.ts');
}

/**
 * Why `from` may not import `to` (both repository paths, `to` resolved), or undefined when
 * the map allows it.
 */
export function importMapProblem(from: string, to: string): string | undefined {
  const own = topOf(from);
  const theirs = topOf(to);
  if (!(MAPPED as readonly string[]).includes(own) || own === theirs) return undefined;
  if (theirs === 'test' && from.endsWith('.test.ts')) return undefined;
  if (!(MAPPED as readonly string[]).includes(theirs)) return `${own}/ imports nothing from ${theirs}/`;
  switch (own) {
    case 'api':
      return theirs === 'lib' && LIB_WITHOUT_IO.includes(to)
        ? undefined
        : theirs === 'lib'
          ? `api/ imports only the lib/ helpers that do no I/O (${LIB_WITHOUT_IO.join(', ')})`
          : `api/ imports no program`;
    case 'lib':
      return 'lib/ imports neither api/ nor a program';
    case 'operator':
    case 'receiver':
      return theirs === 'api' || theirs === 'lib' ? undefined : `${own}/ imports api/ and lib/, never another program`;
    case 'cli':
      if (theirs === 'api' || theirs === 'lib' || CHECK_RUNNER.includes(to)) return undefined;
      return theirs === 'operator'
        ? `cli/ imports from operator/ only the check runner (${CHECK_RUNNER.join(', ')})`
        : `cli/ imports api/ and lib/, never another program`;
    default:
      return undefined;
  }
}

/** The module specifiers a TypeScript file names: imports, re-exports, `import()` and `import type` alike. */
export function specifiersOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

export interface Violation {
  readonly file: string;
  readonly specifier: string;
  readonly problem: string;
}

/** Every import in the mapped folders under `root` that the map forbids. */
export function violationsUnder(root: string): Violation[] {
  const found: Violation[] = [];
  const walk = (dir: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        const file = relative(root, path).split('\\').join('/');
        for (const specifier of specifiersOf(readFileSync(path, 'utf8'))) {
          const to = resolveImport(file, specifier);
          const problem = to === undefined ? undefined : importMapProblem(file, to);
          if (problem) found.push({ file, specifier, problem });
        }
      }
    }
  };
  for (const top of MAPPED) if (existsSync(join(root, top))) walk(join(root, top));
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(fileURLToPath(import.meta.url), '..', '..');
  const found = violationsUnder(root);
  for (const v of found) console.error(`${v.file}: imports ${v.specifier}: ${v.problem}`);
  process.exitCode = found.length > 0 ? 1 : 0;
}
