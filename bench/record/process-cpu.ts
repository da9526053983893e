// CPU time by process, from /proc: the processes of one section (the operator, the receiver,
// the benchmark itself) and the local control plane's (kube-apiserver, etcd, the
// kube-controller-manager, Valkey), whose pids hack/cluster-up.sh writes in the cluster
// folder. Parsing is pure; the readers do I/O.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface CpuTicks {
  /** utime + stime: the process's own. */
  readonly self: number;
  /** cutime + cstime: its children's that it has waited for (the check scripts it ran). */
  readonly children: number;
}

/** The CPU fields of a /proc/PID/stat line (after the command, which may hold spaces and parentheses). */
export function parseStatTicks(stat: string): CpuTicks {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 to 17 of stat(5): utime, stime, cutime, cstime; `fields` starts at field 3.
  const n = (i: number) => Number(fields[i] ?? NaN);
  return { self: n(11) + n(12), children: n(13) + n(14) };
}

let ticksPerSecond: number | undefined;
/** The kernel's clock ticks a second (USER_HZ; 100 on every Linux the benchmark has met). */
export function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    const read = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    ticksPerSecond = Number.isInteger(read) && read > 0 ? read : 100;
  }
  return ticksPerSecond;
}

export interface CpuSeconds {
  readonly self: number;
  readonly children: number;
}

/** A process's CPU seconds so far; NaN when it is gone (or was never there). */
export function cpuSeconds(pid: number): CpuSeconds {
  try {
    const t = parseStatTicks(readFileSync(`/proc/${String(pid)}/stat`, 'utf8'));
    return { self: t.self / clockTicks(), children: t.children / clockTicks() };
  } catch {
    return { self: NaN, children: NaN };
  }
}

/** The whole machine's busy CPU seconds so far (all CPUs, from /proc/stat's first line): what anyone else on it used too. */
export function parseMachineBusyTicks(procStat: string): number {
  const line = procStat.split('\n').find((l) => l.startsWith('cpu ')) ?? '';
  // user nice system idle iowait irq softirq steal ...: idle and iowait are not busy.
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return [user, nice, system, irq, softirq, steal].reduce<number>((a, b) => a + (b ?? 0), 0);
}

export function machineBusySeconds(): number {
  return parseMachineBusyTicks(readFileSync('/proc/stat', 'utf8')) / clockTicks();
}

/** The control plane's processes by the names the table uses, from the cluster folder's pid files. */
const CLUSTER_PROCESSES = {
  apiserver: 'kube-apiserver',
  etcd: 'etcd',
  'controller-manager': 'kube-controller-manager',
  // The table's name for it; its pid file is hack/cluster-up.sh's valkey (valkey-server, or redis-server 7).
  redis: 'valkey',
} as const;
export type ClusterProcess = keyof typeof CLUSTER_PROCESSES;

/** Pids of the local cluster's processes (WAITGATE_CLUSTER_DIR, set by hack/with-cluster.sh); none outside it. */
export function clusterPids(names: readonly ClusterProcess[]): Record<string, number> {
  const dir = process.env['WAITGATE_CLUSTER_DIR'];
  const pids: Record<string, number> = {};
  if (!dir) return pids;
  for (const name of names) {
    try {
      const pid = Number(readFileSync(`${dir}/pids/${CLUSTER_PROCESSES[name]}.pid`, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0) pids[name] = pid;
    } catch {
      // Not started by this cluster (redis when Valkey is elsewhere): not counted.
    }
  }
  return pids;
}
