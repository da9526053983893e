// Runs once before the integration tests (real processes and a real Valkey, no apiserver), for
// the integration and the redis7 projects alike (jest.config.js: one path, so jest runs it once).
//
// - integration: with $VALKEY_URL set (`make test` exports the one hack/cluster-up.sh started)
//   the tests use that server. Without it this starts one of its own on a free loopback port,
//   with nothing persisted: valkey-server 9, or Debian's redis-server 7 with
//   WAITGATE_VALKEY_SERVER=redis (the values bench/valkey-server-command.ts reads, spelled again
//   here), and exports its URL to the test workers.
// - redis7, the Redis 7 compatibility lane: a redis-server 7 of its own (or $WAITGATE_REDIS7_URL
//   when set), whose URL test/support/redis7-lane.ts hands to that project's tests as VALKEY_URL.
//
// A server is started only for a project this run selected. integration-teardown.ts stops them.
// Kept free of relative imports: jest loads it outside the module mapping the tests use.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What the teardown needs; globalSetup and globalTeardown share one global object. */
export interface OwnRedis {
  readonly child: ChildProcess;
  readonly dir: string;
}
declare global {
  var __waitgateIntegrationRedis: OwnRedis[] | undefined;
}

const START_ATTEMPTS = 5;
const READY_WITHIN_MS = 10_000;
const INSTALLED_BY = 'hack/install-tools.sh installs it into ~/.cache/waitgate/bin/active, which must be on PATH';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/** True when something on the port answers PING with +PONG. */
function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

/** Starts `command` on `port`; resolves once it answers, or to why it did not. */
async function startOn(command: string, port: number, dir: string): Promise<ChildProcess | string> {
  const args = ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'];
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<string>((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) =>
      resolve(err.code === 'ENOENT' ? `${command} is not installed (${INSTALLED_BY})` : err.message),
    );
    child.once('exit', (code, signal) => resolve(`${command} exited (${signal ?? code}) ${stderr.trim()}`));
  });
  let gone: string | undefined;
  void exited.then((why) => (gone = why));
  const deadline = Date.now() + READY_WITHIN_MS;
  while (Date.now() < deadline) {
    if (gone !== undefined) return gone;
    if (await pings(port)) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  return `${command} on port ${port} did not answer PING within ${READY_WITHIN_MS} ms`;
}

/** A server of this run's own, answering; its URL. */
async function ownServer(command: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'waitgate-integration-valkey-'));
  let why = '';
  // Another process may take the port between freePort() and the server's bind: try again.
  for (let attempt = 0; attempt < START_ATTEMPTS; attempt++) {
    const port = await freePort();
    const started = await startOn(command, port, dir);
    if (typeof started !== 'string') {
      (globalThis.__waitgateIntegrationRedis ??= []).push({ child: started, dir });
      // Should jest end without its teardown, the server does not outlive it.
      process.once('exit', () => started.kill('SIGKILL'));
      return `redis://127.0.0.1:${port}`;
    }
    why = started;
    if (why.includes('not installed')) break;
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`integration tests: cannot start a ${command}: ${why}`);
}

/** WAITGATE_VALKEY_SERVER's command: valkey-server unless it says redis. */
function chosenCommand(): string {
  const value = process.env['WAITGATE_VALKEY_SERVER'] ?? '';
  if (value === '' || value === 'valkey') return 'valkey-server';
  if (value === 'redis') return 'redis-server';
  throw new Error(`WAITGATE_VALKEY_SERVER is valkey or redis (not ${JSON.stringify(value)})`);
}

export default async function globalSetup(globalConfig: { selectProjects?: readonly string[] }): Promise<void> {
  const chosen = globalConfig.selectProjects ?? [];
  const selected = (project: string) => chosen.length === 0 || chosen.includes(project);
  if (selected('integration') && !process.env['VALKEY_URL']) process.env['VALKEY_URL'] = await ownServer(chosenCommand());
  if (selected('redis7') && !process.env['WAITGATE_REDIS7_URL']) process.env['WAITGATE_REDIS7_URL'] = await ownServer('redis-server');
}
