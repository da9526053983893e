// The local cluster's real node (hack/cluster/real-node.sh): a kubelet on containerd beside
// the kwok fake nodes, tainted so only Pods that ask for it land there. cluster-up writes
// <cluster dir>/real-node: `ready`, or `unavailable: <reason>` where the machine cannot run
// containers; a test that needs the node is then skipped with that reason in its name.
import { test } from '@jest/globals';
import { Log, type KubeConfig } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';

export const REAL_NODE_NAME = 'waitgate-real-node';
export const REAL_NODE_TAINT = { key: 'waitgate.dev/real-node', value: 'true', effect: 'NoSchedule' } as const;
export const REAL_NODE_LABEL = { key: 'waitgate.dev/real-node', value: 'true' } as const;
/** The busybox image imported into the real node's containerd (built offline, no registry). */
export const REAL_NODE_IMAGE = 'docker.io/library/busybox:1.36';

/**
 * Namespace annotations that send every Pod of the namespace to the real node (the apiserver's
 * PodNodeSelector and PodTolerationRestriction admission plugins add the selector and the
 * toleration): check Pods and launched Jobs alike, with no field of waitgate's involved.
 */
export const REAL_NODE_NAMESPACE_ANNOTATIONS: Readonly<Record<string, string>> = {
  'scheduler.alpha.kubernetes.io/node-selector': `${REAL_NODE_LABEL.key}=${REAL_NODE_LABEL.value}`,
  'scheduler.alpha.kubernetes.io/defaultTolerations': JSON.stringify([{ ...REAL_NODE_TAINT, operator: 'Equal' }]),
};

export type RealNodeState = { readonly ready: true } | { readonly ready: false; readonly reason: string };

/** What cluster-up recorded about the real node of the cluster the tests run against. */
export function realNodeState(env: NodeJS.ProcessEnv = process.env): RealNodeState {
  const dir = env['WAITGATE_CLUSTER_DIR'] || (env['KUBECONFIG'] ? dirname(env['KUBECONFIG']) : undefined);
  if (!dir) return { ready: false, reason: 'no cluster (KUBECONFIG is not set)' };
  let text: string;
  try {
    text = readFileSync(join(dir, 'real-node'), 'utf8').trim();
  } catch {
    return { ready: false, reason: `cluster-up wrote no ${join(dir, 'real-node')} (a cluster started before real nodes existed?)` };
  }
  if (text === 'ready') return { ready: true };
  return { ready: false, reason: text.replace(/^unavailable:\s*/, '') || 'unavailable' };
}

/**
 * A concurrent test that needs the real node; skipped, with the reason in its name, where there
 * is none. With WAITGATE_REAL_NODE_REQUIRED=1 (a CI that knows its machines can run it) a
 * missing node fails the test instead, with the same reason.
 */
export function realNodeTest(name: string, fn: () => Promise<void>, timeoutMs: number): void {
  const node = realNodeState();
  if (node.ready) test.concurrent(name, fn, timeoutMs);
  else if (process.env['WAITGATE_REAL_NODE_REQUIRED'] === '1') {
    test.concurrent(name, () => Promise.reject(new Error(`no real node: ${node.reason} (WAITGATE_REAL_NODE_REQUIRED=1)`)), timeoutMs);
  } else test.skip(`${name} [skipped: no real node: ${node.reason}]`, fn);
}

/**
 * A container's whole log, followed (`kubectl logs -f`) through the apiserver and the real
 * node's kubelet until the container ends or its Pod goes: a Pod deleted right after its
 * container exits (a check Pod) is read in full once the stream is open.
 */
export async function followPodLog(kc: KubeConfig, namespace: string, pod: string, container: string, timeoutMs: number): Promise<string> {
  let text = '';
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const ended = new Promise<void>((resolve) => {
    sink.on('end', resolve);
    sink.on('error', () => resolve());
    sink.on('close', resolve);
  });
  const controller = await new Log(kc).log(namespace, pod, container, sink, { follow: true });
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    await ended;
  } finally {
    clearTimeout(timer);
  }
  return text;
}
