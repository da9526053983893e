import { describe, expect, test } from '@jest/globals';
import { supersedingHoldOf } from './superseded-hold.js';

const RECEIVER = { 'waitgate.dev/made-by': 'receiver' };
const of = (labels: Record<string, string>, annotations: Record<string, string>) => ({
  metadata: { name: 'web-7-notify-abcd1234-2', namespace: 'team-a', uid: 'u-1', labels, annotations },
});

describe('supersedingHoldOf: whose mark is honoured', () => {
  test.each<[string, Record<string, string>, Record<string, string>, string | undefined]>([
    [
      'a receiver-made hold marked by a newer one',
      RECEIVER,
      { 'waitgate.dev/superseded-by': 'web-7-notify-abcd1234-3' },
      'web-7-notify-abcd1234-3',
    ],
    ['unmarked', RECEIVER, {}, undefined],
    ['written by hand: the mark says nothing', {}, { 'waitgate.dev/superseded-by': 'web-7-notify-abcd1234-3' }, undefined],
    ['a mark that is no object name', RECEIVER, { 'waitgate.dev/superseded-by': 'Web 7;rm' }, undefined],
    ['a mark longer than a name may be', RECEIVER, { 'waitgate.dev/superseded-by': 'a'.repeat(64) }, undefined],
    ['a mark naming itself', RECEIVER, { 'waitgate.dev/superseded-by': 'web-7-notify-abcd1234-2' }, undefined],
    ['an empty mark', RECEIVER, { 'waitgate.dev/superseded-by': '' }, undefined],
  ])('%s', (_n, labels, annotations, by) => {
    expect(supersedingHoldOf(of(labels, annotations))).toBe(by);
  });
});
