import { describe, expect, test } from '@jest/globals';
import { hookName, parseHookRefs, type HookRef } from './github-hooks.js';

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
    // The App's own webhook: one per App, so named once however often it is written.
    ['app', { ok: true, hooks: [{ kind: 'app' }] }],
    ['acme:42,app, app', { ok: true, hooks: [{ kind: 'org', org: 'acme', hookId: 42 }, { kind: 'app' }] }],
    // An organisation named app is still an organisation.
    ['app:7', { ok: true, hooks: [{ kind: 'org', org: 'app', hookId: 7 }] }],
    ['acme/web', { ok: false, problem: '"acme/web" is neither owner/repo:HOOK_ID, org:HOOK_ID nor app' }],
    ['acme/web/x:1', { ok: false, problem: '"acme/web/x:1" is neither owner/repo:HOOK_ID, org:HOOK_ID nor app' }],
    ['acme:0', { ok: false, problem: '"acme:0" is neither owner/repo:HOOK_ID, org:HOOK_ID nor app' }],
    ['App', { ok: false, problem: '"App" is neither owner/repo:HOOK_ID, org:HOOK_ID nor app' }],
  ])('%j', (text, expected) => {
    expect(parseHookRefs(text)).toEqual(expected);
  });
});

describe('hookName', () => {
  test.each<[HookRef, string]>([
    [{ kind: 'repo', owner: 'acme', repo: 'web', hookId: 1 }, 'acme/web:1'],
    [{ kind: 'org', org: 'acme', hookId: 42 }, 'acme:42'],
    [{ kind: 'app' }, 'app'],
  ])('%j is written %s, as parseHookRefs reads it', (hook, name) => {
    expect(hookName(hook)).toBe(name);
    expect(parseHookRefs(name)).toEqual({ ok: true, hooks: [hook] });
  });
});
