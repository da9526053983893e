// What the benchmark reads from the world: a process's memory and CPU from /proc, when a
// watcher first sees each Job, and each HeldJob's phase and when it first said Launched=True.
// (The apiserver's request counters: apiserver-requests.ts; CPU by process: process-cpu.ts.)
import { readFileSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { API_GROUP, API_VERSION, ConditionType, HELDJOB_PLURAL } from '../../api/vocabulary.js';
import { cpuSeconds } from './process-cpu.js';

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
  return { rssMiB: kib('VmRSS') / 1024, peakRssMiB: kib('VmHWM') / 1024, cpuS: cpuSeconds(pid).self };
}

/**
 * Watches Jobs in a namespace and remembers when each was first seen (epoch ms). An informer,
 * so a watch the server or the client's inactivity timeout closes is resumed, not lost.
 */
export class JobSightings {
  readonly seen = new Map<string, number>();
  private readonly informer: k8s.Informer<k8s.V1Job>;

  constructor(kc: k8s.KubeConfig, namespace: string) {
    const batch = kc.makeApiClient(k8s.BatchV1Api);
    this.informer = k8s.makeInformer(kc, `/apis/batch/v1/namespaces/${namespace}/jobs`, () => batch.listNamespacedJob({ namespace }));
    this.informer.on('add', (job) => {
      // Keyed by what made it: the HeldJob (its label), else its owner (a CronJob), else its name.
      const owner = job.metadata?.labels?.['waitgate.dev/heldjob'] ?? job.metadata?.ownerReferences?.[0]?.name ?? job.metadata?.name ?? '';
      if (!this.seen.has(owner)) this.seen.set(owner, Date.now());
    });
  }

  start(): Promise<void> {
    return this.informer.start();
  }

  stop(): void {
    void this.informer.stop();
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
 * Keeps each HeldJob's phase in a namespace through an informer, so the benchmark can count
 * them without listing thousands of objects again and again (which would load the very
 * apiserver being measured).
 */
export class PhaseWatch {
  /** When each HeldJob (by name) was first seen saying Launched=True, epoch ms. */
  readonly launchedAt = new Map<string, number>();
  private readonly informer: k8s.Informer<HeldJobObject & k8s.KubernetesObject> & k8s.ObjectCache<HeldJobObject & k8s.KubernetesObject>;

  constructor(kc: k8s.KubeConfig, namespace: string) {
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    const base = { group: API_GROUP, version: API_VERSION, plural: HELDJOB_PLURAL, namespace };
    this.informer = k8s.makeInformer(
      kc,
      `/apis/${API_GROUP}/${API_VERSION}/namespaces/${namespace}/${HELDJOB_PLURAL}`,
      () => custom.listNamespacedCustomObject(base) as Promise<k8s.KubernetesListObject<HeldJobObject & k8s.KubernetesObject>>,
    );
    const noteLaunched = (h: HeldJobObject) => {
      const name = h.metadata.name;
      if (this.launchedAt.has(name)) return;
      if (h.status?.conditions?.some((c) => c.type === ConditionType.Launched && c.status === 'True'))
        this.launchedAt.set(name, Date.now());
    };
    this.informer.on('add', noteLaunched);
    this.informer.on('update', noteLaunched);
  }

  start(): Promise<void> {
    return this.informer.start();
  }

  count(phase: string): number {
    return this.informer.list().filter((h) => h.status?.phase === phase).length;
  }

  list(): readonly HeldJobObject[] {
    return this.informer.list();
  }

  stop(): void {
    void this.informer.stop();
  }
}

/**
 * Deletes a namespace and waits until it is gone, so the apiserver is not still deleting
 * thousands of objects while the next section measures.
 */
export async function deleteNamespaceAndWait(kc: k8s.KubeConfig, name: string, timeoutMs = 900_000): Promise<void> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await core.deleteNamespace({ name }).catch(() => undefined);
  await until(
    () =>
      core.readNamespace({ name }).then(
        () => false,
        () => true,
      ),
    Date.now() + timeoutMs,
    2000,
  );
}

/**
 * A Prometheus histogram read from a process's /metrics, as the share of observations at or
 * under each bucket bound: "≤ 0.01 s 91 %, ≤ 0.05 s 99 %, ...".
 */
export async function histogramShares(metricsPort: number, name: string): Promise<string> {
  const text = await fetch(`http://127.0.0.1:${String(metricsPort)}/metrics`).then(
    (r) => r.text(),
    () => '',
  );
  const buckets: [string, number][] = [];
  let count = 0;
  for (const line of text.split('\n')) {
    const b = new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\d+)`).exec(line);
    if (b) buckets.push([b[1] as string, Number(b[2])]);
    const c = new RegExp(`^${name}_count (\\d+)`).exec(line);
    if (c) count = Number(c[1]);
  }
  if (count === 0) return 'no observations';
  return buckets
    .filter(([le]) => le !== '+Inf')
    .map(([le, n]) => `≤ ${le} s ${((n / count) * 100).toFixed(0)} %`)
    .join(', ');
}
