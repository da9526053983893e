import { describe, expect, test } from '@jest/globals';
import { boundText, STATUS_TEXT_MAX_BYTES, utf8Bytes } from './bounded-text.js';
import type { KubeCondition } from './heldjob-schema.js';
import { conditionChanged, findCondition, removeCondition, setCondition, type ConditionInput } from './conditions.js';

const T0 = Date.parse('2026-09-01T08:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const waiting: KubeCondition = {
  type: 'Waiting',
  status: 'True',
  reason: 'Held',
  message: 'm',
  lastTransitionTime: iso(T0),
  observedGeneration: 1,
};

describe('setCondition', () => {
  test.each<[string, KubeCondition[] | undefined, ConditionInput, number | undefined, KubeCondition[]]>([
    [
      'added to an empty list, at now, with the generation',
      undefined,
      { type: 'Waiting', status: 'True', reason: 'Held' },
      1,
      [{ type: 'Waiting', status: 'True', reason: 'Held', lastTransitionTime: iso(T0 + 1), observedGeneration: 1 }],
    ],
    [
      'same status, new reason: the transition time stays',
      [waiting],
      { type: 'Waiting', status: 'True', reason: 'NotYet' },
      1,
      [{ type: 'Waiting', status: 'True', reason: 'NotYet', lastTransitionTime: iso(T0), observedGeneration: 1 }],
    ],
    [
      'same status, a new generation: the transition time stays, the generation is the new one',
      [waiting],
      { type: 'Waiting', status: 'True', reason: 'Held', message: 'm' },
      2,
      [{ ...waiting, observedGeneration: 2 }],
    ],
    [
      'a new status: the transition time is now',
      [waiting],
      { type: 'Waiting', status: 'False', reason: 'Cleared' },
      1,
      [{ type: 'Waiting', status: 'False', reason: 'Cleared', lastTransitionTime: iso(T0 + 1), observedGeneration: 1 }],
    ],
    [
      'another type is appended, the first kept',
      [waiting],
      { type: 'Launched', status: 'True', reason: 'JobCreated' },
      1,
      [waiting, { type: 'Launched', status: 'True', reason: 'JobCreated', lastTransitionTime: iso(T0 + 1), observedGeneration: 1 }],
    ],
    [
      'no generation known: none written',
      undefined,
      { type: 'Waiting', status: 'True', reason: 'Held' },
      undefined,
      [{ type: 'Waiting', status: 'True', reason: 'Held', lastTransitionTime: iso(T0 + 1) }],
    ],
  ])('%s', (_n, list, next, generation, expected) => {
    expect(setCondition(list, next, T0 + 1, generation)).toEqual(expected);
  });

  test('a message over the bound is cut, so the write that carries it fits (the apiserver refuses one over 32 KiB)', () => {
    const huge = `the apiserver refused the Job (422): ${'x'.repeat(40_000)}`;
    const [c] = setCondition(undefined, { type: 'Finished', status: 'True', reason: 'JobRejected', message: huge }, T0, 1);
    expect(utf8Bytes(c?.message ?? '')).toBeLessThanOrEqual(STATUS_TEXT_MAX_BYTES);
    expect(c?.message).toBe(boundText(huge));
    // Set again with the same long message: nothing changed but the clock.
    expect(conditionChanged(c ? [c] : [], { type: 'Finished', status: 'True', reason: 'JobRejected', message: huge }, 1)).toBe(false);
  });

  test('never the same array', () => {
    const list = [waiting];
    expect(setCondition(list, waiting, T0, 1)).not.toBe(list);
  });

  test('removeCondition takes one type off, never the same array', () => {
    const list = [waiting];
    expect(removeCondition(list, 'Waiting')).toEqual([]);
    expect(removeCondition(list, 'Stalled')).toEqual(list);
    expect(removeCondition(list, 'Stalled')).not.toBe(list);
    expect(removeCondition(undefined, 'Stalled')).toEqual([]);
  });
});

describe('conditionChanged', () => {
  test.each<[string, ConditionInput, number | undefined, boolean]>([
    ['the same but for the clock', { type: 'Waiting', status: 'True', reason: 'Held', message: 'm' }, 1, false],
    ['a new reason', { type: 'Waiting', status: 'True', reason: 'NotYet', message: 'm' }, 1, true],
    ['a new message', { type: 'Waiting', status: 'True', reason: 'Held', message: 'n' }, 1, true],
    ['a new status', { type: 'Waiting', status: 'False', reason: 'Held', message: 'm' }, 1, true],
    ['a new generation, all else the same', { type: 'Waiting', status: 'True', reason: 'Held', message: 'm' }, 2, true],
    ['a type not there yet', { type: 'Launched', status: 'True', reason: 'JobCreated' }, 1, true],
  ])('%s: %s', (_n, next, generation, changed) => {
    expect(conditionChanged([waiting], next, generation)).toBe(changed);
  });

  test('findCondition finds by type', () => {
    expect(findCondition([waiting], 'Waiting')).toBe(waiting);
    expect(findCondition(undefined, 'Waiting')).toBeUndefined();
  });
});
