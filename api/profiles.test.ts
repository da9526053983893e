import { describe, expect, test } from '@jest/globals';
import { execProfiles, isScriptKey, parseProfiles, ProfileMode, withCheckImage, type Profile } from './profiles.js';

const SH = '#!/bin/sh\nexit 3\n';

function cm(profiles: unknown, scripts: Record<string, string> = { 'wait-jira.sh': SH, 'wait-ci.sh': SH }): Record<string, string> {
  return { 'profiles.json': typeof profiles === 'string' ? profiles : JSON.stringify(profiles), ...scripts };
}

describe('parseProfiles: accepted', () => {
  test.each<[string, Record<string, string> | undefined, Profile[]]>([
    ['no ConfigMap data', undefined, []],
    ['an empty object', cm({}), []],
    [
      'an exec profile',
      cm({ jira: { mode: 'exec', script: 'wait-jira.sh' } }),
      [{ name: 'jira', mode: ProfileMode.Exec, script: 'wait-jira.sh' }],
    ],
    // Exec mode, the operator's reach, is only ever chosen: a profile silent on mode runs in a Pod.
    ['no mode: pod mode', cm({ lock: { script: 'wait-ci.sh' } }), [{ name: 'lock', mode: ProfileMode.Pod, script: 'wait-ci.sh' }]],
    [
      'a pod profile without an image (the operator fills its default in)',
      cm({ ci: { mode: 'pod', script: 'wait-ci.sh' } }),
      [{ name: 'ci', mode: ProfileMode.Pod, script: 'wait-ci.sh' }],
    ],
    [
      'a pod profile with an image',
      cm({ ci: { mode: 'pod', script: 'wait-ci.sh', image: 'alpine:3.20' } }),
      [{ name: 'ci', mode: ProfileMode.Pod, script: 'wait-ci.sh', image: 'alpine:3.20' }],
    ],
    [
      'a pod profile with resources, passed through',
      cm({ ci: { mode: 'pod', script: 'wait-ci.sh', image: 'registry.example/ci@sha256:abc', resources: { limits: { cpu: '100m' } } } }),
      [
        {
          name: 'ci',
          mode: ProfileMode.Pod,
          script: 'wait-ci.sh',
          image: 'registry.example/ci@sha256:abc',
          resources: { limits: { cpu: '100m' } },
        },
      ],
    ],
    [
      'two profiles sharing one script',
      cm({ a: { mode: 'exec', script: 'wait-jira.sh' }, 'b-2': { mode: 'exec', script: 'wait-jira.sh' } }),
      [
        { name: 'a', mode: ProfileMode.Exec, script: 'wait-jira.sh' },
        { name: 'b-2', mode: ProfileMode.Exec, script: 'wait-jira.sh' },
      ],
    ],
    [
      'a 63-character name and a dotted script key',
      cm({ ['a'.repeat(63)]: { mode: 'exec', script: '.check_1.sh' } }, { '.check_1.sh': SH }),
      [{ name: 'a'.repeat(63), mode: ProfileMode.Exec, script: '.check_1.sh' }],
    ],
  ])('%s', (_what, data, expected) => {
    const r = parseProfiles(data);
    expect(r).toEqual({ ok: true, profiles: new Map(expected.map((p) => [p.name, p])) });
  });
});

