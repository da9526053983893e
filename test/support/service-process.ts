// waitgate's own processes (operator, receiver), run for real from dist/, as make runs them.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeconfigPath, ROOT } from './env.js';
import { Timeouts } from './timeouts.js';
import { eventually } from './wait.js';

export class ServiceProcess {
  private child: ChildProcess | undefined;
  readonly logPath: string;
  private exited: Promise<number | null> = Promise.resolve(null);
  /** When the last process started here exited (epoch ms, this machine's clock), if it has. */
  exitedAt: number | undefined;

  constructor(
    private readonly entry: string,
    private readonly readyMessage: string,
    private readonly env: Record<string, string>,
    label: string,
  ) {
    const dir = join(tmpdir(), 'waitgate-e2e');
    mkdirSync(dir, { recursive: true });
    this.logPath = join(dir, `${label}-${Date.now()}.log`);
  }

  /** Starts the process and waits for its ready log line; returns that line. */
  async start(): Promise<Record<string, unknown>> {
    return this.startUntil(this.readyMessage);
  }

  /** Starts the process and waits for the given log line (for a replica that stands by). */
  async startAndWaitFor(message: string): Promise<Record<string, unknown>> {
    return this.startUntil(message);
  }

  private async startUntil(message: string): Promise<Record<string, unknown>> {
    const out = createWriteStream(this.logPath, { flags: 'a' });
    const before = this.linesWith(message).length;
    const child = spawn(process.execPath, [join(ROOT, this.entry)], {
      env: { PATH: process.env['PATH'] ?? '', KUBECONFIG: kubeconfigPath(), WAITGATE_LOG_LEVEL: 'debug', ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
    this.child = child;
    this.exitedAt = undefined;
    this.exited = new Promise((resolve) =>
      child.once('exit', (code) => {
        this.exitedAt = Date.now();
        resolve(code);
      }),
    );
    let exitedEarly = false;
    void this.exited.then(() => (exitedEarly = true));
    return eventually(
      `${this.entry} to log "${message}"`,
      () => {
        if (exitedEarly) throw new Error(`${this.entry} exited; see ${this.logPath}`);
        const lines = this.linesWith(message);
        return lines.length > before ? lines[lines.length - 1] : undefined;
      },
      Timeouts.startMs,
    );
  }

  /** Kills with the signal (SIGKILL: no chance to clean up) and waits for the exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    this.child?.kill(signal);
    await this.exited;
    this.child = undefined;
  }

  async stop(): Promise<void> {
    if (this.child) await this.kill('SIGTERM');
  }

  /** Runs the process to its exit (for processes expected to stop by themselves). */
  async exitCode(): Promise<number | null> {
    return this.exited;
  }

  /** The running process's id, for reading its memory. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  logText(): string {
    try {
      return readFileSync(this.logPath, 'utf8');
    } catch {
      return '';
    }
  }

  /**
   * Every JSON log line written so far. A line the process is about to write is not here yet
   * (it may come after what the test saw, even after the process exited): to assert on a
   * line, wait for it with logged() or loggedTimes(); read this once only to see what is absent.
   */
  logLines(): Record<string, unknown>[] {
    return this.logText()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  /** Polls the log until a line matches (a `msg`, or a test of the whole line); the first such line. */
  logged(match: string | LineMatch, timeoutMs: number = Timeouts.shortMs): Promise<Record<string, unknown>> {
    const test = lineMatch(match);
    return eventually(`${this.entry} to log ${describeMatch(match)} (${this.logPath})`, () => this.logLines().find(test), timeoutMs);
  }

  /** Polls the log until at least `count` lines match; every matching line then (more, if more came). */
  loggedTimes(match: string | LineMatch, count: number, timeoutMs: number = Timeouts.shortMs): Promise<Record<string, unknown>[]> {
    const test = lineMatch(match);
    return eventually(
      `${this.entry} to log ${describeMatch(match)} ${count} times (${this.logPath})`,
      () => {
        const lines = this.logLines().filter(test);
        return lines.length >= count ? lines : undefined;
      },
      timeoutMs,
    );
  }

  /** Polls the raw log text until it matches; that text. */
  loggedText(pattern: RegExp, timeoutMs: number = Timeouts.shortMs): Promise<string> {
    return eventually(
      `${this.entry} to log text matching ${String(pattern)} (${this.logPath})`,
      () => {
        const text = this.logText();
        return pattern.test(text) ? text : undefined;
      },
      timeoutMs,
    );
  }

  private linesWith(msg: string): Record<string, unknown>[] {
    return this.logLines().filter((l) => l['msg'] === msg);
  }
}

/** A test of one log line. */
export type LineMatch = (line: Record<string, unknown>) => boolean;

const lineMatch = (match: string | LineMatch): LineMatch => (typeof match === 'string' ? (l) => l['msg'] === match : match);
const describeMatch = (match: string | LineMatch): string => (typeof match === 'string' ? `"${match}"` : 'a line that matches');

export function operatorProcess(env: Record<string, string>, label: string): ServiceProcess {
  return new ServiceProcess(
    'dist/operator/main.js',
    'Started',
    {
      VALKEY_URL: process.env['VALKEY_URL'] ?? '',
      WAITGATE_VALKEY_PREFIX: `test-${label}`,
      WAITGATE_METRICS_HOST: '127.0.0.1',
      WAITGATE_METRICS_PORT: '0',
      // Exec checks see an allow-list of the operator's environment: the variables the tests'
      // check scripts read (test/support/profiles.ts) are on it.
      WAITGATE_CHECK_ENV_ALLOW: CHECK_SCRIPT_VARIABLES.join(','),
      ...env,
    },
    label,
  );
}

/** What the tests' check scripts read from their environment. */
export const CHECK_SCRIPT_VARIABLES = ['CHECK_STATE_DIR', 'CHECK_LOG'] as const;

export function receiverProcess(env: Record<string, string>, label: string): ServiceProcess {
  return new ServiceProcess(
    'dist/receiver/main.js',
    'Listening',
    {
      WAITGATE_RECEIVER_HOST: '127.0.0.1',
      WAITGATE_RECEIVER_PORT: '0',
      WAITGATE_RECEIVER_METRICS_HOST: '127.0.0.1',
      WAITGATE_RECEIVER_METRICS_PORT: '0',
      ...env,
    },
    label,
  );
}

/** The webhook and the metrics URLs of a receiver, from its "Listening" line. */
export function receiverUrls(listening: Record<string, unknown>): { url: string; metricsUrl: string } {
  return {
    url: `http://127.0.0.1:${String(listening['port'])}`,
    metricsUrl: `http://127.0.0.1:${String(listening['metricsPort'])}`,
  };
}
