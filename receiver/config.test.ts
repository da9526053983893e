import { describe, expect, test } from '@jest/globals';
import { ConfigError } from '../lib/config/env.js';
import { parseReceiverConfig, webhookSecretsOf } from './config.js';

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

  // Sixteen characters at least (MIN_WEBHOOK_SECRET_LENGTH).
  const A = 'a'.repeat(16);
  const B = 'b'.repeat(20);
  const T = 't'.repeat(16);
  test.each<[string, Record<string, string>, string[], string[]]>([
    ['the single names, as before', { WAITGATE_GITHUB_WEBHOOK_SECRET: A, WAITGATE_GITLAB_WEBHOOK_TOKEN: T }, [A], [T]],
    ['a single secret keeps its commas', { WAITGATE_GITHUB_WEBHOOK_SECRET: `${A},${B}` }, [`${A},${B}`], []],
    ['a list, one a line', { WAITGATE_GITHUB_WEBHOOK_SECRETS: `${B}\n${A}\n` }, [B, A], []],
    ['a list, comma-separated, blanks dropped', { WAITGATE_GITLAB_WEBHOOK_TOKENS: ` ${T} , ,${B}` }, [], [T, B]],
    ['both names: every secret, once', { WAITGATE_GITHUB_WEBHOOK_SECRET: A, WAITGATE_GITHUB_WEBHOOK_SECRETS: `${B},${A}` }, [A, B], []],
    ['empty strings are unset', { WAITGATE_GITHUB_WEBHOOK_SECRET: '', WAITGATE_GITHUB_WEBHOOK_SECRETS: '' }, [], []],
  ])('secrets: %s', (_n, e, github, gitlab) => {
    const c = parseReceiverConfig(env(e));
    expect(c.webhookSecrets.github).toEqual(github);
    expect(c.webhookSecrets.gitlab).toEqual(gitlab);
  });

  test.each<[string, Record<string, string>, string[]]>([
    ['the single name', { WAITGATE_AZURE_WEBHOOK_SECRET: A }, [A]],
    ['a list with the single name', { WAITGATE_AZURE_WEBHOOK_SECRET: A, WAITGATE_AZURE_WEBHOOK_SECRETS: `${B}\n${A}` }, [A, B]],
  ])('Azure DevOps secrets: %s', (_n, e, azure) => {
    expect(parseReceiverConfig(env(e)).webhookSecrets.azure).toEqual(azure);
  });

  test.each([
    ['WAITGATE_GITHUB_WEBHOOK_SECRET', 'Zq7', 'Zq7'],
    ['WAITGATE_GITLAB_WEBHOOK_TOKEN', 'Zq7'.repeat(5), 'Zq7'],
    ['WAITGATE_AZURE_WEBHOOK_SECRET', 'hook-Zq7', 'Zq7'],
    ['WAITGATE_GITHUB_WEBHOOK_SECRETS', `${'a'.repeat(16)}\nZq7`, 'Zq7'],
    ['WAITGATE_GITLAB_WEBHOOK_SCOPED_TOKENS', JSON.stringify([{ secret: 'Zq7', repositories: ['acme/*'] }]), 'Zq7'],
  ])('a webhook secret under 16 characters is refused at start (#30), naming %s and never the secret', (name, value, secret) => {
    const bad = () => parseReceiverConfig(env({ [name]: value }));
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(new RegExp(`${name}: .*shorter than 16 characters`));
    expect(bad).not.toThrow(secret);
  });

  test('scoped secrets: each with its repositories (#30)', () => {
    const scoped = [
      { secret: A, repositories: ['acme/*'] },
      { secret: B, repositories: ['beta/web', 'gitlab:beta/**'] },
    ];
    const c = parseReceiverConfig(env({ WAITGATE_GITHUB_WEBHOOK_SCOPED_SECRETS: JSON.stringify(scoped) }));
    expect(c.scopedWebhookSecrets).toEqual({ github: scoped, gitlab: [], azure: [] });
    expect(c.webhookSecrets.github).toEqual([]);
    expect(
      webhookSecretsOf(
        parseReceiverConfig(env({ WAITGATE_GITHUB_WEBHOOK_SECRET: T, WAITGATE_GITHUB_WEBHOOK_SCOPED_SECRETS: JSON.stringify(scoped) })),
      ).github,
    ).toEqual([{ secret: T }, ...scoped]);
  });

  test.each([
    ['not JSON', '[{secret:', /is not JSON/],
    ['not a list', JSON.stringify({ secret: 'a'.repeat(16) }), /WAITGATE_AZURE_WEBHOOK_SCOPED_SECRETS/],
    ['no repositories', JSON.stringify([{ secret: 'a'.repeat(16), repositories: [] }]), /at least one repository pattern/],
    ['a bad pattern', JSON.stringify([{ secret: 'a'.repeat(16), repositories: ['*/web'] }]), /wildcard in its first segment/],
    [
      'an unknown key',
      JSON.stringify([{ secret: 'a'.repeat(16), repositories: ['acme/*'], repos: [] }]),
      /WAITGATE_AZURE_WEBHOOK_SCOPED_SECRETS/,
    ],
  ])('scoped secrets: %s is refused, naming the variable', (_n, value, message) => {
    const bad = () => parseReceiverConfig(env({ WAITGATE_AZURE_WEBHOOK_SCOPED_SECRETS: value }));
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(/WAITGATE_AZURE_WEBHOOK_SCOPED_SECRETS/);
    expect(bad).toThrow(message);
  });

  test('confirming labels needs the API token of each forge that delivers (#30)', () => {
    expect(parseReceiverConfig(env({ WAITGATE_RECEIVER_CONFIRM_LABELS: 'true' })).confirmLabels).toBe(true);
    expect(parseReceiverConfig(env({})).confirmLabels).toBe(false);
    const bad = () => parseReceiverConfig(env({ WAITGATE_RECEIVER_CONFIRM_LABELS: 'true', WAITGATE_GITHUB_WEBHOOK_SECRET: A }));
    expect(bad).toThrow(/WAITGATE_GITHUB_TOKEN: is required with WAITGATE_RECEIVER_CONFIRM_LABELS/);
    expect(
      parseReceiverConfig(
        env({ WAITGATE_RECEIVER_CONFIRM_LABELS: 'true', WAITGATE_GITHUB_WEBHOOK_SECRET: A, WAITGATE_GITHUB_TOKEN: 'ghp' }),
      ).confirmLabels,
    ).toBe(true);
    expect(() => parseReceiverConfig(env({ WAITGATE_RECEIVER_CONFIRM_LABELS: 'maybe' }))).toThrow('WAITGATE_RECEIVER_CONFIRM_LABELS');
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
