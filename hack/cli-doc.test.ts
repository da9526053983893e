import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { printHelp, type Command } from '../cli/commands/command.js';
import { CLI_DOC_PATH, proseFlagProblems, renderCliDoc } from './cli-doc.js';

const page = readFileSync(CLI_DOC_PATH, 'utf8');

describe('docs/cli.md', () => {
  test('every generated block is what the command prints for --help now (run `npm run build && npm run gen:cli-doc`)', async () => {
    expect(await renderCliDoc(page)).toBe(page);
  });

  test('the prose and its examples give no command a flag it does not take', () => {
    expect(proseFlagProblems(page)).toEqual([]);
  });
});

describe('the generator and the drift check', () => {
  const held: Command = {
    words: ['held'],
    args: '[-n NS]',
    summary: 'what waits',
    help: 'Lists.\n\n  -n, --namespace NS  here',
    flags: [
      { name: 'namespace', short: 'n', value: true },
      { name: 'help', short: 'h' },
    ],
    run: (_args, io) => Promise.resolve(printHelp(held, io)),
  };
  const begin = (words: string) => `<!-- BEGIN generated: waitgate ${words}--help (npm run gen:cli-doc) -->`;
  const block = (words: string, body: string) => [begin(words), '```text', body, '```', '<!-- END generated -->'].join('\n');

  test('a stale block is rewritten from the help; the prose around it is kept', async () => {
    const stale = ['# CLI', block('', 'old usage'), 'prose', block('held ', 'old help'), 'more prose'].join('\n');
    const fresh = await renderCliDoc(stale, [held]);
    expect(fresh).toContain(block('held ', 'Usage: waitgate held [-n NS]\n\nLists.\n\n  -n, --namespace NS  here'));
    expect(fresh).toMatch(/Usage: waitgate <command> \[arguments\][\s\S]*held \[-n NS\] {2}what waits/);
    expect(fresh.split('\n').filter((l) => !l.startsWith('<!--') && !/^(```|Usage|Commands|Run| {2}|$)/.test(l))).toEqual([
      '# CLI',
      'prose',
      'Lists.',
      'more prose',
    ]);
    expect(await renderCliDoc(fresh, [held])).toBe(fresh);
  });

  test('a command without a block, or a block of no command, is an error', async () => {
    await expect(renderCliDoc(block('', 'x'), [held])).rejects.toThrow(/no generated help of: waitgate held --help/);
    await expect(renderCliDoc([block('', 'x'), block('held ', 'x'), block('nope ', 'x')].join('\n'), [held])).rejects.toThrow(
      /there is no command waitgate nope/,
    );
  });

  test.each<[string, string, string[]]>([
    ['a flag the command takes', '## `waitgate held`\n\nUse `-n, --namespace NS`.', []],
    ['a flag it does not take, alone in its section', '## `waitgate held`\n\nUse `--waitgate-namespace NS`.', ['--waitgate-namespace']],
    ['in a command line written out anywhere', 'Run `waitgate held --all` here.', ['--all']],
    ['in a usage line', '| `waitgate held [--namespace NS] [-A]` | what |', ['-A']],
    ['in a usage line, a value in brackets', '`waitgate held [--waitgate-namespace NS]`', ['--waitgate-namespace']],
    ['in an example', '```\n$ npx waitgate held -A\n```', ['-A']],
    ['through kubectl', 'Run `kubectl waitgate held --watch`.', ['--watch']],
    ['other programs are not looked at', '## `waitgate held`\n\n`grep -q` and `kubectl get heldjobs -A`', []],
    ['nor are generated blocks', block('held ', '  --all  everything'), []],
  ])('%s', (_n, text, flags) => {
    expect(proseFlagProblems(text, [held]).map((p) => /takes no (\S+)/.exec(p)?.[1])).toEqual(flags);
  });
});
