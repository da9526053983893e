import { describe, expect, test } from '@jest/globals';
import { findDuplicateKeys } from './duplicate-keys.js';

describe('findDuplicateKeys', () => {
  test.each([
    ['[]', []],
    ['[{"a":1,"b":{"a":2}}]', []],
    ['[{"a":1,"a":2}]', [{ path: '$[0].a', key: 'a' }]],
    ['[1, {"x": [0, {"k": "}", "k": "{"}]}]', [{ path: '$[1].x[1].k', key: 'k' }]],
    ['[{"w\\"q": 1, "w\\"q": 2}]', [{ path: '$[0]["w\\"q"]', key: 'w"q' }]],
    [
      '[{"\\u0061": 1, "a": 2, "a": 3}]',
      [
        { path: '$[0].a', key: 'a' },
        { path: '$[0].a', key: 'a' },
      ],
    ],
    ['[{"run": {"waitFor": [], "job": {}, "waitFor": [{"after": "x"}]}}]', [{ path: '$[0].run.waitFor', key: 'waitFor' }]],
  ])('%s', (text, expected) => {
    JSON.parse(text); // the scanner is only ever given valid JSON
    expect(findDuplicateKeys(text)).toEqual(expected);
  });

  test('survives nesting deeper than the call stack', () => {
    const text = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(findDuplicateKeys(text)).toEqual([]);
  });
});
