// Every metric the processes register is listed in docs/metrics.md; and what that page and the
// chart's alerts name (metrics, refusal tokens) exists in the code.
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OperatorMetrics } from '../operator/metrics.js';
import { ReceiverMetrics } from '../receiver/metrics.js';
import { REFUSAL_TOKENS } from '../api/vocabulary.js';

const root = join(import.meta.dirname, '..');
const page = readFileSync(join(root, 'docs', 'metrics.md'), 'utf8');
const rules = readFileSync(join(root, 'charts', 'waitgate', 'templates', 'prometheusrule.yaml'), 'utf8');

const registered = [...new OperatorMetrics().registry.getMetricsAsArray(), ...new ReceiverMetrics().registry.getMetricsAsArray()].filter(
  (m) => m.name.startsWith('waitgate_'),
);
const names = new Set(registered.map((m) => m.name));

/** A series name as a metric's: a histogram's _bucket, _sum and _count are the histogram's. */
function metricOf(series: string): string {
  const base = series.replace(/_(bucket|sum|count)$/, '');
  return base !== series && names.has(base) ? base : series;
}

/** Every distinct waitgate_* name matched by `pattern` (its first group) in `text`. */
function named(text: string, pattern: RegExp): string[] {
  return [...new Set([...text.matchAll(pattern)].map((m) => m[1] as string))];
}

describe('docs/metrics.md', () => {
  test.each([...names].map((n) => [n]))('lists %s', (name) => {
    expect(page).toContain(`\`${name}`);
  });

  test.each(named(page, /`(waitgate_[a-z0-9_]+)/g).map((n) => [n]))('names %s, which the code registers', (name) => {
    expect(names).toContain(metricOf(name));
  });

  test('names no refusal token the code does not have', () => {
    expect(named(page, /`(wait-[a-z-]+)`/g).filter((t) => !(REFUSAL_TOKENS as readonly string[]).includes(t))).toEqual([]);
  });
});

describe("the chart's PrometheusRule", () => {
  const used = named(rules, /\b(waitgate_[a-z0-9_]+)/g);
  test('names metrics at all (so the checks below check something)', () => {
    expect(used.length).toBeGreaterThan(3);
  });

  test.each(used.map((n) => [n]))('%s is a metric the code registers', (name) => {
    expect(names).toContain(metricOf(name));
  });

  test('names no refusal token the code does not have', () => {
    expect(named(rules, /\b(wait-[a-z-]+)\b/g).filter((t) => !(REFUSAL_TOKENS as readonly string[]).includes(t))).toEqual([]);
  });

  test('every alert it renders is in docs/metrics.md', () => {
    const alerts = named(rules, /alert: (Waitgate[A-Za-z]+)/g);
    expect(alerts.length).toBeGreaterThan(0);
    for (const alert of alerts) expect(page).toContain(`\`${alert}\``);
  });
});
