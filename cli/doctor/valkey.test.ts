import { describe, expect, test } from '@jest/globals';
import { clusterDnsName, redactUrl, valkeyFindings } from './valkey.js';

test('a Valkey URL is shown without its credentials', () => {
  expect(redactUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  expect(redactUrl('rediss://:s3cret@valkey.example:6380/2')).toBe('rediss://valkey.example:6380/2 (credentials not shown)');
  expect(redactUrl('not a url')).toBe('(a URL that does not parse)');
});

describe('a name only the cluster resolves', () => {
  test.each([
    ['valkey', true],
    ['valkey.waitgate-system', true],
    ['valkey.waitgate.svc', true],
    ['valkey.waitgate.svc.cluster.local', true],
    ['valkey.waitgate.svc.corp.example', true],
    ['valkey-0.valkey-headless.waitgate.svc.cluster.local.', true],
    ['VALKEY.WAITGATE.SVC', true],
    ['valkey.prod.example.com', false],
    ['127.0.0.1', false],
    ['[::1]', false],
    ['localhost', false],
  ])('%s: %s', (host, cluster) => {
    expect(clusterDnsName(host)).toBe(cluster);
  });
});

describe('the valkey finding before any PING', () => {
  const dnsError = (code: string) => () => Promise.reject(Object.assign(new Error(`getaddrinfo ${code}`), { code }));
  const never = () => Promise.reject(new Error('resolve must not be asked'));

  test('outside the cluster, a cluster name that does not resolve: a warning that says why and where it is checked', async () => {
    const findings = await valkeyFindings('redis://:pw@valkey.waitgate.svc:6379', {
      caFile: undefined,
      timeoutMs: 100,
      inCluster: false,
      resolve: dnsError('ENOTFOUND'),
    });
    expect(findings).toEqual([
      {
        level: 'WARN',
        area: 'valkey',
        message:
          "redis://valkey.waitgate.svc:6379 (credentials not shown) not checked: valkey.waitgate.svc is a name of the cluster's DNS, which does not resolve here (ENOTFOUND). The operator resolves it inside the cluster; `helm test` runs doctor there, where it is checked",
      },
    ]);
  });

  test('no VALKEY_URL is a failure, without asking DNS', async () => {
    const [f] = await valkeyFindings(undefined, { caFile: undefined, timeoutMs: 100, inCluster: false, resolve: never });
    expect(f).toMatchObject({ level: 'FAIL', message: expect.stringMatching(/VALKEY_URL is not set/) });
  });

  test.each([
    ['inside the cluster, the same name', 'redis://valkey.waitgate.svc:6379', true, dnsError('ENOTFOUND')],
    ['a name that is not the cluster’s', 'redis://valkey.prod.example.com:6379', false, never],
    ['a DNS server that failed is not "no such name"', 'redis://valkey.waitgate.svc:6379', false, dnsError('ECONNREFUSED')],
  ])('%s: PINGed, and not answering is a failure', async (_n, url, inCluster, resolve) => {
    const pinged: string[] = [];
    const ping = (u: string) => {
      pinged.push(u);
      return Promise.resolve({ ok: false as const, problem: 'getaddrinfo ENOTFOUND' });
    };
    const [f] = await valkeyFindings(url, { caFile: undefined, timeoutMs: 200, inCluster, resolve, ping });
    expect(pinged).toEqual([url]);
    expect(f).toMatchObject({
      level: 'FAIL',
      area: 'valkey',
      message: expect.stringMatching(/does not answer PING: getaddrinfo ENOTFOUND/),
    });
  });

  test('a cluster name that resolves here is PINGed; answering is ok', async () => {
    const ping = () => Promise.resolve({ ok: true as const, ms: 3 });
    const [f] = await valkeyFindings('redis://valkey.waitgate.svc:6379', {
      caFile: undefined,
      timeoutMs: 200,
      inCluster: false,
      resolve: () => Promise.resolve({ address: '10.0.0.9' }),
      ping,
    });
    expect(f).toEqual({ level: 'ok', area: 'valkey', message: 'redis://valkey.waitgate.svc:6379 answers PING (3 ms)' });
  });
});
