// Every metric the processes register is listed in docs/metrics.md.
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OperatorMetrics } from '../operator/metrics.js';
import { ReceiverMetrics } from '../receiver/metrics.js';

const page = readFileSync(join(import.meta.dirname, '..', 'docs', 'metrics.md'), 'utf8');

describe('docs/metrics.md', () => {
  const names = [...new OperatorMetrics().registry.getMetricsAsArray(), ...new ReceiverMetrics().registry.getMetricsAsArray()]
    .map((m) => m.name)
    .filter((n) => n.startsWith('waitgate_'));
  test.each([...new Set(names)].map((n) => [n]))('lists %s', (name) => {
    expect(page).toContain(`\`${name}`);
  });
});
