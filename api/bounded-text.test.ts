import { describe, expect, test } from '@jest/globals';
import { boundedStatus, boundText, cutMarker, STATUS_TEXT_MAX_BYTES, utf8Bytes } from './bounded-text.js';
import { Phase } from './vocabulary.js';

const KiB = 1024;

describe('boundText', () => {
  test.each<[string, string, number, string]>([
    ['empty', '', KiB, ''],
    ['short ASCII, as it came', 'the apiserver refused the Job (422): spec.template: Required value', KiB, 'same'],
    ['exactly the limit in bytes, as it came', 'x'.repeat(KiB), KiB, 'same'],
    ['one byte over: cut, marker within the limit', 'x'.repeat(KiB + 1), KiB, 'cut'],
    ['an apiserver message echoing a 40,000-character label value', `Job.batch "j" is invalid: "${'x'.repeat(40_000)}"`, KiB, 'cut'],
    ['two-byte characters fitting in characters but not in bytes', 'é'.repeat(600), KiB, 'cut'],
    ['three-byte characters', '€'.repeat(2_000), KiB, 'cut'],
    ['four-byte characters (surrogate pairs) are never split', '😀'.repeat(1_000), KiB, 'cut'],
    ['a lone surrogate counts as the three bytes it is written as', `${'\uD800'.repeat(400)}`, KiB, 'cut'],
    ['a limit too small for the marker: the head alone', 'abcdefghij'.repeat(10), 8, 'abcdefgh'],
  ])('%s', (_name, text, max, expected) => {
    const out = boundText(text, max);
    expect(utf8Bytes(out)).toBeLessThanOrEqual(max);
    if (expected === 'same') expect(out).toBe(text);
    else if (expected === 'cut') {
      expect(out.endsWith(cutMarker(utf8Bytes(text)))).toBe(true);
      // The head is the text's own head, whole characters only.
      const head = out.slice(0, out.length - cutMarker(utf8Bytes(text)).length);
      expect(text.startsWith(head)).toBe(true);
      expect(head.length).toBeGreaterThan(0);
      // As much as fits: one more character would not.
      const next = [...text.slice(head.length)][0] ?? '';
      expect(utf8Bytes(head + next + cutMarker(utf8Bytes(text)))).toBeGreaterThan(max);
    } else expect(out).toBe(expected);
  });

  test('idempotent: a bounded text comes back unchanged', () => {
    for (const text of ['short', 'x'.repeat(100_000), '€'.repeat(5_000), '😀'.repeat(3_000)]) {
      const once = boundText(text);
      expect(boundText(once)).toBe(once);
    }
  });

  test('a pair of surrogates is kept whole or left out whole', () => {
    const text = '😀'.repeat(1_000);
    const out = boundText(text);
    const head = out.slice(0, out.length - cutMarker(utf8Bytes(text)).length);
    expect([...head].every((c) => c === '😀')).toBe(true);
  });

  test('the marker says how large the text was', () => {
    expect(boundText('y'.repeat(80_178))).toMatch(/… \[cut from 80178 bytes\]$/);
  });

  test('the default limit is 1 KiB, far under the 32 KiB the apiserver allows a condition message', () => {
    expect(STATUS_TEXT_MAX_BYTES).toBe(KiB);
    expect(utf8Bytes(boundText('z'.repeat(1_000_000)))).toBe(KiB);
  });
});

describe('boundedStatus', () => {
  const huge = 'x'.repeat(40_000);
  const at = '2026-09-01T08:00:00.000Z';

  test('every message in it is bounded: status.message, each condition, each wait detail; the rest as it was', () => {
    const s = boundedStatus({
      phase: Phase.Failed,
      reason: 'JobRejected',
      message: huge,
      jobName: 'j',
      conditions: [
        { type: 'Finished', status: 'True', reason: 'JobRejected', message: huge, lastTransitionTime: at, observedGeneration: 2 },
        { type: 'Launched', status: 'True', reason: 'JobCreated', lastTransitionTime: at },
      ],
      waits: [
        { condition: 'ci', state: 'Waiting', detail: huge },
        { condition: 'after x', state: 'Cleared' },
      ],
    });
    expect(utf8Bytes(s.message ?? '')).toBeLessThanOrEqual(KiB);
    expect(s.conditions?.map((c) => utf8Bytes(c.message ?? ''))).toEqual([KiB, 0]);
    expect(s.conditions?.[1]).toEqual({ type: 'Launched', status: 'True', reason: 'JobCreated', lastTransitionTime: at });
    expect(s.waits?.[0]?.detail?.length).toBeLessThanOrEqual(KiB);
    expect(s.waits?.[1]).toEqual({ condition: 'after x', state: 'Cleared' });
    expect(s).toMatchObject({ phase: Phase.Failed, reason: 'JobRejected', jobName: 'j' });
    expect(boundedStatus(s)).toEqual(s);
  });

  test('a status with nothing to bound is equal to itself, and gains no fields', () => {
    const s = { phase: Phase.Held, heldSince: at };
    expect(boundedStatus(s)).toEqual(s);
  });
});
