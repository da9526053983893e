// batch/v1 Job I/O: create the HeldJob's Job, owned by it, exactly once.
import * as k8s from '@kubernetes/client-node';
import type { HeldJobObject, HeldJobSpec } from '../../api/heldjob-schema.js';
import { API_GROUP, API_VERSION, HELDJOB_KIND, Labels, MANAGED_BY } from '../../api/vocabulary.js';
import { JobOutcome, type ObservedJob } from '../decide/decide.js';
import { statusCodeOf } from '../../lib/kube/client.js';

export const JOB_LABEL_SELECTOR = `${Labels.managedBy}=${MANAGED_BY}`;

export function buildJob(heldJob: HeldJobObject, spec: HeldJobSpec, jobName: string): k8s.V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobName,
      namespace: heldJob.metadata.namespace,
      labels: { [Labels.managedBy]: MANAGED_BY, [Labels.heldJob]: heldJob.metadata.name },
      ownerReferences: [
        {
          apiVersion: `${API_GROUP}/${API_VERSION}`,
          kind: HELDJOB_KIND,
          name: heldJob.metadata.name,
          uid: heldJob.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: spec.job,
  };
}

/** What a Job's status says about how it ended. */
export function observeJob(job: k8s.V1Job): ObservedJob {
  const name = job.metadata?.name ?? '';
  const conds = job.status?.conditions ?? [];
  const failed = conds.find((c) => c.type === 'Failed' && c.status === 'True');
  if (failed) return { name, outcome: JobOutcome.Failed, ...(failed.reason ? { failureReason: failed.reason } : {}) };
  if (conds.some((c) => c.type === 'Complete' && c.status === 'True')) return { name, outcome: JobOutcome.Succeeded };
  return { name, outcome: JobOutcome.Active };
}

export class JobOwnedByAnotherError extends Error {
  constructor(jobName: string) {
    super(`Job ${jobName} exists and is not owned by this HeldJob`);
    this.name = 'JobOwnedByAnotherError';
  }
}

export class KubeJobs {
  private readonly batch: k8s.BatchV1Api;

  constructor(kc: k8s.KubeConfig) {
    this.batch = kc.makeApiClient(k8s.BatchV1Api);
  }

  list(namespace: string): Promise<k8s.V1JobList> {
    return namespace
      ? this.batch.listNamespacedJob({ namespace, labelSelector: JOB_LABEL_SELECTOR })
      : this.batch.listJobForAllNamespaces({ labelSelector: JOB_LABEL_SELECTOR });
  }

  /** Deletes the Job and, in the background, its Pods; a Job already gone is fine. */
  async delete(name: string, namespace: string): Promise<void> {
    try {
      await this.batch.deleteNamespacedJob({ name, namespace, propagationPolicy: 'Background' });
    } catch (err) {
      if (statusCodeOf(err) !== 404) throw err;
    }
  }

  /** Creates the Job; returns 'existed' when a Job of that name is already this HeldJob's. */
  async create(job: k8s.V1Job, ownerUid: string): Promise<'created' | 'existed'> {
    const namespace = job.metadata?.namespace as string;
    try {
      await this.batch.createNamespacedJob({ namespace, body: job });
      return 'created';
    } catch (err) {
      if (statusCodeOf(err) !== 409) throw err;
      const existing = await this.batch.readNamespacedJob({ name: job.metadata?.name as string, namespace });
      if (existing.metadata?.ownerReferences?.some((o) => o.uid === ownerUid)) return 'existed';
      throw new JobOwnedByAnotherError(job.metadata?.name as string);
    }
  }
}
