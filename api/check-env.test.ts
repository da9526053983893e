import { describe, expect, test } from '@jest/globals';
import { checkEnvironment, parseEnvAllow, type CheckEnvPolicy } from './check-env.js';

const SOURCE = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/op',
  LANG: 'C.UTF-8',
  TZ: 'UTC',
  VALKEY_URL: 'redis://:hunter2@valkey:6379',
  WAITGATE_GITHUB_WEBHOOK_SECRET: 's3cret',
  KUBERNETES_SERVICE_HOST: '10.0.0.1',
  JIRA_URL: 'https://jira.example',
  UNSET: undefined,
};

describe('checkEnvironment', () => {
  test.each<[string, CheckEnvPolicy, Record<string, string>]>([
    [
      'the default passes the four base names only',
      { allow: [], inherit: false },
      { PATH: '/usr/bin:/bin', HOME: '/home/op', LANG: 'C.UTF-8', TZ: 'UTC' },
    ],
    [
      'an allowed name is passed too',
      { allow: ['JIRA_URL'], inherit: false },
      { PATH: '/usr/bin:/bin', HOME: '/home/op', LANG: 'C.UTF-8', TZ: 'UTC', JIRA_URL: 'https://jira.example' },
    ],
    [
      'an allowed name that is not set, or undefined, is left out',
      { allow: ['NOPE', 'UNSET'], inherit: false },
      { PATH: '/usr/bin:/bin', HOME: '/home/op', LANG: 'C.UTF-8', TZ: 'UTC' },
    ],
    [
      'inherit passes everything defined',
      { allow: [], inherit: true },
      {
        PATH: '/usr/bin:/bin',
        HOME: '/home/op',
        LANG: 'C.UTF-8',
        TZ: 'UTC',
        VALKEY_URL: 'redis://:hunter2@valkey:6379',
        WAITGATE_GITHUB_WEBHOOK_SECRET: 's3cret',
        KUBERNETES_SERVICE_HOST: '10.0.0.1',
        JIRA_URL: 'https://jira.example',
      },
    ],
    [
      'a name from the prototype chain is not a variable',
      { allow: ['constructor', 'toString'], inherit: false },
      { PATH: '/usr/bin:/bin', HOME: '/home/op', LANG: 'C.UTF-8', TZ: 'UTC' },
    ],
  ])('%s', (_name, policy, expected) => {
    expect(checkEnvironment(SOURCE, policy)).toEqual(expected);
  });

  test('nothing secret-looking passes by default', () => {
    const env = checkEnvironment(SOURCE, { allow: [], inherit: false });
    expect(Object.keys(env).filter((k) => /VALKEY|SECRET|KUBERNETES/.test(k))).toEqual([]);
  });
});

describe('parseEnvAllow', () => {
  test.each<[string, string[] | RegExp]>([
    ['', []],
    ['JIRA_URL', ['JIRA_URL']],
    [' JIRA_URL , HTTPS_PROXY,,NO_PROXY ', ['JIRA_URL', 'HTTPS_PROXY', 'NO_PROXY']],
    ['A,A', ['A']],
    ['_X1', ['_X1']],
    ['1X', /"1X"/],
    ['JIRA-URL', /"JIRA-URL"/],
    ['A B', /"A B"/],
    ['FOO=bar', /"FOO=bar"/],
  ])('%j', (text, expected) => {
    const r = parseEnvAllow(text);
    if (Array.isArray(expected)) expect(r).toEqual({ ok: true, names: expected });
    else {
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.problem).toMatch(expected);
    }
  });
});
