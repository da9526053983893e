// Takes a section's costs: the apiserver's request counters, each process's CPU and the
// machine's, read when the meter starts and again when it stops.
import { cpus } from 'node:os';
import { env } from '../common.js';
import { perUnit, readApiserverRequests, requestsBetween, type RequestCounts } from './apiserver-requests.js';
import type { Costs } from './costs.js';
import { clusterPids, cpuSeconds, machineBusySeconds, type ClusterProcess, type CpuSeconds } from './process-cpu.js';

export interface MeterOptions {
  /** The section's own processes by name (operator, receiver). The benchmark itself is always counted, as "bench". */
  readonly processes?: Readonly<Record<string, number>>;
  /** The local cluster's processes counted too. */
  readonly cluster?: readonly ClusterProcess[];
  /** Read the apiserver's counters (off where no apiserver is involved: the slot leases). */
  readonly apiserver?: boolean;
}

export interface CostMeter {
  /** Counts a process started after the meter (all its CPU falls in the window). */
  add(name: string, pid: number): void;
  /** Reads again and divides by `units` of work, each a `per` ("launch"). */
  stop(units: number, per: string): Promise<Costs>;
}

export const CONTROL_PLANE: readonly ClusterProcess[] = ['apiserver', 'etcd', 'controller-manager'];

function readCpu(pids: Readonly<Record<string, number>>): Record<string, CpuSeconds> {
  return Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
}

export async function startCostMeter(o: MeterOptions = {}): Promise<CostMeter> {
  const apiserver = o.apiserver ?? true;
  const pids: Record<string, number> = { ...(o.processes ?? {}), bench: process.pid, ...clusterPids(o.cluster ?? CONTROL_PLANE) };
  const kubeconfig = apiserver ? env('KUBECONFIG') : '';
  const requestsBefore: RequestCounts | undefined = apiserver ? await readApiserverRequests(kubeconfig) : undefined;
  const cpuBefore = readCpu(pids);
  const machineBefore = machineBusySeconds();
  const t0 = Date.now();
  return {
    add(name, pid) {
      pids[name] = pid;
      cpuBefore[name] = { self: 0, children: 0 };
    },
    async stop(units, per) {
      // CPU first: the apiserver's /metrics read costs it (and kubectl) some.
      const cpuAfter = readCpu(pids);
      const machineAfter = machineBusySeconds();
      const windowS = (Date.now() - t0) / 1000;
      const requestsAfter = requestsBefore ? await readApiserverRequests(kubeconfig) : undefined;
      const cpuS: Record<string, number> = {};
      const childrenCpuS: Record<string, number> = {};
      for (const [name, after] of Object.entries(cpuAfter)) {
        const before = cpuBefore[name] as CpuSeconds;
        cpuS[name] = after.self - before.self;
        const children = after.children - before.children;
        if (children >= 0.05) childrenCpuS[name] = children;
      }
      return {
        per,
        units,
        windowS,
        ...(requestsBefore && requestsAfter ? { requests: perUnit(requestsBetween(requestsBefore, requestsAfter), units) } : {}),
        cpuS,
        ...(Object.keys(childrenCpuS).length > 0 ? { childrenCpuS } : {}),
        machine: { cores: cpus().length, busyS: machineAfter - machineBefore },
      };
    },
  };
}
