import { describe, expect, test } from '@jest/globals';
import { COMMANDS } from './commands/index.js';
import { complete, CompletionDirective, flagsOnLine, Lookup } from './completion.js';

describe('complete', () => {
  test.each<[string, string[], string, string[], CompletionDirective]>([
    [
      'the commands',
      [],
      '',
      [
        '--help',
        '--version',
        'approve',
        'cancel',
        'check',
        'completion',
        'describe',
        'doctor',
        'held',
        'mcp',
        'reject',
        'triggers',
        'version',
      ],
      CompletionDirective.NoFileComp,
    ],
    ['a command by its start', [], 'c', ['cancel', 'check', 'completion'], CompletionDirective.NoFileComp],
    ["a command's next word", ['triggers'], '', ['check'], CompletionDirective.NoFileComp],
    ['the shells', ['completion'], '', ['bash', 'zsh'], CompletionDirective.NoFileComp],
    ["a command's flags", ['held'], '--a', ['--all', '--all-namespaces'], CompletionDirective.NoFileComp],
    [
      'short flags too',
      ['cancel', 'x'],
      '-',
      ['--context', '--help', '--kubeconfig', '--namespace', '--output', '--timeout', '-h', '-n', '-o'],
      CompletionDirective.NoFileComp,
    ],
    ['an output format after -o', ['held', '-o'], 'j', ['json'], CompletionDirective.NoFileComp],
    ["held's own formats", ['held', '-o'], '', ['json', 'name', 'text', 'wide', 'yaml'], CompletionDirective.NoFileComp],
    ['no wide for another command', ['cancel', '-o'], '', ['json', 'text'], CompletionDirective.NoFileComp],
    ['a kubeconfig path: files', ['held', '--kubeconfig'], '', [], CompletionDirective.Default],
    ['the FILE of triggers check: files', ['triggers', 'check'], 'trig', [], CompletionDirective.Default],
    ['past the NAME: nothing to offer, no files', ['cancel', 'web-7'], '', [], CompletionDirective.NoFileComp],
  ])('%s', (_what, words, partial, candidates, directive) => {
    expect(complete(COMMANDS, words, partial)).toEqual({ candidates, directive });
  });

  test.each<[string, string[], Lookup]>([
    ['a HeldJob for cancel', ['cancel'], Lookup.HeldJobs],
    ['a HeldJob for describe, after -n NS', ['describe', '-n', 'team-a'], Lookup.HeldJobs],
    ['a HeldJob for approve', ['approve'], Lookup.HeldJobs],
    ['a HeldJob for reject', ['reject', '--kubeconfig', 'k'], Lookup.HeldJobs],
    ['a profile for check', ['check'], Lookup.Profiles],
    ['a namespace after -n', ['held', '-n'], Lookup.Namespaces],
    ['a namespace after --namespace', ['cancel', 'x', '--namespace'], Lookup.Namespaces],
  ])('the cluster is asked for %s', (_what, words, lookup) => {
    expect(complete(COMMANDS, words, '')).toEqual({ candidates: [], directive: CompletionDirective.NoFileComp, lookup });
  });

  test('no profile lookup for check once PROFILE is given (TARGET is free text)', () => {
    expect(complete(COMMANDS, ['check', 'jira'], '').lookup).toBeUndefined();
  });

  test.each<[string[], Record<string, string>]>([
    [['describe', '-n', 'team-a', '--kubeconfig', '/k'], { namespace: 'team-a', kubeconfig: '/k' }],
    [['check', '--waitgate-namespace=ops', '--context', 'c'], { 'waitgate-namespace': 'ops', context: 'c' }],
    [['cancel'], {}],
  ])('flags on the line %j', (words, flags) => {
    expect(flagsOnLine(words)).toEqual(flags);
  });
});
