// The `waitgate` command line: picks the subcommand named by the first words of argv and
// runs it. bin/waitgate.js calls main() on the build output of this file.
import { COMMANDS } from './commands/index.js';
import { ExitCode, usageLine, type Command } from './commands/command.js';
import { processIo, type CliIo } from './io.js';
import { VERSION } from '../lib/version.js';
import { BASH_COMPLETION, complete, flagsOnLine, ZSH_COMPLETION } from './completion.js';
import { lookupNames } from './completion-lookup.js';

export function usage(commands: readonly Command[] = COMMANDS): string {
  const lines = commands.map((c) => [usageLine(c).slice('waitgate '.length), c.summary] as const);
  const width = Math.max(...lines.map(([u]) => u.length));
  return [
    'Usage: waitgate <command> [arguments]',
    '',
    'Commands:',
    ...lines.map(([u, summary]) => `  ${u.padEnd(width)}  ${summary}`),
    `  ${'completion bash|zsh'.padEnd(width)}  print a shell completion script (source <(waitgate completion bash))`,
    '',
    'Run `waitgate <command> --help` for more about one command; `waitgate --version` prints the version.',
  ].join('\n');
}

/** Runs the command line `argv` (without node and the script); resolves to the exit code. */
export async function run(argv: readonly string[], io: CliIo, commands: readonly Command[] = COMMANDS): Promise<number> {
  const [first] = argv;
  if (first === '--help' || first === '-h' || first === 'help') {
    io.stdout(usage(commands));
    return ExitCode.Ok;
  }
  if (first === '__complete') {
    // The last word is the one being completed (possibly empty).
    const words = argv.slice(1, -1);
    const partial = argv.length > 1 ? (argv[argv.length - 1] as string) : '';
    const { candidates, directive, lookup } = complete(commands, words, partial);
    const found = lookup === undefined ? [] : await lookupNames(lookup, partial, flagsOnLine(words), io);
    for (const c of [...candidates, ...found]) io.stdout(c);
    io.stdout(`:${directive}`);
    return ExitCode.Ok;
  }
  if (first === 'completion') {
    const shell = argv[1];
    if (shell === 'bash' || shell === 'zsh') {
      io.stdout((shell === 'bash' ? BASH_COMPLETION : ZSH_COMPLETION).trimEnd());
      return ExitCode.Ok;
    }
    io.stderr('waitgate completion: give bash or zsh, as in: source <(waitgate completion bash)');
    return ExitCode.Refused;
  }
  if (first === '--version') {
    io.stdout(`waitgate ${VERSION}`);
    return ExitCode.Ok;
  }
  const command = commands.find((c) => c.words.every((w, i) => argv[i] === w));
  if (command) return command.run(argv.slice(command.words.length), io);
  io.stderr(first === undefined ? 'waitgate: no command given' : `waitgate: unknown command: ${argv.join(' ')}`);
  io.stderr(usage(commands));
  return ExitCode.Refused;
}

/** The process entry: real streams and file system, and no crash when stdout is closed early. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  try {
    const code = await run(argv, processIo());
    // A lookup cut off at its bound may leave a connection still trying (a TLS handshake that
    // never ends holds the event loop for its own timeout): a completer answers and ends now.
    // Writes to a pipe or file are synchronous on Linux, so nothing printed is lost.
    if (argv[0] === '__complete') process.exit(code);
    return code;
  } catch (err) {
    process.stderr.write(`waitgate: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return ExitCode.Failure;
  }
}
