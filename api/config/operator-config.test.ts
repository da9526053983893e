import { describe, expect, test } from '@jest/globals';
import { ConfigError, parseOperatorConfig, reportingForges } from './operator-config.js';

const BASE = { VALKEY_URL: 'redis://127.0.0.1:6379' };

describe('parseOperatorConfig', () => {
  test('pause windows parse from JSON', () => {
    const c = parseOperatorConfig({ ...BASE, WAITGATE_PAUSE_WINDOWS: '[{"start":"22:00","end":"06:00","timeZone":"Europe/Berlin"}]' });
    expect(c.pauseWindows).toEqual([{ start: '22:00', end: '06:00', timeZone: 'Europe/Berlin' }]);
  });

  test('defaults are the reference values', () => {
    const c = parseOperatorConfig(BASE);
    expect(c.wait).toEqual({
      intervalMs: 60_000,
      intervalFloored: false,
      checkTimeoutMs: 10_000,
      checkSlots: 1,
      maxMs: 86_400_000,
      afterMaxMs: 2_592_000_000,
      maxChecks: 96,
      maxFaults: 5,
      killGraceMs: 2000,
    });
    expect(c.namespace).toBe('waitgate-system');
    expect(c.watchNamespace).toBe('');
    expect(c.finishedTtlMs).toBe(604_800_000);
    expect(c.podStartTimeoutMs).toBe(120_000);
    expect(c.configMaps).toEqual({ profiles: 'waitgate-profiles', triggers: 'waitgate-triggers' });
  });

  test("the ConfigMaps' names: a release's own, or the fixed ones when empty", () => {
    expect(
      parseOperatorConfig({
        ...BASE,
        WAITGATE_PROFILES_CONFIGMAP: 'blue-waitgate-profiles',
        WAITGATE_TRIGGERS_CONFIGMAP: 'blue-waitgate-triggers',
      }).configMaps,
    ).toEqual({ profiles: 'blue-waitgate-profiles', triggers: 'blue-waitgate-triggers' });
    expect(parseOperatorConfig({ ...BASE, WAITGATE_PROFILES_CONFIGMAP: ' ', WAITGATE_TRIGGERS_CONFIGMAP: '' }).configMaps).toEqual({
      profiles: 'waitgate-profiles',
      triggers: 'waitgate-triggers',
    });
  });

  test.each<[Record<string, string>, object]>([
    [{}, { allow: [], inherit: false }],
    [
      { WAITGATE_CHECK_ENV_ALLOW: '', WAITGATE_CHECK_ENV_INHERIT: '' },
      { allow: [], inherit: false },
    ],
    [{ WAITGATE_CHECK_ENV_ALLOW: 'JIRA_URL, HTTPS_PROXY' }, { allow: ['JIRA_URL', 'HTTPS_PROXY'], inherit: false }],
    [{ WAITGATE_CHECK_ENV_INHERIT: 'true' }, { allow: [], inherit: true }],
  ])('check environment %j', (env, expected) => {
    expect(parseOperatorConfig({ ...BASE, ...env }).checkEnv).toEqual(expected);
  });

  test.each<[string, string | undefined, number | undefined]>([
    ['unset: no fleet-wide cap on Jobs', undefined, undefined],
    ['empty (Helm renders an unset value so): no cap', '', undefined],
    ['blank: no cap', '  ', undefined],
    ['0: no cap', '0', undefined],
    ['a number: that cap', '25', 25],
    ['1: one Job at a time', '1', 1],
    ['the most', '10000', 10_000],
  ])('WAITGATE_CONCURRENCY %s', (_n, value, expected) => {
    const env = value === undefined ? BASE : { ...BASE, WAITGATE_CONCURRENCY: value };
    expect(parseOperatorConfig(env).concurrency).toBe(expected);
  });

  test('empty strings count as unset', () => {
    const c = parseOperatorConfig({ ...BASE, WAITGATE_WAIT_INTERVAL_MS: '', WAITGATE_NAMESPACE: ' ', WAITGATE_PROFILES_DIR: '' });
    expect(c.wait.intervalMs).toBe(60_000);
    expect(c.namespace).toBe('waitgate-system');
    expect(c.profilesDir).toBeUndefined();
  });

  test.each([
    [
      'WAITGATE_WAIT_INTERVAL_MS',
      '5000',
      (c: ReturnType<typeof parseOperatorConfig>) => [c.wait.intervalMs, c.wait.intervalFloored],
      [30_000, true],
    ],
    [
      'WAITGATE_WAIT_INTERVAL_MS',
      '3600000',
      (c: ReturnType<typeof parseOperatorConfig>) => [c.wait.intervalMs, c.wait.intervalFloored],
      [3_600_000, false],
    ],
    ['WAITGATE_WAIT_AFTER_MAX_MS', '1000', (c: ReturnType<typeof parseOperatorConfig>) => [c.wait.afterMaxMs], [1000]],
    ['WAITGATE_FINISHED_TTL_MS', '0', (c: ReturnType<typeof parseOperatorConfig>) => [c.finishedTtlMs], [0]],
    ['WAITGATE_FINISHED_TTL_MS', '3600000', (c: ReturnType<typeof parseOperatorConfig>) => [c.finishedTtlMs], [3_600_000]],
    ['WAITGATE_FINISHED_TTL_MS', '', (c: ReturnType<typeof parseOperatorConfig>) => [c.finishedTtlMs], [604_800_000]],
    ['WAITGATE_POD_START_TIMEOUT_MS', '300000', (c: ReturnType<typeof parseOperatorConfig>) => [c.podStartTimeoutMs], [300_000]],
  ])('%s=%s', (name, value, pick, expected) => {
    expect(pick(parseOperatorConfig({ ...BASE, [name]: value }))).toEqual(expected);
  });

  test.each([
    ['WAITGATE_WAIT_INTERVAL_MS', 'soon'],
    ['WAITGATE_WAIT_MAX_CHECKS', '-1'],
    ['WAITGATE_WAIT_MAX_FAULTS', '0'],
    ['WAITGATE_CONCURRENCY', '1.5'],
    ['WAITGATE_CONCURRENCY', '-1'],
    ['WAITGATE_CONCURRENCY', '10001'],
    ['WAITGATE_CONCURRENCY', 'none'],
    ['WAITGATE_LOG_LEVEL', 'loud'],
    ['WAITGATE_CHECK_ENV_ALLOW', 'JIRA-URL'],
    ['WAITGATE_CHECK_ENV_INHERIT', 'maybe'],
    ['VALKEY_URL', ''],
    ['VALKEY_URL', 'http://127.0.0.1:6379'],
    ['WAITGATE_PAUSE_WINDOWS', 'not json'],
    ['WAITGATE_LEADER_ELECTION', 'maybe'],
    ['WAITGATE_FINISHED_TTL_MS', '-1'],
    ['WAITGATE_FINISHED_TTL_MS', '7d'],
    ['WAITGATE_POD_START_TIMEOUT_MS', '0'],
    ['WAITGATE_PAUSE_WINDOWS', '[{"start":"25:00","end":"06:00","timeZone":"UTC"}]'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => parseOperatorConfig({ ...BASE, [name]: value })).toThrow(ConfigError);
    expect(() => parseOperatorConfig({ ...BASE, [name]: value })).toThrow(name);
  });
});

