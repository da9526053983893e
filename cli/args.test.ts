import { describe, expect, test } from '@jest/globals';
import { flagValue, outputJson, parseArgs, type FlagSpec } from './args.js';

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
