// The cluster as the command line reaches it: any kubeconfig (--kubeconfig, else KUBECONFIG,
// else ~/.kube/config, else the in-cluster service account), and errors in plain words.
import * as k8s from '@kubernetes/client-node';
import { delimiter } from 'node:path';
import type { HeldJobObject } from '../api/heldjob-schema.js';
import { API_GROUP, API_VERSION, HELDJOB_KIND, HELDJOB_PLURAL } from '../api/vocabulary.js';
import type { HeldJobEvent } from './describe-text.js';
import type { CliIo } from './io.js';
import { statusCodeOf } from '../lib/kube/client.js';

export interface Cluster {
  readonly kc: k8s.KubeConfig;
  /** The namespace of the kubeconfig's current context, or `default`. */
  readonly contextNamespace: string;
  /** The apiserver's address, for messages. */
  readonly server: string;
}

/** Loads the kubeconfig the way kubectl picks one, and the context asked for. Throws with a readable message. */
export function loadCluster(io: CliIo, flagPath: string | undefined, contextName?: string): Cluster {
  const kc = new k8s.KubeConfig();
  const envPaths = (io.env['KUBECONFIG'] ?? '').split(delimiter).filter((p) => p !== '');
  try {
    if (flagPath !== undefined) {
      kc.loadFromFile(flagPath);
    } else if (envPaths.length > 0) {
      kc.loadFromFile(envPaths[0] as string);
      for (const more of envPaths.slice(1)) {
        const other = new k8s.KubeConfig();
        other.loadFromFile(more);
        kc.mergeConfig(other, true);
      }
    } else {
      kc.loadFromDefault();
    }
  } catch (err) {
    throw new Error(`cannot load the kubeconfig${flagPath ? ` ${flagPath}` : ''}: ${describeError(err)}`, { cause: err });
  }
  if (contextName !== undefined) {
    if (!kc.getContextObject(contextName)) {
      const known = kc.getContexts().map((c) => c.name);
      throw new Error(`no context ${JSON.stringify(contextName)} in the kubeconfig (it has: ${known.join(', ') || 'none'})`);
    }
    kc.setCurrentContext(contextName);
  }
  const context = kc.getContextObject(kc.getCurrentContext());
  return {
    kc,
    contextNamespace: context?.namespace || 'default',
    server: kc.getCurrentCluster()?.server ?? '(no cluster)',
  };
}

/** One line: the apiserver's own message for an API error, the cause for a network error. */
export function describeError(err: unknown): string {
  if (err instanceof k8s.ApiException) {
    const body: unknown = err.body;
    let message: string | undefined;
    try {
      const parsed: unknown = typeof body === 'string' ? JSON.parse(body) : body;
      const m = (parsed as { message?: unknown } | null)?.message;
      if (typeof m === 'string' && m !== '') message = m;
    } catch {
      // not JSON
    }
    return `HTTP ${err.code}${message ? `: ${message}` : ''}`;
  }
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    const causeText = cause instanceof Error && !err.message.includes(cause.message) ? ` (${cause.message})` : '';
    return `${err.message.split('\n')[0]}${causeText}`;
  }
  return String(err);
}

const heldJobApi = { group: API_GROUP, version: API_VERSION, plural: HELDJOB_PLURAL };

/** A HeldJob as a watch hands it over. */
export type WatchedHeldJob = HeldJobObject & k8s.KubernetesObject;

/** The HeldJobs of one namespace (every namespace when undefined), as one list with its resourceVersion. */
export async function listHeldJobPage(
  kc: k8s.KubeConfig,
  namespace: string | undefined,
): Promise<k8s.KubernetesListObject<WatchedHeldJob>> {
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const list = (
    namespace === undefined
      ? await custom.listClusterCustomObject(heldJobApi)
      : await custom.listNamespacedCustomObject({ ...heldJobApi, namespace })
  ) as k8s.KubernetesListObject<WatchedHeldJob>;
  return { ...list, items: list.items ?? [] };
}

/** The watch path of the HeldJobs of one namespace, or of every namespace. */
export function heldJobWatchPath(namespace: string | undefined): string {
  return namespace === undefined
    ? `/apis/${API_GROUP}/${API_VERSION}/${HELDJOB_PLURAL}`
    : `/apis/${API_GROUP}/${API_VERSION}/namespaces/${namespace}/${HELDJOB_PLURAL}`;
}

export async function listHeldJobs(kc: k8s.KubeConfig, namespace: string | undefined): Promise<HeldJobObject[]> {
  return (await listHeldJobPage(kc, namespace)).items;
}

/** The HeldJob, or undefined when there is none of that name. */
export async function getHeldJob(kc: k8s.KubeConfig, namespace: string, name: string): Promise<HeldJobObject | undefined> {
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  try {
    return (await custom.getNamespacedCustomObject({ ...heldJobApi, namespace, name })) as HeldJobObject;
  } catch (err) {
    if (statusCodeOf(err) === 404) return undefined;
    throw err;
  }
}

/** The ConfigMap's data ({} when it has none), or undefined when there is no such ConfigMap. */
export async function readConfigMap(kc: k8s.KubeConfig, namespace: string, name: string): Promise<Record<string, string> | undefined> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  try {
    const cm = await core.readNamespacedConfigMap({ namespace, name });
    return cm.data ?? {};
  } catch (err) {
    if (statusCodeOf(err) === 404) return undefined;
    throw err;
  }
}

/** The last Events about one HeldJob (core/v1, by involvedObject and its uid), the newest last. */
export async function listHeldJobEvents(kc: k8s.KubeConfig, hj: HeldJobObject, max: number): Promise<HeldJobEvent[]> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const { namespace, name, uid } = hj.metadata;
  const list = await core.listNamespacedEvent({
    namespace,
    fieldSelector: `involvedObject.kind=${HELDJOB_KIND},involvedObject.name=${name}`,
  });
  const at = (e: k8s.CoreV1Event): string | undefined => {
    const t = e.lastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp;
    return t === undefined ? undefined : new Date(t).toISOString();
  };
  return list.items
    .filter((e) => e.involvedObject.uid === undefined || e.involvedObject.uid === uid)
    .map((e) => ({ type: e.type ?? 'Normal', reason: e.reason ?? '', message: e.message ?? '', at: at(e), count: e.count ?? 1 }))
    .sort((a, b) => (a.at ?? '').localeCompare(b.at ?? ''))
    .slice(-max);
}
