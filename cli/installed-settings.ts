// The settings of the operator as installed: the environment its Deployment gives its
// container, read from the cluster, so `doctor` and `check` judge what the operator runs with,
// not whatever the caller's shell happens to hold. Without an operator Deployment in the
// namespace (an operator run by hand, as `make up` does) the caller's environment stands in,
// and the commands say so.
import * as k8s from '@kubernetes/client-node';
import { runsOperator } from './doctor/exec-reach.js';
import { describeError } from './kube.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface InstalledSettings {
  /** Where the settings came from, for the first line a command prints. */
  readonly source: string;
  /** The operator's environment (values only); the caller's when no Deployment was found. */
  readonly env: Env;
  /** Variables the Deployment sets from somewhere this command could not read, by name. */
  readonly unresolved: readonly string[];
  /** The Deployment's name, when one was found. */
  readonly deployment?: string;
}

/** Reads a Secret's key; undefined when it cannot be read. */
export type SecretReader = (name: string, key: string) => Promise<string | undefined>;

/**
 * The environment a container of the Deployment gets: plain values, and Secret keys the reader
 * can read. Anything else (a ConfigMap key, a field, an unreadable Secret) is unresolved.
 */
export async function containerEnv(
  container: k8s.V1Container,
  readSecret: SecretReader,
): Promise<{ env: Record<string, string>; unresolved: string[] }> {
  const env: Record<string, string> = {};
  const unresolved: string[] = [];
  for (const e of container.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.valueFrom?.secretKeyRef) {
      const ref = e.valueFrom.secretKeyRef;
      const v = ref.name ? await readSecret(ref.name, ref.key) : undefined;
      if (v === undefined) unresolved.push(e.name);
      else env[e.name] = v;
    } else if (e.valueFrom) unresolved.push(e.name);
    else env[e.name] = '';
  }
  return { env, unresolved };
}

/** The installed operator's settings in `namespace`, else the caller's environment. */
export async function installedSettings(kc: k8s.KubeConfig, namespace: string, callerEnv: Env): Promise<InstalledSettings> {
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  let deployments: k8s.V1Deployment[];
  try {
    deployments = (await apps.listNamespacedDeployment({ namespace })).items;
  } catch (err) {
    return {
      source: `this shell's environment (cannot list Deployments in ${namespace}: ${describeError(err)})`,
      env: callerEnv,
      unresolved: [],
    };
  }
  const found = deployments.flatMap((d) => {
    const c = d.spec?.template.spec?.containers.find(runsOperator);
    return c && d.metadata?.name ? [{ name: d.metadata.name, container: c }] : [];
  });
  const first = found[0];
  if (first === undefined) {
    return { source: `this shell's environment (no operator Deployment in ${namespace})`, env: callerEnv, unresolved: [] };
  }
  const readSecret: SecretReader = async (name, key) => {
    try {
      const data = (await core.readNamespacedSecret({ namespace, name })).data?.[key];
      return data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
    } catch {
      return undefined;
    }
  };
  const { env, unresolved } = await containerEnv(first.container, readSecret);
  // What could not be read from the cluster (the Valkey URL in a Secret this user may not read)
  // comes from the caller's environment when it has it.
  const filled = Object.fromEntries(unresolved.flatMap((n) => (callerEnv[n] !== undefined ? [[n, callerEnv[n]]] : [])));
  const more = found.length > 1 ? ` (of ${found.length} operator Deployments there, the first)` : '';
  return {
    source: `Deployment ${namespace}/${first.name}${more}`,
    env: { ...env, ...filled },
    unresolved: unresolved.filter((n) => filled[n] === undefined),
    deployment: first.name,
  };
}
