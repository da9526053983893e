import { describe, expect, test } from '@jest/globals';
import { shortHash } from '../hash.js';
import { ValkeyKeys } from './keys.js';

/** The part of a key a Valkey cluster hashes: inside the first {...} that holds something, else all of it. */
function hashTagOf(key: string): string {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

describe('ValkeyKeys: the check slots', () => {
  const keys = new ValkeyKeys('waitgate');
  const all = [keys.checkSlots(), keys.checkSlotsOf('team-a'), keys.checkSlotsOf('team-b'), keys.checkActive()];

  test('every key starts with the prefix (the ACL pattern ~<prefix>:* covers them) and shares the {checks} hash tag', () => {
    for (const key of all) {
      expect(key.startsWith('waitgate:')).toBe(true);
      expect(hashTagOf(key)).toBe('checks');
    }
    expect(new Set(all).size).toBe(all.length);
  });

  test.each<[string, string, string]>([
    ['the fleet', keys.checkSlots(), 'waitgate:{checks}:slots'],
    ['a namespace, by its hash (no namespace name in a key)', keys.checkSlotsOf('team-a'), `waitgate:{checks}:ns:${shortHash('team-a')}`],
    ['the active namespaces', keys.checkActive(), 'waitgate:{checks}:active'],
  ])('%s', (_name, key, expected) => {
    expect(key).toBe(expected);
  });
});