describe('WAITGATE_VALKEY_CA_FILE', () => {
  test('read with a rediss:// URL; unset or empty, none', () => {
    expect(
      parseOperatorConfig({ VALKEY_URL: 'rediss://valkey:6380', WAITGATE_VALKEY_CA_FILE: '/etc/waitgate/valkey-ca/ca.crt' }).valkeyCaFile,
    ).toBe('/etc/waitgate/valkey-ca/ca.crt');
    expect(parseOperatorConfig({ VALKEY_URL: 'rediss://valkey:6380' }).valkeyCaFile).toBeUndefined();
    expect(parseOperatorConfig({ VALKEY_URL: 'redis://valkey:6379', WAITGATE_VALKEY_CA_FILE: '' }).valkeyCaFile).toBeUndefined();
  });

  test('refused with a redis:// URL, naming the variable and why', () => {
    const bad = () => parseOperatorConfig({ VALKEY_URL: 'redis://valkey:6379', WAITGATE_VALKEY_CA_FILE: '/ca.crt' });
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(/WAITGATE_VALKEY_CA_FILE: is set, but VALKEY_URL is not a rediss:\/\/ URL/);
  });
});

describe('forge reporting and redelivery', () => {
  test('off unless credentials are given; refusals reported by default', () => {
    const f = parseOperatorConfig(BASE).forge;
    expect(f).toEqual({
      report: ['refused'],
      reportNamespaces: [],
      github: undefined,
      gitlab: undefined,
      azure: undefined,
      redeliverHooks: [],
      redeliverIntervalMs: 300_000,
    });
    expect(reportingForges(f)).toEqual([]);
  });

  test.each<[string, string[]]>([
    ['', []],
    ['team-a', ['team-a']],
    [' team-a , team-b ', ['team-a', 'team-b']],
  ])('WAITGATE_FORGE_REPORT_NAMESPACES %j: the namespaces reported whoever made their HeldJobs', (text, namespaces) => {
    expect(parseOperatorConfig({ ...BASE, WAITGATE_FORGE_REPORT_NAMESPACES: text }).forge.reportNamespaces).toEqual(namespaces);
  });

  test('a GitHub token, a GitLab token, the transitions and the hooks', () => {
    const f = parseOperatorConfig({
      ...BASE,
      WAITGATE_FORGE_REPORT: 'refused,launched,finished',
      WAITGATE_GITHUB_TOKEN: 'ghp_x',
      WAITGATE_GITHUB_API_URL: 'https://ghe.example/api/v3',
      WAITGATE_GITLAB_TOKEN: 'glpat-x',
      WAITGATE_GITHUB_REDELIVER_HOOKS: 'acme/web:12,acme:34',
      WAITGATE_GITHUB_REDELIVER_INTERVAL_MS: '60000',
    }).forge;
    expect(f.report).toEqual(['refused', 'launched', 'finished']);
    expect(f.github).toEqual({ apiUrl: 'https://ghe.example/api/v3', auth: { kind: 'token', token: 'ghp_x' } });
    expect(f.gitlab).toEqual({ apiUrl: 'https://gitlab.com/api/v4', token: 'glpat-x' });
    expect(f.redeliverHooks).toHaveLength(2);
    expect(f.redeliverIntervalMs).toBe(60_000);
    expect(reportingForges(f)).toEqual(['github', 'gitlab']);
  });

  test('an Azure DevOps token with its organisation', () => {
    const f = parseOperatorConfig({ ...BASE, WAITGATE_AZURE_TOKEN: 'pat', WAITGATE_AZURE_API_URL: 'https://dev.azure.com/acme' }).forge;
    expect(f.azure).toEqual({ apiUrl: 'https://dev.azure.com/acme', token: 'pat' });
    expect(reportingForges(f)).toEqual(['azure']);
  });

  test('a GitHub App: id, private key (\\n kept as line breaks) and installation', () => {
    const f = parseOperatorConfig({
      ...BASE,
      WAITGATE_GITHUB_APP_ID: '123',
      WAITGATE_GITHUB_APP_PRIVATE_KEY: '-----BEGIN KEY-----\\nabc\\n-----END KEY-----',
      WAITGATE_GITHUB_APP_INSTALLATION_ID: '456',
    }).forge;
    expect(f.github?.auth).toEqual({
      kind: 'app',
      appId: '123',
      privateKey: '-----BEGIN KEY-----\nabc\n-----END KEY-----',
      installationId: 456,
    });
  });

  test('a GitHub App may name its own webhook (app) beside repository and organisation hooks', () => {
    const f = parseOperatorConfig({
      ...BASE,
      WAITGATE_GITHUB_APP_ID: '123',
      WAITGATE_GITHUB_APP_PRIVATE_KEY: 'k',
      WAITGATE_GITHUB_APP_INSTALLATION_ID: '456',
      WAITGATE_GITHUB_REDELIVER_HOOKS: 'app,acme:34',
    }).forge;
    expect(f.redeliverHooks).toEqual([{ kind: 'app' }, { kind: 'org', org: 'acme', hookId: 34 }]);
  });

  test.each<[Record<string, string>, string]>([
    [{ WAITGATE_FORGE_REPORT: 'refused,started' }, 'WAITGATE_FORGE_REPORT: "started" is not a transition'],
    [{ WAITGATE_FORGE_REPORT_NAMESPACES: 'team-a,Team_B' }, 'WAITGATE_FORGE_REPORT_NAMESPACES: "Team_B" is not a namespace name'],
    [{ WAITGATE_FORGE_REPORT_NAMESPACES: 'team-a,team-a' }, 'WAITGATE_FORGE_REPORT_NAMESPACES: "team-a" is listed twice'],
    [{ WAITGATE_GITHUB_APP_ID: '1', WAITGATE_GITHUB_APP_INSTALLATION_ID: '2' }, 'WAITGATE_GITHUB_APP_PRIVATE_KEY: is required'],
    [{ WAITGATE_GITHUB_APP_ID: 'abc' }, 'WAITGATE_GITHUB_APP_ID: must be the numeric App id'],
    [
      {
        WAITGATE_GITHUB_TOKEN: 't',
        WAITGATE_GITHUB_APP_ID: '1',
        WAITGATE_GITHUB_APP_PRIVATE_KEY: 'k',
        WAITGATE_GITHUB_APP_INSTALLATION_ID: '2',
      },
      'WAITGATE_GITHUB_TOKEN: is set as well as a GitHub App',
    ],
    [{ WAITGATE_GITHUB_REDELIVER_HOOKS: 'acme/web:1' }, 'WAITGATE_GITHUB_REDELIVER_HOOKS: needs GitHub credentials'],
    [{ WAITGATE_GITHUB_TOKEN: 't', WAITGATE_GITHUB_REDELIVER_HOOKS: 'acme/web' }, 'WAITGATE_GITHUB_REDELIVER_HOOKS: "acme/web" is neither'],
    [
      { WAITGATE_GITHUB_TOKEN: 't', WAITGATE_GITHUB_REDELIVER_HOOKS: 'acme/web:1,app' },
      "WAITGATE_GITHUB_REDELIVER_HOOKS: names the GitHub App's own webhook (app), which needs the GitHub App settings, not a token",
    ],
    [{ WAITGATE_GITLAB_TOKEN: 't', WAITGATE_GITLAB_API_URL: 'gitlab.example' }, 'WAITGATE_GITLAB_API_URL: must be an http'],
    [{ WAITGATE_PROFILES_CONFIGMAP: 'Blue_Profiles' }, 'WAITGATE_PROFILES_CONFIGMAP: must be a ConfigMap name'],
    [{ WAITGATE_TRIGGERS_CONFIGMAP: 'blue-' }, 'WAITGATE_TRIGGERS_CONFIGMAP: must be a ConfigMap name'],
    [{ WAITGATE_AZURE_TOKEN: 't' }, 'WAITGATE_AZURE_API_URL: is required with WAITGATE_AZURE_TOKEN'],
    [{ WAITGATE_AZURE_TOKEN: 't', WAITGATE_AZURE_API_URL: 'dev.azure.com/acme' }, 'WAITGATE_AZURE_API_URL: must be an http'],
  ])('refuses %j', (env, message) => {
    expect(() => parseOperatorConfig({ ...BASE, ...env })).toThrow(message);
  });
});

