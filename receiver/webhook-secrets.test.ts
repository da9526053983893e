import { describe, expect, test } from '@jest/globals';
import type { Forge } from '../api/vocabulary.js';
import { scopeAllows, scopeOf, type SecretScope, type WebhookSecret } from './webhook-secrets.js';

describe('scopeOf: what the matched secrets speak for', () => {
  test.each<[string, WebhookSecret[], SecretScope | undefined]>([
    ['none matched', [], undefined],
    ['one unscoped', [{ secret: 'x' }], { every: true }],
    ['one scoped', [{ secret: 'x', repositories: ['acme/*'] }], { every: false, repositories: ['acme/*'] }],
    ['scoped and unscoped: every', [{ secret: 'x', repositories: ['acme/*'] }, { secret: 'x' }], { every: true }],
    [
      'two scoped: the union, once each',
      [
        { secret: 'x', repositories: ['acme/*', 'beta/web'] },
        { secret: 'x', repositories: ['beta/web'] },
      ],
      { every: false, repositories: ['acme/*', 'beta/web'] },
    ],
  ])('%s', (_n, matched, scope) => expect(scopeOf(matched)).toEqual(scope));
});

describe('scopeAllows: a delivery names a repository its secret speaks for', () => {
  const acme: SecretScope = { every: false, repositories: ['acme/*', 'gitlab:beta/**'] };
  test.each<[string, SecretScope, Forge, string | undefined, boolean]>([
    ['unscoped: any repository', { every: true }, 'github', 'victim/private', true],
    ['acme/* covers acme/web', acme, 'github', 'acme/web', true],
    ['case does not matter', acme, 'github', 'Acme/Web', true],
    ['acme/* does not cover beta/web', acme, 'github', 'beta/web', false],
    ['acme/* does not cover acme/web/deeper', acme, 'gitlab', 'acme/web/deeper', false],
    ['a forge-prefixed pattern: on its forge', acme, 'gitlab', 'beta/sub/web', true],
    ['a forge-prefixed pattern: not on another', acme, 'github', 'beta/web', false],
    ['no repository at all: refused', acme, 'github', undefined, false],
  ])('%s', (_n, scope, forge, repository, allowed) => expect(scopeAllows(scope, forge, repository)).toBe(allowed));
});
