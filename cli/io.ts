// What a command may touch: two output streams, the file system, the environment, the clock
// and, for a full-screen command, the terminal, passed in so that a command can be run, and
// tested, without a process around it.
import { readFile } from 'node:fs/promises';
import { processTerminal, type Terminal } from './terminal.js';

export interface CliIo {
  /** Writes one line (the newline is added) to standard output. */
  stdout(line: string): void;
  /** Writes one line (the newline is added) to standard error. */
  stderr(line: string): void;
  /** Reads a whole file as UTF-8 text. */
  readFile(path: string): Promise<string>;
  /** The environment the command runs with (settings, KUBECONFIG, VALKEY_URL; a check's own). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The time, in epoch milliseconds. */
  now(): number;
  /** Takes over the terminal for a full-screen command; undefined when there is none (not a TTY). */
  terminal?(): Terminal | undefined;
}

export function processIo(): CliIo {
  return {
    stdout: (line) => void process.stdout.write(`${line}\n`),
    stderr: (line) => void process.stderr.write(`${line}\n`),
    readFile: (path) => readFile(path, 'utf8'),
    env: process.env,
    now: () => Date.now(),
    terminal: processTerminal,
  };
}
