import { describe, expect, test } from '@jest/globals';
import { jobNameFor } from './job-name.js';
import { waitLabel } from './wait-label.js';

describe('jobNameFor', () => {
  test('is stable for one HeldJob and differs for another uid', () => {
    const a = jobNameFor({ name: 'web-7-deploy', uid: 'u-1' });
    expect(jobNameFor({ name: 'web-7-deploy', uid: 'u-1' })).toBe(a);
    expect(jobNameFor({ name: 'web-7-deploy', uid: 'u-2' })).not.toBe(a);
    expect(a).toMatch(/^web-7-deploy-[0-9a-f]{6}$/);
  });
  test.each([['x'.repeat(253)], [`${'a'.repeat(55)}-.-.-.-.-.-`], ['a.b.c']])('fits a label value and ends alphanumeric for %s', (name) => {
    const n = jobNameFor({ name, uid: 'uid' });
    expect(n.length).toBeLessThanOrEqual(63);
    expect(n).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
    expect(n).not.toMatch(/[-.]{2}/);
  });
});

describe('waitLabel', () => {
  test.each([
    [[], '-'],
    [[{ after: '2026-09-01T09:00:00Z' }, { profile: 'jira' }], 'after 2026-09-01T09:00Z + jira'],
    [[{ after: '2026-09-01T11:00:30+02:00' }], 'after 2026-09-01T09:00:30Z'],
    [[{ after: '2026-09-01T09:00:00.5Z' }], 'after 2026-09-01T09:00:00.500Z'],
    [[{ profile: 'jira' }, { profile: 'ci' }], 'jira + ci'],
  ])('%j reads %s', (conds, label) => {
    expect(waitLabel(conds)).toBe(label);
  });
});
