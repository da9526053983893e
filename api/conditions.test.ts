import { describe, expect, test } from '@jest/globals';
import type { KubeCondition } from './heldjob-schema.js';
import { conditionChanged, findCondition, setCondition } from './conditions.js';

const T0 = Date.parse('2026-09-01T08:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const waiting: KubeCondition = { type: 'Waiting', status: 'True', reason: 'Held', message: 'm', lastTransitionTime: iso(T0) };

describe('setCondition', () => {
  test.each<[string, KubeCondition[] | undefined, Omit<KubeCondition, 'lastTransitionTime'>, KubeCondition[]]>([
    [
      'added to an empty list, at now',
      undefined,
      { type: 'Waiting', status: 'True', reason: 'Held' },
      [{ type: 'Waiting', status: 'True', reason: 'Held', lastTransitionTime: iso(T0 + 1) }],
    ],
    [
      'same status, new reason: the transition time stays',
      [waiting],
      { type: 'Waiting', status: 'True', reason: 'NotYet' },
      [{ type: 'Waiting', status: 'True', reason: 'NotYet', lastTransitionTime: iso(T0) }],
    ],
    [
      'a new status: the transition time is now',
      [waiting],
      { type: 'Waiting', status: 'False', reason: 'Cleared' },
      [{ type: 'Waiting', status: 'False', reason: 'Cleared', lastTransitionTime: iso(T0 + 1) }],
    ],
    [
      'another type is appended, the first kept',
      [waiting],
      { type: 'Launched', status: 'True', reason: 'JobCreated' },
      [waiting, { type: 'Launched', status: 'True', reason: 'JobCreated', lastTransitionTime: iso(T0 + 1) }],
    ],
  ])('%s', (_n, list, next, expected) => {
    expect(setCondition(list, next, T0 + 1)).toEqual(expected);
  });

  test('never the same array', () => {
    const list = [waiting];
    expect(setCondition(list, waiting, T0)).not.toBe(list);
  });
});

describe('conditionChanged', () => {
  test.each<[string, Omit<KubeCondition, 'lastTransitionTime'>, boolean]>([
    ['the same but for the clock', { type: 'Waiting', status: 'True', reason: 'Held', message: 'm' }, false],
    ['a new reason', { type: 'Waiting', status: 'True', reason: 'NotYet', message: 'm' }, true],
    ['a new message', { type: 'Waiting', status: 'True', reason: 'Held', message: 'n' }, true],
    ['a new status', { type: 'Waiting', status: 'False', reason: 'Held', message: 'm' }, true],
    ['a type not there yet', { type: 'Launched', status: 'True' }, true],
  ])('%s: %s', (_n, next, changed) => {
    expect(conditionChanged([waiting], next)).toBe(changed);
  });

  test('findCondition finds by type', () => {
    expect(findCondition([waiting], 'Waiting')).toBe(waiting);
    expect(findCondition(undefined, 'Waiting')).toBeUndefined();
  });
});