describe('parseProfiles: refused, naming the profile and the field', () => {
  test.each<[string, Record<string, string>, RegExp[]]>([
    // A ConfigMap without the key is a slip (a misnamed key), not a ConfigMap declaring nothing.
    ['a ConfigMap with no profiles.json key', { 'wait-jira.sh': SH }, [/has no "profiles\.json" key/]],
    ['profiles.json that is not JSON', cm('{"jira": '), [/^profiles\.json is not valid JSON/]],
    ['an empty profiles.json', cm(''), [/^profiles\.json is not valid JSON/]],
    ['profiles.json that is an array', cm([{ mode: 'exec' }]), [/^profiles\.json must be a JSON object.*an array$/]],
    ['profiles.json that is null', cm('null'), [/^profiles\.json must be a JSON object.*null$/]],
    ['an uppercase name', cm({ Jira: { mode: 'exec', script: 'wait-jira.sh' } }), [/^profile "Jira": the name is not a profile name/]],
    ['a name ending in -', cm({ 'jira-': { mode: 'exec', script: 'wait-jira.sh' } }), [/^profile "jira-": the name/]],
    ['a 64-character name', cm({ ['a'.repeat(64)]: { mode: 'exec', script: 'wait-jira.sh' } }), [/^profile "a{64}": the name/]],
    ['an empty name', cm({ '': { mode: 'exec', script: 'wait-jira.sh' } }), [/^profile "": the name/]],
    ['an entry that is a string', cm({ jira: 'wait-jira.sh' }), [/^profile "jira": must be an object.*the string "wait-jira.sh"$/]],
    [
      'an unknown mode',
      cm({ jira: { mode: 'shell', script: 'wait-jira.sh' } }),
      [/^profile "jira": mode must be "exec" or "pod", but it is "shell"$/],
    ],
    ['a missing script', cm({ jira: { mode: 'exec' } }), [/^profile "jira": script is missing/]],
    ['a script that is a number', cm({ jira: { mode: 'exec', script: 7 } }), [/^profile "jira": script must be a string.*number 7$/]],
    [
      'a script key with a slash',
      cm({ jira: { mode: 'exec', script: '../etc/passwd' } }),
      [/^profile "jira": script "..\/etc\/passwd" is not a ConfigMap key/],
    ],
    ['a script key of ..', cm({ jira: { mode: 'exec', script: '..' } }), [/^profile "jira": script "\.\." is not a ConfigMap key/]],
    [
      'a script key that is profiles.json',
      cm({ jira: { mode: 'exec', script: 'profiles.json' } }),
      [/^profile "jira": script may not be profiles\.json/],
    ],
    [
      'a script key that is absent',
      cm({ jira: { mode: 'exec', script: 'wait-gone.sh' } }),
      [/^profile "jira": script "wait-gone.sh" is not a key of the waitgate-profiles ConfigMap$/],
    ],
    [
      'a script key that is an inherited name',
      cm({ jira: { mode: 'exec', script: 'constructor' } }),
      [/^profile "jira": script "constructor" is not a key/],
    ],
    [
      'an empty script',
      cm({ jira: { mode: 'exec', script: 'wait-jira.sh' } }, { 'wait-jira.sh': ' \n' }),
      [/^profile "jira": script "wait-jira.sh" is empty$/],
    ],
    [
      'a pod profile with an empty image',
      cm({ ci: { mode: 'pod', script: 'wait-ci.sh', image: ' ' } }),
      [/^profile "ci": image " " is not a container image/],
    ],
    [
      'a pod profile with an image that is a number',
      cm({ ci: { mode: 'pod', script: 'wait-ci.sh', image: 3 } }),
      [/^profile "ci": image must be a string/],
    ],
    [
      'resources that are an array',
      cm({ ci: { mode: 'pod', script: 'wait-ci.sh', image: 'alpine', resources: [] } }),
      [/^profile "ci": resources must be an object.*an array$/],
    ],
    [
      'an exec profile with an image',
      cm({ jira: { mode: 'exec', script: 'wait-jira.sh', image: 'alpine' } }),
      [/^profile "jira": image is for pod mode only/],
    ],
    [
      'an exec profile with resources',
      cm({ jira: { mode: 'exec', script: 'wait-jira.sh', resources: {} } }),
      [/^profile "jira": resources is for pod mode only/],
    ],
    [
      'a misspelled setting',
      cm({ jira: { mode: 'exec', script: 'wait-jira.sh', imgae: 'x' } }),
      [/^profile "jira": "imgae" is not a setting of a profile/],
    ],
    [
      'every problem at once, one line each',
      cm({
        Bad: { mode: 'exec', script: 'wait-jira.sh' },
        jira: { mode: 'x', script: 'wait-jira.sh' },
        ci: { mode: 'pod', script: 'nope.sh', image: 'alpine' },
      }),
      [/^profile "Bad": the name/, /^profile "jira": mode must be/, /^profile "ci": script "nope.sh" is not a key/],
    ],
  ])('%s', (_what, data, expected) => {
    const r = parseProfiles(data);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems).toHaveLength(expected.length);
    expected.forEach((re, i) => expect(r.problems[i]).toMatch(re));
    for (const line of r.problems) expect(line).not.toContain('\n');
  });

  test('never throws, whatever the data holds', () => {
    for (const raw of [
      '',
      '[]',
      '1',
      '"x"',
      'true',
      '{"__proto__": {"mode": "exec"}}',
      '{"a": null}',
      '{"a": {"mode": ["exec"]}}',
      '\u0000',
    ]) {
      expect(() => parseProfiles({ 'profiles.json': raw })).not.toThrow();
    }
  });
});

