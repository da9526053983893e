import { describe, expect, test } from '@jest/globals';
import { ConfigError } from '../lib/config/env.js';
import { parseReceiverConfig } from './config.js';

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
