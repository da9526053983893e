// Shared by the benchmark and the chaos run: a real cluster, real operator processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import * as k8s from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, HELDJOB_PLURAL } from '../api/vocabulary.js';
import type { HeldJobObject } from '../api/heldjob-schema.js';
import { loadKubeConfig } from '../lib/kube/client.js';

export function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run through make bench / make chaos`);
  return v;
}

/** The operator's own client set-up (kept connections, timeouts), so peers and waitgate share it. */
export function kube() {
  const kc = loadKubeConfig(env('KUBECONFIG'));
  return {
    kc,
    core: kc.makeApiClient(k8s.CoreV1Api),
    batch: kc.makeApiClient(k8s.BatchV1Api),
    custom: kc.makeApiClient(k8s.CustomObjectsApi),
  };
}

export async function listHeldJobs(custom: k8s.CustomObjectsApi, namespace: string): Promise<HeldJobObject[]> {
  const items: HeldJobObject[] = [];
  let _continue: string | undefined;
  do {
    const page = (await custom.listNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: HELDJOB_PLURAL,
      namespace,
      limit: 2000,
      ...(_continue ? { _continue } : {}),
    })) as {
      items: HeldJobObject[];
      metadata?: { continue?: string };
    };
    items.push(...page.items);
    _continue = page.metadata?.continue || undefined;
  } while (_continue);
  return items;
}

export async function listJobs(batch: k8s.BatchV1Api, namespace: string): Promise<k8s.V1Job[]> {
  const items: k8s.V1Job[] = [];
  let _continue: string | undefined;
  do {
    const page = await batch.listNamespacedJob({ namespace, limit: 2000, ...(_continue ? { _continue } : {}) });
    items.push(...page.items);
    _continue = page.metadata?._continue || undefined;
  } while (_continue);
  return items;
}

/** Runs `fn` over `items`, `width` at a time. */
export async function inParallel<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i] as T);
      }
    }),
  );
}

/** What the image sets for every process it runs (the Dockerfile's ENV lines that tune Node's memory). */
export function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync('Dockerfile', 'utf8').split('\n')) {
    const m = /^ENV (MALLOC_\w+)=(\S+)/.exec(line);
    if (m) env[m[1] as string] = m[2] as string;
  }
  return env;
}

/**
 * The operator as a process of the benchmark; `wrap` turns its command into another (a memory
 * cgroup's `sh -c ... exec`, for one).
 */
export function startOperator(
  extraEnv: Record<string, string>,
  logPath: string,
  wrap: (command: string[]) => string[] = (c) => c,
): ChildProcess {
  const [cmd, ...args] = wrap([process.execPath, 'dist/operator/main.js']) as [string, ...string[]];
  const child = spawn(cmd, args, {
    env: {
      PATH: process.env['PATH'] ?? '',
      KUBECONFIG: env('KUBECONFIG'),
      VALKEY_URL: env('VALKEY_URL'),
      WAITGATE_METRICS_PORT: '0',
      WAITGATE_METRICS_HOST: '127.0.0.1',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = createWriteStream(logPath, { flags: 'a' });
  child.stdout?.pipe(out);
  child.stderr?.pipe(out);
  return child;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A suspended Job: the benchmark measures waitgate, not the Job controller. */
export function heldJobBody(name: string, target: string, waitFor: object[] | undefined, suspend: boolean): object {
  return {
    apiVersion: `${API_GROUP}/${API_VERSION}`,
    kind: 'HeldJob',
    metadata: { name },
    spec: {
      target,
      trigger: 'bench',
      ...(waitFor ? { waitFor } : {}),
      job: { suspend, backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
    },
  };
}

/** A free loopback port, for a process started next. */
export function freePort(): Promise<number> {
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

/** mulberry32: a small seeded generator, so a run can be replayed from its printed seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Creates HeldJobs `${prefix}-${i}` for each index in `indexes`, 32 at a time, each waiting on
 * what `waitFor(i)` gives; returns the seconds it took.
 */
export async function createHeldJobs(
  custom: k8s.CustomObjectsApi,
  namespace: string,
  prefix: string,
  indexes: readonly number[],
  waitFor: (i: number) => object[],
): Promise<number> {
  const t0 = Date.now();
  await inParallel(indexes, 32, async (i) => {
    await custom.createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: HELDJOB_PLURAL,
      namespace,
      body: heldJobBody(`${prefix}-${i}`, `acme/repo-${i}#1`, waitFor(i), true),
    });
  });
  return (Date.now() - t0) / 1000;
}
