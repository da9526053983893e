// docs/cli.md, generated in part from the command line's own help. The page is its own
// template: between a BEGIN and an END marker stands what `waitgate <words> --help` prints,
// rewritten by `npm run gen:cli-doc` (hack/gen-cli-doc.ts); the prose around the blocks is
// written by hand. A unit test (cli-doc.test.ts) fails while a block is stale, a command has
// none, or the prose or its examples give a command a flag it does not take.
import { COMMANDS } from '../cli/commands/index.js';
import type { Command } from '../cli/commands/command.js';
import type { CliIo } from '../cli/io.js';
import { run } from '../cli/main.js';

export const CLI_DOC_PATH = 'docs/cli.md';

const BEGIN = /^<!-- BEGIN generated: waitgate ((?:[a-z]+ )*)--help \(npm run gen:cli-doc\) -->$/;
const END = '<!-- END generated -->';

/** What `waitgate ...args` prints on standard output, run in-process with nothing around it. */
async function helpOf(args: readonly string[], commands: readonly Command[]): Promise<string> {
  const out: string[] = [];
  const io: CliIo = {
    stdout: (line) => void out.push(line),
    stderr: (line) => void out.push(line),
    readFile: () => Promise.reject(new Error('no files while generating the docs')),
    env: {},
    now: () => 0,
  };
  const code = await run(args, io, commands);
  if (code !== 0) throw new Error(`waitgate ${args.join(' ')} exited ${code}`);
  return out.join('\n');
}

/**
 * The page with every generated block rewritten from the help the commands print now. Throws
 * when a block names no command, or a command has no block.
 */
export async function renderCliDoc(page: string, commands: readonly Command[] = COMMANDS): Promise<string> {
  const lines = page.split('\n');
  const out: string[] = [];
  const covered = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    out.push(line);
    const begin = BEGIN.exec(line);
    if (!begin) continue;
    const words = (begin[1] ?? '').trim().split(' ').filter(Boolean);
    if (words.length > 0 && !commands.some((c) => c.words.join(' ') === words.join(' '))) {
      throw new Error(`${CLI_DOC_PATH}:${i + 1}: there is no command waitgate ${words.join(' ')}`);
    }
    covered.add(words.join(' '));
    const end = lines.indexOf(END, i + 1);
    if (end < 0) throw new Error(`${CLI_DOC_PATH}:${i + 1}: no ${END} after this block`);
    out.push('```text', await helpOf([...words, '--help'], commands), '```');
    out.push(END);
    i = end;
  }
  const missing = ['', ...commands.map((c) => c.words.join(' '))].filter((w) => !covered.has(w));
  if (missing.length > 0) {
    throw new Error(
      `${CLI_DOC_PATH} has no generated help of: ${missing.map((w) => `waitgate ${w} --help`.replace('  ', ' ')).join(', ')}`,
    );
  }
  return out.join('\n');
}

/** The flags a command takes, as written on a command line: `--watch`, `-n`. */
function flagsOf(c: Command): Set<string> {
  const flags = new Set(['--help', '-h']);
  for (const f of c.flags ?? []) {
    flags.add(`--${f.name}`);
    if (f.short) flags.add(`-${f.short}`);
  }
  return flags;
}

/** The command an invocation names (`waitgate triggers check x`), the longest match. */
function commandOf(words: readonly string[], commands: readonly Command[]): Command | undefined {
  return [...commands].sort((a, b) => b.words.length - a.words.length).find((c) => c.words.every((w, i) => words[i] === w));
}

const FLAG = /^--?[A-Za-z][A-Za-z-]*/;

/**
 * Where the hand-written part of the page gives a command a flag it does not take: in a
 * command line written out (`waitgate doctor --waitgate-namespace NS`, `$ npx waitgate held
 * -n team-a`), or a lone flag in backticks in a command's own section (`-n, --namespace NS`).
 * Generated blocks are not looked at: they are the help itself.
 */
export function proseFlagProblems(page: string, commands: readonly Command[] = COMMANDS): string[] {
  const problems: string[] = [];
  const allFlags = new Set(commands.flatMap((c) => [...flagsOf(c)]));
  let section: Command | undefined;
  let generated = false;
  let fenced = false;
  const check = (where: number, text: string, invocation: readonly string[] | undefined) => {
    const command = invocation ? commandOf(invocation, commands) : section;
    const known = command ? flagsOf(command) : allFlags;
    const words = invocation ? invocation.slice(command?.words.length ?? 0) : text.split(/[\s,|[\]]+/);
    for (const word of words) {
      const flag = FLAG.exec(word)?.[0];
      if (flag === undefined || known.has(flag)) continue;
      const who = command ? `waitgate ${command.words.join(' ')}` : 'no waitgate command';
      problems.push(`${CLI_DOC_PATH}:${where}: ${who} takes no ${flag} (in ${JSON.stringify(text)})`);
    }
  };
  const invocationOf = (text: string): string[] | undefined => {
    const m = /^(?:\$ )?(?:npx |kubectl )?waitgate (.*)$/.exec(text.trim());
    return m ? (m[1] as string).split(/[\s,|[\]]+/).filter(Boolean) : undefined;
  };
  page.split('\n').forEach((line, index) => {
    const n = index + 1;
    if (BEGIN.test(line)) generated = true;
    if (line === END) generated = false;
    if (generated) return;
    if (line.startsWith('```')) {
      fenced = !fenced;
      return;
    }
    if (fenced) {
      const inv = invocationOf(line);
      if (inv) check(n, line.trim(), inv);
      return;
    }
    const heading = /^## `waitgate ([^`]*)`/.exec(line);
    if (heading) section = commandOf((heading[1] as string).split(' '), commands);
    else if (line.startsWith('## ')) section = undefined;
    for (const span of line.matchAll(/`([^`]+)`/g)) {
      const text = span[1] as string;
      const inv = invocationOf(text);
      if (inv) check(n, text, inv);
      else if (text.startsWith('-')) check(n, text, undefined);
    }
  });
  return problems;
}
