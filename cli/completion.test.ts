import { describe, expect, test } from '@jest/globals';
import { COMMANDS } from './commands/index.js';
import { complete, CompletionDirective } from './completion.js';

describe('complete', () => {
  test.each<[string, string[], string, string[], CompletionDirective]>([
    [
      'the commands',
      [],
      '',
      ['--help', '--version', 'approve', 'cancel', 'check', 'completion', 'doctor', 'held', 'mcp', 'reject', 'triggers'],
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
    ['a kubeconfig path: files', ['held', '--kubeconfig'], '', [], CompletionDirective.Default],
    ['the FILE of triggers check: files', ['triggers', 'check'], 'trig', [], CompletionDirective.Default],
    ['a HeldJob name: nothing to offer, no files', ['cancel'], '', [], CompletionDirective.NoFileComp],
  ])('%s', (_what, words, partial, candidates, directive) => {
    expect(complete(COMMANDS, words, partial)).toEqual({ candidates, directive });
  });
});
