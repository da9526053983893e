import { describe, expect, test } from '@jest/globals';
import { jobNameFor } from '../../api/job-name.js';
import { scopeOf, viewOf } from './view.js';

const meta = { name: 'web-7-deploy', namespace: 'team-a', uid: 'uid-1' };
const job = { template: {} };

describe('viewOf: the HeldJob read once', () => {
  test('a readable spec: instant, profiles in order, scope key, Job name', () => {
    const v = viewOf({
      metadata: meta,
      spec: {
        target: 'acme/web#7',
        trigger: 'd',
        waitFor: [{ profile: 'ci' }, { after: '2026-09-01T11:00:00+02:00' }, { profile: 'jira' }],
        job,
      },
    });
    expect(v).toMatchObject({
      ok: true,
      afterMs: Date.parse('2026-09-01T09:00:00Z'),
      profiles: ['ci', 'jira'],
      scopeKey: 'ns/team-a:acme/web',
      jobName: jobNameFor(meta),
    });
  });

  test('the Job name recorded in status wins over the derived one', () => {
    expect(viewOf({ metadata: meta, spec: { target: 'acme/web!3', trigger: 'd', job }, status: { jobName: 'recorded' } }).jobName).toBe(
      'recorded',
    );
  });

  test.each([
    ['an unknown key', { target: 'acme/web#7', trigger: 'd', waitFor: [{ until: 'x' }], job }, /spec.waitFor/],
    ['an impossible date', { target: 'acme/web#7', trigger: 'd', waitFor: [{ after: '2026-02-31T09:00:00Z' }], job }, /^after: /],
    ['no target', { trigger: 'd', job }, /spec.target/],
  ])('%s: not ok, with the problem named', (_n, spec, problem) => {
    const v = viewOf({ metadata: meta, spec });
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.problem).toMatch(problem);
  });

  test.each<[string, unknown, Record<string, unknown> | undefined, { scopeKey?: string; target?: string; trigger?: string }]>([
    [
      'a field it does not know: what reads is still read',
      { target: 'acme/web#7', trigger: 'd', job, note: 'x' },
      undefined,
      { scopeKey: 'ns/team-a:acme/web', target: 'acme/web#7', trigger: 'd' },
    ],
    [
      'the scope recorded at the launch wins over the target',
      { target: 'acme/api#9', trigger: 'd', job, note: 'x' },
      { scope: 'acme/web' },
      { scopeKey: 'acme/web', target: 'acme/api#9', trigger: 'd' },
    ],
    ['a target that is not one, no scope recorded: none', { target: 'not a target', trigger: 'd', job }, undefined, { trigger: 'd' }],
    ['no spec at all: the recorded scope', undefined, { scope: 'acme/web' }, { scopeKey: 'acme/web' }],
    [
      'an empty trigger is none',
      { target: 'acme/web#7', trigger: '', job },
      undefined,
      { scopeKey: 'ns/team-a:acme/web', target: 'acme/web#7' },
    ],
  ])('not ok, %s', (_n, spec, status, expected) => {
    const v = viewOf({ metadata: meta, spec, ...(status ? { status } : {}) });
    expect(v.ok).toBe(false);
    expect({ scopeKey: v.scopeKey, target: v.target, trigger: v.trigger }).toEqual({
      scopeKey: expected.scopeKey,
      target: expected.target,
      trigger: expected.trigger,
    });
    expect(scopeOf({ metadata: meta, spec, ...(status ? { status } : {}) })).toBe(expected.scopeKey);
  });

  test('ok, with a scope recorded at the launch: that scope, though the target now names another repository', () => {
    const v = viewOf({ metadata: meta, spec: { target: 'acme/api#9', trigger: 'd', job }, status: { scope: 'acme/web' } });
    expect(v).toMatchObject({ ok: true, scopeKey: 'acme/web', target: 'acme/api#9', trigger: 'd' });
  });
});
