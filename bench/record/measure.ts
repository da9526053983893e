// What the benchmark reads from the world: a process's memory and CPU from /proc, the
// apiserver's own request counters from its /metrics, and when a watcher first sees each Job.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';

const run = promisify(execFile);

export interface ProcessSample {
  readonly rssMiB: number;
  /** The highest RSS the process has had (VmHWM). */
  readonly peakRssMiB: number;
  /** User plus system CPU seconds used so far. */
  readonly cpuS: number;
}

export function sampleProcess(pid: number): ProcessSample {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  // /proc/PID/stat: fields 14 and 15 are utime and stime in clock ticks (100 a second on Linux).
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { rssMiB: kib('VmRSS') / 1024, peakRssMiB: kib('VmHWM') / 1024, cpuS: ticks / 100 };
}

/** Requests the apiserver has served, by resource, from its own /metrics (not the client's). */
export async function apiserverRequests(
  kubeconfig: string,
  resources: readonly string[],
  verbs: 'requests' | 'watches' = 'requests',
): Promise<number> {
  const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, 'get', '--raw', '/metrics'], { maxBuffer: 256 * 2 ** 20 });
  let total = 0;
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const resource = /[{,]resource="([^"]*)"/.exec(line)?.[1] ?? '';
    if (!resources.includes(resource)) continue;
    // A WATCH is counted when it starts; the informers renew theirs every few minutes, a
    // cost per informer, not per hold, so they are counted apart.
    const watch = /[{,]verb="WATCH"/.test(line);
    if (watch !== (verbs === 'watches')) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

/** Watches Jobs in a namespace and remembers when each was first seen (epoch ms). */
export class JobSightings {
  readonly seen = new Map<string, number>();
  private req: { abort(): void } | undefined;

  constructor(
    private readonly kc: k8s.KubeConfig,
    private readonly namespace: string,
  ) {}

  async start(): Promise<void> {
    const watch = new k8s.Watch(this.kc);
    this.req = await watch.watch(
      `/apis/batch/v1/namespaces/${this.namespace}/jobs`,
      {},
      (phase: string, job: k8s.V1Job) => {
        // Keyed by what made it: the HeldJob (its label), else its owner (a CronJob), else its name.
        const owner =
          job.metadata?.labels?.['waitgate.dev/heldjob'] ?? job.metadata?.ownerReferences?.[0]?.name ?? job.metadata?.name ?? '';
        if (phase === 'ADDED' && !this.seen.has(owner)) this.seen.set(owner, Date.now());
      },
      () => undefined,
    );
  }

  stop(): void {
    this.req?.abort();
  }
}

/** Polls `probe` every `everyMs` until it returns true or `deadline` (epoch ms) passes. */
export async function until(probe: () => Promise<boolean> | boolean, deadline: number, everyMs = 1000): Promise<boolean> {
  for (;;) {
    if (await probe()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Watches HeldJobs in a namespace and keeps each one's phase, so the benchmark can count
 * them without listing thousands of objects again and again (which would load the very
 * apiserver being measured).
 */
export class PhaseWatch {
  private readonly phases = new Map<string, string>();
  private req: { abort(): void } | undefined;

  constructor(
    private readonly kc: k8s.KubeConfig,
    private readonly path: string,
  ) {}

  async start(): Promise<void> {
    const watch = new k8s.Watch(this.kc);
    this.req = await watch.watch(
      this.path,
      {},
      (phase: string, obj: { metadata?: { name?: string }; status?: { phase?: string } }) => {
        const name = obj.metadata?.name ?? '';
        if (phase === 'DELETED') this.phases.delete(name);
        else this.phases.set(name, obj.status?.phase ?? '');
      },
      () => undefined,
    );
  }

  count(phase: string): number {
    let n = 0;
    for (const p of this.phases.values()) if (p === phase) n++;
    return n;
  }

  stop(): void {
    this.req?.abort();
  }
}
