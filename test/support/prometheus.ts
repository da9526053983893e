// A real Prometheus (built by hack/install-prometheus.sh, on PATH from the cache's active
// folder) on loopback, in a temporary folder, scraping fixed targets each second: for tests
// that ask it what a dashboard would.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Timeouts } from './timeouts.js';
import { eventually } from './wait.js';

export interface PrometheusTarget {
  /** host:port of a /metrics endpoint. */
  readonly address: string;
  /** Labels Prometheus adds to every series of the target (as a ServiceMonitor's would). */
  readonly labels: Record<string, string>;
}

export interface PrometheusSeries {
  readonly metric: Record<string, string>;
  readonly value: [number, string];
}

/** A port nothing listens on now (the kernel's choice), for a process that wants a fixed one. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export class PrometheusProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private readonly dir = mkdtempSync(join(tmpdir(), 'waitgate-prometheus-'));
  url = '';

  constructor(private readonly targets: readonly PrometheusTarget[]) {}

  get logPath(): string {
    return join(this.dir, 'prometheus.log');
  }

  /** Starts it and waits until it answers a query. */
  async start(): Promise<void> {
    const config = [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      'scrape_configs:',
      '  - job_name: waitgate',
      '    static_configs:',
      ...this.targets.flatMap((t) => [`      - targets: [${JSON.stringify(t.address)}]`, `        labels: ${JSON.stringify(t.labels)}`]),
    ].join('\n');
    writeFileSync(join(this.dir, 'prometheus.yml'), `${config}\n`);
    const port = await freePort();
    this.url = `http://127.0.0.1:${String(port)}`;
    const log = join(this.dir, 'prometheus.log');
    writeFileSync(log, '');
    const child = spawn(
      'prometheus',
      [
        `--config.file=${join(this.dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(this.dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${String(port)}`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    this.child = child;
    child.stderr.on('data', (d: Buffer) => writeFileSync(log, d, { flag: 'a' }));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.once('error', (err) =>
      writeFileSync(log, `cannot run prometheus: ${err.message} (hack/install-prometheus.sh builds it)\n`, { flag: 'a' }),
    );
    await eventually(
      `prometheus to answer on ${this.url} (${log})`,
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited: ${readFileSync(log, 'utf8').slice(-2000)}`);
        return (await this.query('vector(1)')).length === 1 ? true : undefined;
      },
      Timeouts.startMs,
    );
  }

  /** An instant query: its series (an error answer throws, naming the query). */
  async query(expr: string): Promise<PrometheusSeries[]> {
    const res = await fetch(`${this.url}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await res.json()) as { status: string; error?: string; data?: { result: PrometheusSeries[] } };
    if (body.status !== 'success') throw new Error(`prometheus refused ${expr}: ${body.error ?? res.status}`);
    return body.data?.result ?? [];
  }

  async stop(): Promise<void> {
    if (this.child && this.child.exitCode === null) {
      this.child.kill('SIGTERM');
      await this.exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