describe('withCheckImage: the image of pod-mode profiles that name none', () => {
  const parsed = parseProfiles(
    cm({
      lock: { script: 'wait-ci.sh' },
      ci: { mode: 'pod', script: 'wait-ci.sh', image: 'alpine:3.20' },
      jira: { mode: 'exec', script: 'wait-jira.sh' },
    }),
  );
  test.each<[string, string | undefined, Record<string, string | undefined> | RegExp]>([
    [
      'the default fills in',
      'ghcr.io/waitgate/waitgate:1.0.0',
      { lock: 'ghcr.io/waitgate/waitgate:1.0.0', ci: 'alpine:3.20', jira: undefined },
    ],
    // No default: a slip that names the variable (the operator pauses the holds; it refuses none).
    ['no default', undefined, /^profile "lock": image is missing and the operator has no default check image \(WAITGATE_CHECK_IMAGE\)/],
  ])('%s', (_what, image, expected) => {
    const r = withCheckImage(parsed, image);
    if (expected instanceof RegExp) {
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.problems).toEqual([expect.stringMatching(expected)]);
      return;
    }
    expect(r.ok).toBe(true);
    if (r.ok) expect(Object.fromEntries([...r.profiles].map(([n, p]) => [n, p.image]))).toEqual(expected);
  });

  test('a ConfigMap that did not load stays as it was', () => {
    const bad = parseProfiles(cm('[]'));
    expect(withCheckImage(bad, 'x')).toBe(bad);
  });
});

describe('execProfiles', () => {
  test.each<[string, Record<string, string>, string[]]>([
    ['none named exec', cm({ a: { script: 'wait-ci.sh' }, b: { mode: 'pod', script: 'wait-ci.sh', image: 'x' } }), []],
    ['the exec ones', cm({ a: { script: 'wait-ci.sh' }, j: { mode: 'exec', script: 'wait-jira.sh' } }), ['j']],
    ['a ConfigMap that does not load', cm('{'), []],
  ])('%s', (_what, data, names) => {
    expect(execProfiles(parseProfiles(data))).toEqual(names);
  });
});

describe('isScriptKey', () => {
  test.each([
    ['a plain file name', 'wait-jira.sh', true],
    ['a leading dot', '.hidden', true],
    ['every allowed character', 'a_b.C-1', true],
    ['.', '.', false],
    ['..', '..', false],
    ['empty', '', false],
    ['a slash', 'a/b', false],
    ['a space', 'a b', false],
    ['254 characters', 'x'.repeat(254), false],
  ])('%s', (_what, key, ok) => {
    expect(isScriptKey(key)).toBe(ok);
  });
});

describe('parseProfiles: secrets and env (pod mode only)', () => {
  const api = (extra: Record<string, unknown>) => cm({ api: { script: 'wait-ci.sh', ...extra } });
  test.each<[string, Record<string, unknown>, Partial<Profile>]>([
    ['a Secret mounted as files only', { secrets: ['jira'] }, { secrets: ['jira'] }],
    [
      'a Secret with one key also in the environment',
      { secrets: ['jira', 'ci.example.com'], env: { JIRA_TOKEN: { secret: 'jira', key: 'token' } } },
      { secrets: ['jira', 'ci.example.com'], env: { JIRA_TOKEN: { secret: 'jira', key: 'token' } } },
    ],
    ['an empty list says nothing', { secrets: [], env: {} }, {}],
    ['in an explicit pod profile', { mode: 'pod', secrets: ['jira'] }, { secrets: ['jira'] }],
  ])('%s', (_what, extra, expected) => {
    expect(parseProfiles(api(extra))).toEqual({
      ok: true,
      profiles: new Map([['api', { name: 'api', mode: ProfileMode.Pod, script: 'wait-ci.sh', ...expected }]]),
    });
  });

  test.each<[string, Record<string, unknown>, RegExp]>([
    [
      'secrets on an exec profile: the operator reads no Secret',
      { mode: 'exec', secrets: ['jira'] },
      /^profile "api": secrets is for pod mode only; an exec-mode profile runs as a process of the operator, which reads no Secret/,
    ],
    ['env on an exec profile', { mode: 'exec', env: { T: { secret: 'jira', key: 'token' } } }, /^profile "api": env is for pod mode only/],
    ['a Secret name with an upper-case letter', { secrets: ['Jira'] }, /^profile "api": secrets: "Jira" is not a Secret name/],
    ['a Secret name with a slash', { secrets: ['../x'] }, /^profile "api": secrets: "..\/x" is not a Secret name/],
    ['a 254-character Secret name', { secrets: ['a'.repeat(254)] }, /is not a Secret name/],
    ['secrets that is a string', { secrets: 'jira' }, /^profile "api": secrets must be an array of Secret names, but it is the string/],
    ['a Secret named twice', { secrets: ['jira', 'jira'] }, /^profile "api": secrets names a Secret twice/],
    ['too many Secrets', { secrets: Array.from({ length: 17 }, (_, i) => `s${i}`) }, /secrets may name at most 16 Secrets/],
    [
      'an env variable from a Secret not in secrets',
      { secrets: ['ci'], env: { JIRA_TOKEN: { secret: 'jira', key: 'token' } } },
      /^profile "api": env JIRA_TOKEN: Secret "jira" is not in secrets/,
    ],
    [
      'a lower-case variable name',
      { secrets: ['jira'], env: { token: { secret: 'jira', key: 'token' } } },
      /is not an environment variable name/,
    ],
    [
      'a variable name starting with a digit',
      { secrets: ['jira'], env: { '1T': { secret: 'jira', key: 'token' } } },
      /is not an environment variable name/,
    ],
    ['PATH', { secrets: ['jira'], env: { PATH: { secret: 'jira', key: 'token' } } }, /env: PATH is reserved/],
    [
      'a WAITGATE_ name',
      { secrets: ['jira'], env: { WAITGATE_TOKEN: { secret: 'jira', key: 'token' } } },
      /names starting WAITGATE_ are never set/,
    ],
    ['an LD_ name', { secrets: ['jira'], env: { LD_PRELOAD: { secret: 'jira', key: 'token' } } }, /names starting LD_ are never set/],
    ['a key with a slash', { secrets: ['jira'], env: { T: { secret: 'jira', key: 'a/b' } } }, /key "a\/b" is not a Secret key/],
    [
      'a variable that is a string',
      { secrets: ['jira'], env: { T: 'jira' } },
      /env: each variable must be \{"secret": "<name>", "key": "<key>"\}/,
    ],
    [
      'a misspelled variable setting',
      { secrets: ['jira'], env: { T: { secret: 'jira', key: 't', optional: true } } },
      /env T: "optional" is not a setting; a variable has secret and key/,
    ],
  ])('%s', (_what, extra, problem) => {
    const r = parseProfiles(api(extra));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems.some((p) => problem.test(p))).toBe(true);
  });
});

