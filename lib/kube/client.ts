import * as k8s from '@kubernetes/client-node';

/** Loads a kubeconfig file when one is named, else the in-cluster service account. */
export function loadKubeConfig(path: string | undefined): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromCluster();
  return kc;
}

/** The HTTP status of a client-node error, if it carries one. */
export function statusCodeOf(err: unknown): number | undefined {
  if (err instanceof k8s.ApiException) return err.code;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}
