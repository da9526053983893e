// The operator as a real process, as `make run-operator` runs it.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeconfigPath, OPERATOR_MAIN } from './env.js';
import { eventually } from './wait.js';

export class OperatorProcess {
  private child: ChildProcess | undefined;
  readonly logPath: string;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    private readonly env: Record<string, string>,
    label: string,
  ) {
    const dir = join(tmpdir(), 'waitgate-e2e');
    mkdirSync(dir, { recursive: true });
    this.logPath = join(dir, `${label}-${Date.now()}.log`);
  }

  /** Starts the operator and waits until it says it has started. */
  async start(): Promise<void> {
    const out = createWriteStream(this.logPath, { flags: 'a' });
    const child = spawn(process.execPath, [OPERATOR_MAIN], {
      env: { PATH: process.env['PATH'] ?? '', KUBECONFIG: kubeconfigPath(), WAITGATE_LOG_LEVEL: 'debug', ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const startedBefore = this.logLines().filter((l) => l['msg'] === 'Started').length;
    await eventually('the operator to start', () =>
      this.logLines().filter((l) => l['msg'] === 'Started').length > startedBefore ? true : undefined,
    );
  }

  /** Kills the operator with the signal (SIGKILL: no chance to clean up) and waits for it to go. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    this.child?.kill(signal);
    await this.exited;
    this.child = undefined;
  }

  async stop(): Promise<void> {
    if (this.child) await this.kill('SIGTERM');
  }

  /** Every JSON log line written so far. */
  logLines(): Record<string, unknown>[] {
    let text = '';
    try {
      text = readFileSync(this.logPath, 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}