describe('WAITGATE_CHECK_POD_DEFAULTS', () => {
  test.each<[string, string | undefined, object]>([
    ['unset: none', undefined, {}],
    ['empty: none', '', {}],
    [
      'the five keys',
      '{"imagePullSecrets":[{"name":"r"}],"nodeSelector":{"pool":"a"},"tolerations":[{"operator":"Exists"}],"affinity":{},"priorityClassName":"p"}',
      {
        imagePullSecrets: [{ name: 'r' }],
        nodeSelector: { pool: 'a' },
        tolerations: [{ operator: 'Exists' }],
        affinity: {},
        priorityClassName: 'p',
      },
    ],
  ])('%s', (_what, value, expected) => {
    const env = value === undefined ? BASE : { ...BASE, WAITGATE_CHECK_POD_DEFAULTS: value };
    expect(parseOperatorConfig(env).checkPodDefaults).toEqual(expected);
  });

  test.each<[string, string, string]>([
    ['an unknown key', '{"nodeName":"n"}', 'WAITGATE_CHECK_POD_DEFAULTS: unknown key "nodeName"'],
    ['a bad pull secret', '{"imagePullSecrets":[{"name":"A"}]}', 'WAITGATE_CHECK_POD_DEFAULTS: imagePullSecrets.0.name:'],
    ['a bad toleration', '{"tolerations":[{"key":"a","operator":"In"}]}', 'WAITGATE_CHECK_POD_DEFAULTS: tolerations.0.operator:'],
    ['not JSON', 'nodeSelector=a', 'WAITGATE_CHECK_POD_DEFAULTS: is not valid JSON'],
  ])('refuses %s, naming the variable and the key', (_what, value, line) => {
    let thrown: unknown;
    try {
      parseOperatorConfig({ ...BASE, WAITGATE_CHECK_POD_DEFAULTS: value });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const lines = (thrown as ConfigError).problems.map((p) => `${p.variable}: ${p.message}`);
    expect(lines).toEqual(expect.arrayContaining([expect.stringContaining(line)]));
  });
});
