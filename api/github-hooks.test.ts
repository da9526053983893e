import { describe, expect, test } from '@jest/globals';
import { parseHookRefs } from './github-hooks.js';

describe('parseHookRefs', () => {
  test.each<[string, unknown]>([
    ['', { ok: true, hooks: [] }],
    ['acme/web:123', { ok: true, hooks: [{ kind: 'repo', owner: 'acme', repo: 'web', hookId: 123 }] }],
    [
      'acme/web:1, acme:42',
      {
        ok: true,
        hooks: [
          { kind: 'repo', owner: 'acme', repo: 'web', hookId: 1 },
          { kind: 'org', org: 'acme', hookId: 42 },
        ],
      },
    ],
    ['acme/web', { ok: false, problem: '"acme/web" is neither owner/repo:HOOK_ID nor org:HOOK_ID' }],
    ['acme/web/x:1', { ok: false, problem: '"acme/web/x:1" is neither owner/repo:HOOK_ID nor org:HOOK_ID' }],
    ['acme:0', { ok: false, problem: '"acme:0" is neither owner/repo:HOOK_ID nor org:HOOK_ID' }],
  ])('%j', (text, expected) => {
    expect(parseHookRefs(text)).toEqual(expected);
  });
});
