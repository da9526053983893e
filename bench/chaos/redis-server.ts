// A Valkey server of one's own, for what must not touch the shared one: FLUSHALL, or a restart
// that loses every key (nothing is persisted unless asked), as tests and the chaos run do.
// Listens on a free loopback port; the same port across a restart, so a client reconnects to
// it by itself. valkey-server 9, or redis-server 7 in the Redis 7 lane (WAITGATE_VALKEY_SERVER,
// bench/valkey-server-command.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../common.js';
import { chosenValkeyServer, valkeyServerCommand } from '../valkey-server-command.js';

const READY_WITHIN_MS = 10_000;

async function answersPing(port: number): Promise<true | undefined> {
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG' ? true : undefined;
  } catch {
    return undefined;
  } finally {
    probe.disconnect();
  }
}

export class OwnRedisServer {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  /** Started and answering PING. */
  static async start(): Promise<OwnRedisServer> {
    const server = new OwnRedisServer(await freePort(), mkdtempSync(join(tmpdir(), 'waitgate-own-redis-')));
    await server.up();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /**
   * Killed (SIGKILL) and started again on the same port, with no scripts loaded. Its keys are
   * lost, unless `keepKeys`: then a snapshot taken just before is loaded again, as a server with
   * persistence comes back.
   */
  async restart(opts: { keepKeys?: boolean } = {}): Promise<void> {
    const snapshot = join(this.dir, 'dump.rdb');
    rmSync(snapshot, { force: true });
    if (opts.keepKeys) {
      const client = new Redis({ port: this.port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
      try {
        await client.save();
      } finally {
        client.disconnect();
      }
    }
    await this.down('SIGKILL');
    await this.up();
    rmSync(snapshot, { force: true });
  }

  async stop(): Promise<void> {
    await this.down('SIGTERM');
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async up(): Promise<void> {
    const args = ['--bind', '127.0.0.1', '--port', String(this.port), '--save', '', '--appendonly', 'no', '--dir', this.dir];
    const command = valkeyServerCommand(chosenValkeyServer(process.env['WAITGATE_VALKEY_SERVER']));
    const child = spawn(command, args, { stdio: 'ignore' });
    this.child = child;
    let failed: Error | undefined;
    child.once('error', (err) => (failed = err));
    const deadline = Date.now() + READY_WITHIN_MS;
    for (;;) {
      if (failed)
        throw new Error(
          `${command} did not start (${failed.message}): hack/install-tools.sh installs it into ~/.cache/waitgate/bin/active, which must be on PATH`,
        );
      if (child.exitCode !== null) throw new Error(`${command} exited with ${child.exitCode}`);
      if (await answersPing(this.port)) return;
      if (Date.now() > deadline) throw new Error(`${command} on port ${this.port} did not answer PING within ${READY_WITHIN_MS} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  private async down(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }
}
