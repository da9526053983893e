// The shape every `waitgate` subcommand has, so that main.ts can list and dispatch them.
import type { FlagSpec } from '../args.js';
import type { CliIo } from '../io.js';

export const ExitCode = {
  /** The command did what it was asked and found nothing wrong. */
  Ok: 0,
  /** A plain failure of the command itself. */
  Failure: 1,
  /** The input was refused, could not be read, or the command line was wrong. */
  Refused: 2,
  /** What the command was asked to act on does not exist (cancel of a missing HeldJob). */
  NotFound: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export interface Command {
  /** The words that select the command, e.g. ['triggers', 'check']. */
  readonly words: readonly string[];
  /** Its arguments as usage shows them, e.g. 'FILE'. */
  readonly args: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The command's own help text (without the usage line). */
  readonly help: string;
  /** Its flags, for shell completion. */
  readonly flags?: readonly FlagSpec[];
  /** Runs the command on the arguments that follow its words; resolves to the exit code. */
  run(args: readonly string[], io: CliIo): Promise<number>;
}

export function usageLine(command: Command): string {
  return `waitgate ${command.words.join(' ')}${command.args ? ` ${command.args}` : ''}`;
}

export function wantsHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}

/** Prints the command's usage line and help; the exit code for it. */
export function printHelp(command: Command, io: CliIo): ExitCode {
  io.stdout(`Usage: ${usageLine(command)}\n\n${command.help}`);
  return ExitCode.Ok;
}

/** Refuses a command line: the problem and the usage line on stderr; the exit code for it. */
export function refuseUsage(command: Command, io: CliIo, problem: string): ExitCode {
  io.stderr(`waitgate ${command.words.join(' ')}: ${problem}`);
  io.stderr(`Usage: ${usageLine(command)}`);
  return ExitCode.Refused;
}
