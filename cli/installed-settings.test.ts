import { describe, expect, test } from '@jest/globals';
import type * as k8s from '@kubernetes/client-node';
import { containerEnv } from './installed-settings.js';

const secrets: Record<string, Record<string, string>> = { 'waitgate-valkey': { url: 'redis://valkey:6379' } };
const read = (name: string, key: string) => Promise.resolve(secrets[name]?.[key]);

describe('containerEnv', () => {
  test.each<[string, k8s.V1EnvVar[], Record<string, string>, string[]]>([
    ['plain values', [{ name: 'WAITGATE_WAIT_INTERVAL_MS', value: '90000' }], { WAITGATE_WAIT_INTERVAL_MS: '90000' }, []],
    [
      'an empty value stays empty (unset, to the parser)',
      [{ name: 'WAITGATE_WATCH_NAMESPACE', value: '' }],
      { WAITGATE_WATCH_NAMESPACE: '' },
      [],
    ],
    [
      'a Secret key it can read',
      [{ name: 'VALKEY_URL', valueFrom: { secretKeyRef: { name: 'waitgate-valkey', key: 'url' } } }],
      { VALKEY_URL: 'redis://valkey:6379' },
      [],
    ],
    [
      'a Secret it cannot read: unresolved',
      [{ name: 'VALKEY_URL', valueFrom: { secretKeyRef: { name: 'other', key: 'url' } } }],
      {},
      ['VALKEY_URL'],
    ],
    ['a field reference: unresolved', [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }], {}, ['POD_NAME']],
  ])('%s', async (_what, envVars, env, unresolved) => {
    expect(await containerEnv({ name: 'operator', env: envVars }, read)).toEqual({ env, unresolved });
  });
});
