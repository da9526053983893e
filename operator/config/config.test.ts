import { describe, expect, test } from '@jest/globals';
import { ConfigError, parseOperatorConfig } from './config.js';

describe('parseOperatorConfig', () => {
  test('defaults are the reference values', () => {
    const c = parseOperatorConfig({});
    expect(c.wait).toEqual({
      intervalMs: 60_000,
      intervalFloored: false,
      checkTimeoutMs: 10_000,
      checkSlots: 1,
      maxMs: 86_400_000,
      afterMaxMs: 2_592_000_000,
      maxChecks: 96,
      maxFaults: 5,
    });
    expect(c.namespace).toBe('waitgate-system');
    expect(c.watchNamespace).toBe('');
  });

  test('empty strings count as unset', () => {
    const c = parseOperatorConfig({ WAITGATE_WAIT_INTERVAL_MS: '', WAITGATE_NAMESPACE: ' ', VALKEY_URL: '' });
    expect(c.wait.intervalMs).toBe(60_000);
    expect(c.namespace).toBe('waitgate-system');
    expect(c.valkeyUrl).toBeUndefined();
  });

  test.each([
    ['WAITGATE_WAIT_INTERVAL_MS', '5000', (c: ReturnType<typeof parseOperatorConfig>) => [c.wait.intervalMs, c.wait.intervalFloored], [30_000, true]],
    ['WAITGATE_WAIT_INTERVAL_MS', '3600000', (c: ReturnType<typeof parseOperatorConfig>) => [c.wait.intervalMs, c.wait.intervalFloored], [3_600_000, false]],
    ['WAITGATE_WAIT_AFTER_MAX_MS', '1000', (c: ReturnType<typeof parseOperatorConfig>) => [c.wait.afterMaxMs], [1000]],
  ])('%s=%s', (name, value, pick, expected) => {
    expect(pick(parseOperatorConfig({ [name]: value }))).toEqual(expected);
  });

  test.each([
    ['WAITGATE_WAIT_INTERVAL_MS', 'soon'],
    ['WAITGATE_WAIT_MAX_CHECKS', '-1'],
    ['WAITGATE_WAIT_MAX_FAULTS', '0'],
    ['WAITGATE_CONCURRENCY', '1.5'],
    ['WAITGATE_LOG_LEVEL', 'loud'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => parseOperatorConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => parseOperatorConfig({ [name]: value })).toThrow(name);
  });
});
