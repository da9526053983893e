import { describe, expect, test } from '@jest/globals';
import { heldJobSpecSchema } from './heldjob-schema.js';
import { scopeKeyOf, targetProblem } from './target.js';

describe('targetProblem', () => {
  test.each<[string, string, boolean]>([
    ['an issue', 'acme/web#7', true],
    ['a merge request in a subgroup', 'group/sub/repo!12', true],
    ['the largest number', 'acme/web#9999999999', true],
    ['a number of 11 digits', 'acme/web#10000000000', false],
    ['a number in exponent form', 'acme/web#1e+21', false],
    ['zero', 'acme/web#0', false],
    ['no owner', 'web#7', false],
    ['a space', 'acme/we b#7', false],
    ['256 characters', `acme/${'r'.repeat(249)}#7`, true],
    ['257 characters', `acme/${'r'.repeat(250)}#7`, false],
    ['a 301-character repository name', `acme/${'r'.repeat(296)}#7`, false],
  ])('%s → %s', (_n, target, ok) => {
    expect(targetProblem(target) === undefined).toBe(ok);
    // The HeldJob schema (and so the CRD) says the same.
    const spec = { target, trigger: 't', job: { template: {} } };
    expect(heldJobSpecSchema.safeParse(spec).success).toBe(ok);
  });

  test.each<[string, string, { forge: string | undefined; namespace: string }, string]>([
    [
      'made by the receiver: its repository on its forge',
      'group/sub/repo!12',
      { forge: 'gitlab', namespace: 'team-a' },
      'gitlab:group/sub/repo',
    ],
    ['the same repository on another forge is another scope', 'acme/web#7', { forge: 'github', namespace: 'team-a' }, 'github:acme/web'],
    ['written by hand: its repository in its namespace', 'acme/web#7', { forge: undefined, namespace: 'team-a' }, 'ns/team-a:acme/web'],
    ['another namespace never holds team-a’s place', 'acme/web#7', { forge: undefined, namespace: 'team-b' }, 'ns/team-b:acme/web'],
  ])('the scope of a target: %s', (_n, target, owner, key) => {
    expect(scopeKeyOf(target, owner)).toBe(key);
  });
});
