// Runs once before the integration tests (real processes and a real Valkey, no apiserver).
// With $VALKEY_URL set (`make test` exports the one hack/cluster-up.sh started) the tests use
// that server. Without it this starts a redis-server of its own on a free loopback port, with
// nothing persisted, and exports its URL to the test workers; integration-teardown.ts stops it.
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
  var __waitgateIntegrationRedis: OwnRedis | undefined;
}

const START_ATTEMPTS = 5;
const READY_WITHIN_MS = 10_000;

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

/** Starts redis-server on `port`; resolves once it answers, or to why it did not. */
async function startOn(port: number, dir: string): Promise<ChildProcess | string> {
  const args = ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<string>((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) =>
      resolve(
        err.code === 'ENOENT'
          ? 'redis-server is not installed (hack/install-tools.sh installs it), and VALKEY_URL is not set'
          : err.message,
      ),
    );
    child.once('exit', (code, signal) => resolve(`redis-server exited (${signal ?? code}) ${stderr.trim()}`));
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
  return `redis-server on port ${port} did not answer PING within ${READY_WITHIN_MS} ms`;
}

export default async function globalSetup(): Promise<void> {
  if (process.env['VALKEY_URL']) return;
  const dir = mkdtempSync(join(tmpdir(), 'waitgate-integration-redis-'));
  let why = '';
  // Another process may take the port between freePort() and redis-server's bind: try again.
  for (let attempt = 0; attempt < START_ATTEMPTS; attempt++) {
    const port = await freePort();
    const started = await startOn(port, dir);
    if (typeof started !== 'string') {
      globalThis.__waitgateIntegrationRedis = { child: started, dir };
      // Should jest end without its teardown, the server does not outlive it.
      process.once('exit', () => started.kill('SIGKILL'));
      process.env['VALKEY_URL'] = `redis://127.0.0.1:${port}`;
      return;
    }
    why = started;
    if (why.includes('not installed')) break;
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`integration tests: cannot start a redis-server: ${why}`);
}
