import { describe, expect, test } from '@jest/globals';
import { ConfigError } from '../lib/config/env.js';
import { parseReceiverConfig } from './config.js';

const env = (over: Record<string, string>) => ({ VALKEY_URL: 'redis://v:6379', ...over });

describe('parseReceiverConfig', () => {
  test('defaults: every address (IPv6 and IPv4), a 5 s drain, limits, a metrics port of its own, no secrets', () => {
    const c = parseReceiverConfig(env({}));
    expect(c.host).toBeUndefined();
    expect(c.metricsHost).toBeUndefined();
    expect(parseReceiverConfig(env({ WAITGATE_RECEIVER_HOST: '' })).host).toBeUndefined();
    expect(parseReceiverConfig(env({ WAITGATE_RECEIVER_HOST: '127.0.0.1' })).host).toBe('127.0.0.1');
    expect(c).toMatchObject({
      drainMs: 5_000,
      port: 8080,
      metricsPort: 8082,
      limits: { headersTimeoutMs: 10_000, requestTimeoutMs: 15_000, maxConnections: 256, maxInflightBodyBytes: 16 * 1024 * 1024 },
      webhookSecrets: { github: [], gitlab: [], azure: [] },
      forgeApis: {},
    });
  });

  test.each<[string, Record<string, string>, string[], string[]]>([
    ['the single names, as before', { WAITGATE_GITHUB_WEBHOOK_SECRET: 'a', WAITGATE_GITLAB_WEBHOOK_TOKEN: 't' }, ['a'], ['t']],
    ['a single secret keeps its commas', { WAITGATE_GITHUB_WEBHOOK_SECRET: 'a,b' }, ['a,b'], []],
    ['a list, one a line', { WAITGATE_GITHUB_WEBHOOK_SECRETS: 'new\nold\n' }, ['new', 'old'], []],
    ['a list, comma-separated, blanks dropped', { WAITGATE_GITLAB_WEBHOOK_TOKENS: ' t1 , ,t2' }, [], ['t1', 't2']],
    ['both names: every secret, once', { WAITGATE_GITHUB_WEBHOOK_SECRET: 'a', WAITGATE_GITHUB_WEBHOOK_SECRETS: 'b,a' }, ['a', 'b'], []],
    ['empty strings are unset', { WAITGATE_GITHUB_WEBHOOK_SECRET: '', WAITGATE_GITHUB_WEBHOOK_SECRETS: '' }, [], []],
  ])('secrets: %s', (_n, e, github, gitlab) => {
    const c = parseReceiverConfig(env(e));
    expect(c.webhookSecrets.github).toEqual(github);
    expect(c.webhookSecrets.gitlab).toEqual(gitlab);
  });

  test.each<[string, Record<string, string>, string[]]>([
    ['the single name', { WAITGATE_AZURE_WEBHOOK_SECRET: 'a' }, ['a']],
    ['a list with the single name', { WAITGATE_AZURE_WEBHOOK_SECRET: 'a', WAITGATE_AZURE_WEBHOOK_SECRETS: 'b\na' }, ['a', 'b']],
  ])('Azure DevOps secrets: %s', (_n, e, azure) => {
    expect(parseReceiverConfig(env(e)).webhookSecrets.azure).toEqual(azure);
  });

  test('forge APIs: only those with a token; Azure needs its URL', () => {
    const c = parseReceiverConfig(
      env({ WAITGATE_GITLAB_TOKEN: 'glpat', WAITGATE_AZURE_TOKEN: 'pat', WAITGATE_AZURE_API_URL: 'https://dev.azure.com/acme' }),
    );
    expect(c.forgeApis).toEqual({
      gitlab: { url: 'https://gitlab.com/api/v4', token: 'glpat', timeoutMs: 10_000 },
      azure: { url: 'https://dev.azure.com/acme', token: 'pat', timeoutMs: 10_000 },
    });
    expect(() => parseReceiverConfig(env({ WAITGATE_AZURE_TOKEN: 'pat' }))).toThrow('WAITGATE_AZURE_API_URL');
  });

  test.each([
    ['WAITGATE_RECEIVER_MAX_CONNECTIONS', '0'],
    ['WAITGATE_RECEIVER_MAX_INFLIGHT_BODY_BYTES', '1000'],
    ['WAITGATE_RECEIVER_HEADERS_TIMEOUT_MS', 'soon'],
    ['WAITGATE_RECEIVER_METRICS_PORT', '70000'],
    ['WAITGATE_RECEIVER_DRAIN_MS', '-1'],
    ['WAITGATE_RECEIVER_DRAIN_MS', '600000'],
  ])('a bad %s is refused, naming it', (name, value) => {
    expect(() => parseReceiverConfig(env({ [name]: value }))).toThrow(ConfigError);
    expect(() => parseReceiverConfig(env({ [name]: value }))).toThrow(name);
  });
});

describe('WAITGATE_VALKEY_CA_FILE (the receiver)', () => {
  test.each<[string, Record<string, string>, string | undefined]>([
    [
      'a rediss:// URL: read',
      { VALKEY_URL: 'rediss://valkey:6380', WAITGATE_VALKEY_CA_FILE: '/etc/waitgate/valkey-ca/ca.crt' },
      '/etc/waitgate/valkey-ca/ca.crt',
    ],
    ['unset: none', { VALKEY_URL: 'rediss://valkey:6380' }, undefined],
    ['empty counts as unset', { VALKEY_URL: 'redis://valkey:6379', WAITGATE_VALKEY_CA_FILE: '' }, undefined],
  ])('%s', (_what, env, caFile) => {
    expect(parseReceiverConfig(env).valkeyCaFile).toBe(caFile);
  });

  test('refused with a redis:// URL, naming the variable and why', () => {
    const bad = () => parseReceiverConfig({ VALKEY_URL: 'redis://valkey:6379', WAITGATE_VALKEY_CA_FILE: '/ca.crt' });
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(/WAITGATE_VALKEY_CA_FILE: is set, but VALKEY_URL is not a rediss:\/\/ URL/);
  });
});

describe('WAITGATE_RECEIVER_TRIGGERS_DIR and WAITGATE_RECEIVER_PROFILES_DIR', () => {
  test.each<[string, Record<string, string>, object | undefined]>([
    ['unset: the API', {}, undefined],
    ['empty counts as unset', { WAITGATE_RECEIVER_TRIGGERS_DIR: '', WAITGATE_RECEIVER_PROFILES_DIR: '' }, undefined],
    [
      'both: the files',
      { WAITGATE_RECEIVER_TRIGGERS_DIR: '/etc/waitgate/triggers', WAITGATE_RECEIVER_PROFILES_DIR: '/etc/waitgate/profiles' },
      { triggersDir: '/etc/waitgate/triggers', profilesDir: '/etc/waitgate/profiles' },
    ],
  ])('%s', (_what, e, folders) => {
    expect(parseReceiverConfig(env(e)).configFolders).toEqual(folders);
  });

  test.each([
    ['WAITGATE_RECEIVER_TRIGGERS_DIR', 'WAITGATE_RECEIVER_PROFILES_DIR'],
    ['WAITGATE_RECEIVER_PROFILES_DIR', 'WAITGATE_RECEIVER_TRIGGERS_DIR'],
  ])('%s alone is refused, naming %s', (set, missing) => {
    const bad = () => parseReceiverConfig(env({ [set]: '/x' }));
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(new RegExp(`${missing}: is required when ${set} is set`));
  });
});
