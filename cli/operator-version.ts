// Which version of the operator runs, as the cluster records it. Pure. The replica that holds
// the leader Lease writes its version on it (annotation waitgate.dev/operator-version, with
// every renewal; operator/adapters/leader-election.ts), which names the running one; a single
// replica without leader election has no Lease, and then the operator Deployment's label
// app.kubernetes.io/version (the chart's appVersion) answers.
import type * as k8s from '@kubernetes/client-node';
import { OPERATOR_VERSION_ANNOTATION } from '../api/vocabulary.js';

export const VersionSource = { Lease: 'lease', Deployment: 'deployment', None: 'none' } as const;
export type VersionSource = (typeof VersionSource)[keyof typeof VersionSource];

export interface OperatorVersion {
  readonly version: string | null;
  readonly source: VersionSource;
  /** The Lease or Deployment it was read from. */
  readonly object: string | null;
  /** The Lease's holder (the pod), or the Deployment's ready replicas. */
  readonly detail: string | null;
}

const VERSION_LABEL = 'app.kubernetes.io/version';

export function operatorVersion(leases: readonly k8s.V1Lease[], deployments: readonly k8s.V1Deployment[]): OperatorVersion {
  const lease = leases.find((l) => l.spec?.holderIdentity && l.metadata?.annotations?.[OPERATOR_VERSION_ANNOTATION]);
  if (lease) {
    return {
      version: lease.metadata?.annotations?.[OPERATOR_VERSION_ANNOTATION] ?? null,
      source: VersionSource.Lease,
      object: `lease/${lease.metadata?.name ?? '?'}`,
      detail: `held by ${lease.spec?.holderIdentity ?? '?'}`,
    };
  }
  const deployment = deployments.find(
    (d) => d.metadata?.labels?.['app.kubernetes.io/component'] === 'operator' && d.metadata.labels[VERSION_LABEL] !== undefined,
  );
  if (deployment) {
    return {
      version: deployment.metadata?.labels?.[VERSION_LABEL] ?? null,
      source: VersionSource.Deployment,
      object: `deployment/${deployment.metadata?.name ?? '?'}`,
      detail: `${deployment.status?.readyReplicas ?? 0} ready`,
    };
  }
  return { version: null, source: VersionSource.None, object: null, detail: null };
}
