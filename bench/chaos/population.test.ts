import { expect, test } from '@jest/globals';
import { clearedAt, HoldKind, HoldSource, planPopulation, targetKey } from './population.js';

const o = {
  holds: 1000,
  seed: 7,
  t0: Date.parse('2026-12-03T10:00:00Z'),
  spreadMs: 420_000,
  perRepo: 10,
  deliveryAfterAt: Date.parse('2026-12-03T10:02:00Z'),
};

test('the plan is the seed’s: the same seed, the same holds', () => {
  expect(planPopulation(o)).toEqual(planPopulation(o));
  expect(planPopulation({ ...o, seed: 8 })).not.toEqual(planPopulation(o));
});

test('every kind and source is there, targets are unique, instants are whole seconds within the spread', () => {
  const plan = planPopulation(o);
  expect(new Set(plan.map((h) => h.target)).size).toBe(1000);
  expect(new Set(plan.map((h) => h.repo)).size).toBe(100);
  for (const kind of Object.values(HoldKind)) expect(plan.some((h) => h.kind === kind)).toBe(true);
  expect(plan.filter((h) => h.source === HoldSource.Delivery)).toHaveLength(200);
  for (const h of plan) {
    const at = clearedAt(h);
    expect(at % 1000).toBe(0);
    expect(at).toBeGreaterThanOrEqual(o.t0);
    expect(at).toBeLessThanOrEqual(o.t0 + o.spreadMs + 1000);
    expect(h.name === undefined).toBe(h.source === HoldSource.Delivery);
  }
});

test('targetKey is what the exec script computes', () => {
  expect(targetKey('acme/r1#7')).toBe('acme_r1_7');
  expect(targetKey('group/repo!12')).toBe('group_repo_12');
});
