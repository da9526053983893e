import { describe, expect, test } from '@jest/globals';
import { LABEL_VALUE_MAX, labelValue } from './label-value.js';

const VALID = /^(?:[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?)?$/;

describe('labelValue', () => {
  test.each<[string, string, string | RegExp]>([
    ['a short name is kept', 'web-7-deploy', 'web-7-deploy'],
    ['63 characters are kept', 'a'.repeat(63), 'a'.repeat(63)],
    ['64 characters: a head and a hash', 'a'.repeat(64), /^a{52}-[0-9a-f]{10}$/],
    ['a 253-character name fits', `${'x'.repeat(250)}-1a`, /^x{52}-[0-9a-f]{10}$/],
    ['characters a label cannot hold are replaced, then hashed', 'acme/web#7', /^acme-web-7-[0-9a-f]{10}$/],
    ['a head that ends on a dash loses it', `${'a'.repeat(51)}--${'b'.repeat(20)}`, /^a{51}-[0-9a-f]{10}$/],
  ])('%s', (_n, input, want) => {
    const got = labelValue(input);
    if (typeof want === 'string') expect(got).toBe(want);
    else expect(got).toMatch(want);
    expect(got.length).toBeLessThanOrEqual(LABEL_VALUE_MAX);
    expect(got).toMatch(VALID);
  });

  test('two long names that share a head get different values', () => {
    const head = 'h'.repeat(70);
    expect(labelValue(`${head}-one`)).not.toBe(labelValue(`${head}-two`));
  });
});
