import { describe, expect, test } from '@jest/globals';
import { checkTriggers } from './triggers-file.js';
import { TRIGGER_WARNING_CODES, TriggerWarningCode, triggerWarnings } from './warnings.js';

const job = { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } };
const entry = (name: string, on: Record<string, unknown> = {}) => ({
  name,
  on: { type: 'label', any: ['waitgate:go'], ...on },
  run: { kind: 'github', flow: 'deploy', job },
});

function warningsOf(entries: unknown[]) {
  const r = checkTriggers(entries);
  if (!r.ok) throw new Error(JSON.stringify(r.refusals));
  return triggerWarnings(r.triggers).map(({ where, path, code }) => [where, path, code]);
}

describe('triggerWarnings', () => {
  test.each<[string, unknown[], string[][]]>([
    ['no triggers', [], []],
    ['a trigger naming its repositories', [entry('deploy', { repositories: ['acme/web'] })], []],
    ['a trigger without on.repositories', [entry('deploy')], [['deploy', '$[0].on', TriggerWarningCode.EveryRepository]]],
    [
      'only the triggers without, in file order',
      [entry('a'), entry('b', { repositories: ['acme/*'] }), entry('c', { once: true })],
      [
        ['a', '$[0].on', TriggerWarningCode.EveryRepository],
        ['c', '$[2].on', TriggerWarningCode.EveryRepository],
      ],
    ],
  ])('%s', (_d, entries, expected) => {
    expect(warningsOf(entries)).toEqual(expected);
  });

  test('the message says why and what to write', () => {
    const r = checkTriggers([entry('deploy')]);
    if (!r.ok) throw new Error('refused');
    const [w] = triggerWarnings(r.triggers);
    expect(w?.message).toMatch(/organisation hook or a GitHub App.*"repositories": \["acme\/web"\]/);
    expect(w?.message).not.toMatch(/\n/);
  });

  test('the vocabulary is closed and every code is used above', () => {
    expect(TRIGGER_WARNING_CODES).toEqual([TriggerWarningCode.EveryRepository]);
  });
});
