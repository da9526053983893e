import { describe, expect, test } from '@jest/globals';
import { partitionHolds } from './run.js';

describe('partitionHolds', () => {
  const at = Date.parse('2026-12-04T12:00:00Z');
  test.each<[string, number, number]>([
    ['scope 2, a 150 s partition', 150_000, 2],
    ['scope 1, a 130 s partition', 130_000, 1],
  ])('%s: the places taken through it and a minute past, two more due inside it', (_what, partitionMs, scope) => {
    const holds = partitionHolds(at, partitionMs, scope);
    const long = holds.slice(0, scope);
    const due = holds.slice(scope);
    expect(holds.map((h) => h.repo)).toEqual(Array(scope + 2).fill('acme/partitioned'));
    expect(new Set(holds.map((h) => h.target)).size).toBe(scope + 2);
    for (const h of long) {
      expect((h.afterAt ?? 0) < at).toBe(true);
      // Still running a minute after the partition ends.
      expect((h.afterAt ?? 0) + h.runForS * 1000).toBeGreaterThanOrEqual(at + partitionMs + 60_000);
    }
    for (const h of due) expect(h.afterAt).toBeGreaterThan(at);
    expect(due.every((h) => (h.afterAt ?? 0) < at + partitionMs)).toBe(true);
  });
});
