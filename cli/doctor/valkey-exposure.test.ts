import { expect, test } from '@jest/globals';
import { valkeyExposureFindings } from './valkey-exposure.js';

test.each<[string, string, string[]]>([
  ['TLS with a user and password', 'rediss://cluster-a:s3cret@valkey.example:6380', ['ok']],
  ['plain text on loopback with a password', 'redis://:s3cret@127.0.0.1:6379', ['ok']],
  ['plain text to localhost with a password', 'redis://:s3cret@localhost:6379', ['ok']],
  ['plain text to IPv6 loopback with a password', 'redis://:s3cret@[::1]:6379', ['ok']],
  ['no password on loopback', 'redis://127.0.0.1:6379', ['WARN no password']],
  ['no password over TLS', 'rediss://valkey.example:6380', ['WARN no password']],
  ['plain text to a cluster Service', 'redis://:s3cret@waitgate-valkey.waitgate-system.svc:6379', ['WARN plain text']],
  ['plain text to another host with no password', 'redis://10.0.0.5:6379', ['WARN no password', 'WARN plain text']],
  ['a user with no password', 'redis://cluster-a@valkey.example:6379', ['WARN no password', 'WARN plain text']],
])('%s', (_what, url, expected) => {
  const got = valkeyExposureFindings(url).map((f) =>
    f.level === 'ok' ? 'ok' : `${f.level} ${/no password/.test(f.message) ? 'no password' : 'plain text'}`,
  );
  expect(got).toEqual(expected);
  for (const f of valkeyExposureFindings(url)) expect(f.message).not.toContain('s3cret');
});

test("a URL that does not parse is the settings check's to report, not this one", () => {
  expect(valkeyExposureFindings('not a url')).toEqual([]);
});