describe("parseProfiles: a profile's own nodeSelector, tolerations and priorityClassName (pod mode only)", () => {
  const ci = (extra: Record<string, unknown>) => cm({ ci: { script: 'wait-ci.sh', ...extra } });
  test.each<[string, Record<string, unknown>, Partial<Profile>]>([
    ['a nodeSelector', { nodeSelector: { pool: 'gpu' } }, { placement: { nodeSelector: { pool: 'gpu' } } }],
    [
      'all three',
      { nodeSelector: { pool: 'gpu' }, tolerations: [{ key: 'gpu', operator: 'Exists' }], priorityClassName: 'high' },
      { placement: { nodeSelector: { pool: 'gpu' }, tolerations: [{ key: 'gpu', operator: 'Exists' }], priorityClassName: 'high' } },
    ],
    ['an empty nodeSelector (clears the default)', { nodeSelector: {} }, { placement: { nodeSelector: {} } }],
  ])('%s', (_what, extra, expected) => {
    expect(parseProfiles(ci(extra))).toEqual({
      ok: true,
      profiles: new Map([['ci', { name: 'ci', mode: ProfileMode.Pod, script: 'wait-ci.sh', ...expected }]]),
    });
  });

  test.each<[string, Record<string, unknown>, RegExp]>([
    ['a nodeSelector on an exec profile', { mode: 'exec', nodeSelector: { a: 'b' } }, /^profile "ci": nodeSelector is for pod mode only/],
    [
      'a priorityClassName on an exec profile',
      { mode: 'exec', priorityClassName: 'p' },
      /^profile "ci": priorityClassName is for pod mode only/,
    ],
    [
      'a bad toleration',
      { tolerations: [{ key: 'a', operator: 'exists' }] },
      /^profile "ci": tolerations: operator must be "Exists" or "Equal"/,
    ],
    ['a bad PriorityClass name', { priorityClassName: 'High' }, /^profile "ci": priorityClassName "High" is not a PriorityClass name/],
    ['affinity: defaults only', { affinity: {} }, /^profile "ci": "affinity" is not a setting of a profile/],
    ['imagePullSecrets: defaults only', { imagePullSecrets: [] }, /^profile "ci": "imagePullSecrets" is not a setting of a profile/],
  ])('refuses %s', (_what, extra, problem) => {
    const r = parseProfiles(ci(extra));
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.problems).toEqual(expect.arrayContaining([expect.stringMatching(problem)]));
  });
});
