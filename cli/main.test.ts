import { describe, expect, test } from '@jest/globals';
import type { Command } from './commands/command.js';
import type { CliIo } from './io.js';
import { run, usage } from './main.js';
import { VERSION } from '../lib/version.js';

function capture(files: Record<string, string> = {}) {
  const out = { stdout: [] as string[], stderr: [] as string[] };
  const io: CliIo = {
    stdout: (line) => void out.stdout.push(line),
    stderr: (line) => void out.stderr.push(line),
    readFile: async (p) => {
      const text = files[p];
      if (text === undefined) throw new Error(`ENOENT: no such file, open '${p}'`);
      return text;
    },
    env: {},
    now: () => Date.parse('2026-09-01T09:00:00Z'),
  };
  return { io, out };
}

describe('waitgate', () => {
  test.each([['--help'], ['-h'], ['help']])('%s prints the commands and exits 0', async (flag) => {
    const { io, out } = capture();
    expect(await run([flag], io)).toBe(0);
    const help = out.stdout.join('\n');
    expect(help).toMatch(/Usage: waitgate <command>[\s\S]*triggers check FILE/);
    for (const command of ['held', 'cancel NAME', 'check PROFILE TARGET', 'doctor']) expect(help).toContain(`  ${command}`);
    expect(out.stderr).toEqual([]);
  });

  test.each([['--version']])('%s prints the version from package.json and exits 0', async (flag) => {
    const { io, out } = capture();
    expect(await run([flag], io)).toBe(0);
    expect(out.stdout).toEqual([`waitgate ${VERSION}`]);
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  test.each([[['frobnicate']], [['triggers']], [['triggers', 'lint', 'x']], [[]]])('%j is an error with usage, exit 2', async (argv) => {
    const { io, out } = capture();
    expect(await run(argv, io)).toBe(2);
    expect(out.stdout).toEqual([]);
    expect(out.stderr[0]).toMatch(/^waitgate: (unknown command|no command given)/);
    expect(out.stderr.join('\n')).toContain('triggers check FILE');
  });

  test('dispatches triggers check with the arguments after its words', async () => {
    const { io, out } = capture({ 't.json': '[]' });
    expect(await run(['triggers', 'check', 't.json'], io)).toBe(0);
    expect(out.stdout).toEqual(['0 triggers loaded']);
  });

  test('help lists every command it is given, so a new command shows up by being registered', async () => {
    const extra: Command = { words: ['held'], args: '', summary: 'list held jobs', help: '', run: async () => 0 };
    expect(usage([extra])).toMatch(/^ {2}held {2}list held jobs$/m);
    const { io } = capture();
    expect(await run(['held'], io, [extra])).toBe(0);
  });
});
