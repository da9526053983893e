import { describe, expect, test } from '@jest/globals';
import { TriggerRefusalCode as Code } from './refusal-codes.js';
import { readsAsWaitFor } from './wait-for-placement.js';
import { checkWaitFor } from './wait-for-rules.js';

const BASE = '$[4].run.waitFor';

describe('checkWaitFor', () => {
  test.each([
    [[{ after: '2026-09-01T09:00:00Z' }]],
    [[{ profile: 'jira' }, { after: '2026-09-01T09:00:00.5+02:00' }]],
    [[{ profile: 'a' }, { profile: 'b' }, { profile: 'c' }, { after: '2028-02-29T23:59:59-05:30' }]],
  ])('returns the conditions of %j, in order', (conditions) => {
    expect(checkWaitFor(conditions, BASE)).toEqual({ conditions, refusals: [] });
  });

  test.each([
    ['not a list', 'after', BASE, Code.WaitForShape],
    ['empty', [], BASE, Code.WaitForCount],
    // eslint-disable-next-line no-sparse-arrays -- the hole is the case under test
    ['a hole in a sparse list', [{ profile: 'a' }, , { profile: 'b' }], `${BASE}[1]`, Code.WaitForShape],
    ['a key with a space', [{ 'after ': '2026-09-01T09:00:00Z' }], `${BASE}[0]["after "]`, Code.WaitForUnknownKey],
    ['a zoneless after', [{ after: '2026-09-01T09:00' }], `${BASE}[0].after`, Code.AfterZoneless],
    ['an after of the right shape but the wrong month', [{ after: '2026-13-01T09:00:00Z' }], `${BASE}[0].after`, Code.AfterInvalid],
    ['exclusive', [{ exclusive: false }], `${BASE}[0].exclusive`, Code.WaitForExclusive],
  ])('refuses %s, under the base path it is given', (_description, value, path, code) => {
    const r = checkWaitFor(value, BASE);
    expect(r.conditions).toBeUndefined();
    expect(r.refusals).toEqual([{ path, code, message: expect.any(String) }]);
  });

  test('reports every condition, not just the first bad one', () => {
    const r = checkWaitFor([{ after: 'soon' }, { profile: 'Jira' }, { exclusive: true }, { profile: 'ok' }, { ci: 1 }], BASE);
    expect(r.refusals.map((x) => [x.path, x.code])).toEqual([
      [BASE, Code.WaitForCount],
      [`${BASE}[0].after`, Code.AfterInvalid],
      [`${BASE}[1].profile`, Code.ProfileInvalid],
      [`${BASE}[2].exclusive`, Code.WaitForExclusive],
      [`${BASE}[4].ci`, Code.WaitForUnknownKey],
    ]);
  });

  test('keeps a long or multi-line after on one short line', () => {
    const r = checkWaitFor([{ after: `2026-09-01\n${'x'.repeat(500)}` }], BASE);
    expect(r.refusals).toHaveLength(1);
    expect(r.refusals[0]?.message).not.toMatch(/\n/);
    expect(r.refusals[0]?.message.length).toBeLessThan(400);
  });
});

describe('readsAsWaitFor', () => {
  test.each(['waitFor', 'waitfor', 'wait_for', 'wait-for', 'WAITFOR', 'Wait_For', 'wait for', 'wait.for'])('%s reads as waitFor', (key) => {
    expect(readsAsWaitFor(key)).toBe(true);
  });
  test.each(['wait', 'waitForAll', 'after', 'waits'])('%s does not', (key) => {
    expect(readsAsWaitFor(key)).toBe(false);
  });
});
