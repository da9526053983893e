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

/** The apiserver's own message for an API error (its Status body), else the error's first line. */
export function apiMessageOf(err: unknown): string {
  if (err instanceof k8s.ApiException) {
    const body: unknown = err.body;
    try {
      const parsed: unknown = typeof body === 'string' ? JSON.parse(body) : body;
      const m = (parsed as { message?: unknown } | null)?.message;
      if (typeof m === 'string' && m !== '') return m;
    } catch {
      // not JSON
    }
    return `HTTP ${err.code}`;
  }
  if (err instanceof Error) return err.message.split('\n')[0] ?? err.name;
  return String(err);
}
