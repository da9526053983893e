import { describe, expect, test } from '@jest/globals';
import { chosenValkeyServer, valkeyServerCommand } from './valkey-server-command.js';

describe('WAITGATE_VALKEY_SERVER: the server a script or a test starts of its own', () => {
  test.each<[string, string | undefined, string]>([
    ['unset is valkey-server 9', undefined, 'valkey-server'],
    ['empty is valkey-server 9', '', 'valkey-server'],
    ['valkey', 'valkey', 'valkey-server'],
    ['redis is the Redis 7 lane', 'redis', 'redis-server'],
  ])('%s', (_name, value, command) => {
    expect(valkeyServerCommand(chosenValkeyServer(value))).toBe(command);
  });

  test.each<[string, string]>([
    ['a binary name is not a server name', 'redis-server'],
    ['case counts', 'Valkey'],
    ['a version is not a server', '7'],
  ])('%s: a named error', (_name, value) => {
    expect(() => chosenValkeyServer(value)).toThrow(`WAITGATE_VALKEY_SERVER is valkey or redis (not ${JSON.stringify(value)})`);
  });
});
