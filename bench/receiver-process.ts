// A real receiver process for the fuzz run and the benchmark: started on loopback with a port
// of its own, on the cluster and Valkey of the run, and ready (its /readyz says 200) before
// it is handed back.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { env, imageEnv } from './common.js';
import { RECEIVER_ALLOCATOR_ENV, RECEIVER_NODE_OPTIONS } from './fuzz.js';

export interface ReceiverSecrets {
  readonly githubSecret: string;
  readonly gitlabToken: string;
}

export interface RunningReceiver {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The webhook port. */
  readonly port: number;
  readonly metricsPort: number;
  readonly logPath: string;
  /** The exit code once the process has exited (null when a signal ended it). */
  exitCode(): number | null | undefined;
  stop(): Promise<void>;
}

/** Starts `dist/receiver/main.js` creating HeldJobs in `namespace`, reading its triggers there. */
export async function startReceiverProcess(o: {
  readonly namespace: string;
  readonly secrets: ReceiverSecrets;
  readonly logPath: string;
  /** More NODE_OPTIONS after the chart's (the benchmark's CPU profile flags). */
  readonly nodeOptions?: string;
}): Promise<RunningReceiver> {
  const child = spawn(process.execPath, ['dist/receiver/main.js'], {
    env: {
      // As the chart runs it: the image's allocator settings with the chart's for the receiver
      // over them, the chart's NODE_OPTIONS.
      ...imageEnv(),
      ...RECEIVER_ALLOCATOR_ENV,
      PATH: process.env['PATH'] ?? '',
      NODE_OPTIONS: [RECEIVER_NODE_OPTIONS, o.nodeOptions].filter(Boolean).join(' '),
      KUBECONFIG: env('KUBECONFIG'),
      VALKEY_URL: env('VALKEY_URL'),
      WAITGATE_VALKEY_PREFIX: o.namespace,
      WAITGATE_NAMESPACE: o.namespace,
      WAITGATE_JOB_NAMESPACE: o.namespace,
      WAITGATE_RECEIVER_HOST: '127.0.0.1',
      WAITGATE_RECEIVER_PORT: '0',
      WAITGATE_RECEIVER_METRICS_HOST: '127.0.0.1',
      WAITGATE_RECEIVER_METRICS_PORT: '0',
      WAITGATE_GITHUB_WEBHOOK_SECRET: o.secrets.githubSecret,
      WAITGATE_GITLAB_WEBHOOK_TOKEN: o.secrets.gitlabToken,
      // info, as the chart runs it (and the start is read from its "Listening" line).
      WAITGATE_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  const log = createWriteStream(o.logPath);
  child.stderr.pipe(log);
  // A receiver that does not come up is not left running.
  const fail = (err: Error): never => {
    child.kill('SIGKILL');
    throw err;
  };
  const listening = await new Promise<{ port: number; metricsPort: number }>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      log.write(`${line}\n`);
      if (line.includes('"msg":"Listening"')) resolve(JSON.parse(line) as { port: number; metricsPort: number });
    });
    child.once('exit', () => reject(new Error(`the receiver exited; see ${o.logPath}`)));
    setTimeout(() => reject(new Error(`the receiver did not start within 60 s; see ${o.logPath}`)), 60_000).unref();
  }).catch((err: unknown) => fail(err as Error));
  const readyz = `http://127.0.0.1:${String(listening.metricsPort)}/readyz`;
  for (let i = 0; ; i++) {
    const status = await fetch(readyz).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    if (i > 300 || exited !== undefined) fail(new Error(`the receiver never became ready; see ${o.logPath}`));
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    pid: child.pid as number,
    port: listening.port,
    metricsPort: listening.metricsPort,
    logPath: o.logPath,
    exitCode: () => exited,
    stop: async () => {
      if (exited !== undefined) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await gone;
    },
  };
}
