// The names shell completion offers from the cluster: HeldJobs (for cancel, describe, approve,
// reject), profiles of the profiles ConfigMap (for check) and namespaces (for -n). Each lookup
// is bounded to COMPLETION_LOOKUP_MS: the request is aborted then and the answer is no
// candidates, so a slow or unreachable apiserver never holds a TAB up. Errors say nothing
// (a completer writes only candidates).
import * as k8s from '@kubernetes/client-node';
import { declaredNames, parseProfiles, PROFILES_CONFIGMAP } from '../api/profiles.js';
import { API_GROUP, API_VERSION, assertNever, HELDJOB_PLURAL } from '../api/vocabulary.js';
import { abortWith, statusCodeOf } from '../lib/kube/client.js';
import { Lookup } from './completion.js';
import type { CliIo } from './io.js';
import { loadCluster } from './kube.js';
import { operatorNamespace } from './settings.js';

/** The bound on one completion lookup, connecting included. */
export const COMPLETION_LOOKUP_MS = 2_000;

/** The names for `lookup`, starting with `partial`, sorted; [] on any error or at the bound. */
export async function lookupNames(
  lookup: Lookup,
  partial: string,
  flags: Readonly<Record<string, string>>,
  io: CliIo,
  boundMs = COMPLETION_LOOKUP_MS,
): Promise<string[]> {
  const ac = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<string[]>((resolve) => {
    timer = setTimeout(() => {
      ac.abort();
      resolve([]);
    }, boundMs);
  });
  try {
    const names = await Promise.race([ask(lookup, flags, io, ac.signal).catch(() => []), bound]);
    return names.filter((n) => n.startsWith(partial)).sort();
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
}

async function ask(lookup: Lookup, flags: Readonly<Record<string, string>>, io: CliIo, signal: AbortSignal): Promise<string[]> {
  const cluster = loadCluster(io, flags['kubeconfig'], flags['context']);
  const options = abortWith(signal);
  switch (lookup) {
    case Lookup.HeldJobs: {
      const namespace = flags['namespace'] ?? cluster.contextNamespace;
      const list = (await cluster.kc
        .makeApiClient(k8s.CustomObjectsApi)
        .listNamespacedCustomObject({ group: API_GROUP, version: API_VERSION, plural: HELDJOB_PLURAL, namespace }, options)) as {
        items?: { metadata?: { name?: string } }[];
      };
      return (list.items ?? []).flatMap((i) => (i.metadata?.name ? [i.metadata.name] : []));
    }
    case Lookup.Profiles: {
      const namespace = operatorNamespace(flags['waitgate-namespace'], io.env);
      try {
        const cm = await cluster.kc.makeApiClient(k8s.CoreV1Api).readNamespacedConfigMap({ namespace, name: PROFILES_CONFIGMAP }, options);
        const declared = declaredNames(parseProfiles(cm.data ?? {}));
        return declared.state === 'ok' ? [...declared.names] : [];
      } catch (err) {
        if (statusCodeOf(err) === 404) return [];
        throw err;
      }
    }
    case Lookup.Namespaces: {
      const list = await cluster.kc.makeApiClient(k8s.CoreV1Api).listNamespace({}, options);
      return list.items.flatMap((n) => (n.metadata?.name ? [n.metadata.name] : []));
    }
    default:
      return assertNever(lookup);
  }
}
