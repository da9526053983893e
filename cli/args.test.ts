import { describe, expect, test } from '@jest/globals';
import { flagValue, outputJson, parseArgs, parseCommandLine, type FlagSpec } from './args.js';

const specs: FlagSpec[] = [
  { name: 'namespace', short: 'n', value: true },
  { name: 'all-namespaces', short: 'A' },
  { name: 'output', short: 'o', value: true },
  { name: 'all' },
];

describe('parseArgs', () => {
  test('long, long=value, short with a space and glued, positionals between', () => {
    const r = parseArgs(['a', '--namespace', 'x', '-oJSON', 'b', '--all', '-A'], specs);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.positionals).toEqual(['a', 'b']);
    expect(flagValue(r, 'namespace')).toBe('x');
    expect(flagValue(r, 'output')).toBe('JSON');
    expect(r.flags.get('all')).toBe(true);
    expect(r.flags.get('all-namespaces')).toBe(true);
    const eq = parseArgs(['--namespace=team-a', '-n=team-b'], specs);
    expect(eq.ok && flagValue(eq, 'namespace')).toBe('team-b');
  });

  test('-- ends the flags', () => {
    const r = parseArgs(['--', '-n', 'x'], specs);
    expect(r.ok && r.positionals).toEqual(['-n', 'x']);
  });

  test.each([
    [['--frobnicate'], 'unknown flag --frobnicate'],
    [['-x'], 'unknown flag -x'],
    [['-n'], '-n needs a value'],
    [['--all=yes'], '--all takes no value'],
    [['-n', '-A'], '-n needs a value'],
    [['--namespace'], '--namespace needs a value'],
  ])('%j is refused: %s', (args, problem) => {
    expect(parseArgs(args, specs)).toEqual({ ok: false, problem });
  });

  test('outputJson', () => {
    const of = (args: string[]) => {
      const r = parseArgs(args, specs);
      if (!r.ok) throw new Error(r.problem);
      return outputJson(r);
    };
    expect(of([])).toBe(false);
    expect(of(['-o', 'json'])).toBe(true);
    expect(of(['-o', 'text'])).toBe(false);
    expect(of(['-o', 'yaml'])).toEqual({ problem: expect.stringContaining('text (the default) and json') });
  });
});

describe('parseCommandLine', () => {
  const line = { flags: specs, positionals: ['PROFILE', 'TARGET'], missing: 'give a PROFILE and a TARGET' } as const;

  test('the positionals it takes, by position; the flags; -o json', () => {
    const r = parseCommandLine(['jira', '-n', 'x', 'acme/web#7', '-o', 'json'], line);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const [profile, target] = r.args;
    expect([profile, target]).toEqual(['jira', 'acme/web#7']);
    expect(flagValue(r, 'namespace')).toBe('x');
    expect(r.json).toBe(true);
    expect(parseCommandLine([], { flags: specs, positionals: [] })).toMatchObject({ ok: true, args: [], json: false });
  });

  test.each<[string[], string]>([
    [['--frobnicate', 'a'], 'unknown flag --frobnicate'],
    [['jira'], 'give a PROFILE and a TARGET'],
    [['jira', 't', 'extra', 'more'], 'unexpected argument extra'],
    [['jira', 't', '-o', 'yaml'], '-o yaml: the output formats are text (the default) and json'],
    // In that order: a flag problem before a missing positional, before the output format.
    [['-x'], 'unknown flag -x'],
    [['-o', 'yaml'], 'give a PROFILE and a TARGET'],
  ])('%j is refused: %s', (args, problem) => {
    expect(parseCommandLine(args, line)).toEqual({ ok: false, problem });
  });

  test('without its own words for a missing positional, it names them', () => {
    expect(parseCommandLine([], { flags: specs, positionals: ['NAME'] })).toEqual({ ok: false, problem: 'give NAME' });
  });
});
