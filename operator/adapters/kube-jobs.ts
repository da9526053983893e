// batch/v1 Job I/O: create the HeldJob's Job, owned by it, exactly once.
import * as k8s from '@kubernetes/client-node';
import { Labels, MANAGED_BY } from '../../api/vocabulary.js';
import { apiMessageOf, statusCodeOf } from '../../lib/kube/client.js';
import type { CreateResult, JobLauncher } from '../controller/ports.js';

export const JOB_LABEL_SELECTOR = `${Labels.managedBy}=${MANAGED_BY}`;

export class KubeJobs implements JobLauncher {
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

  /** Creates the Job. A Job of that name already there is 'existed' when it is this HeldJob's own. */
  async create(job: k8s.V1Job, ownerUid: string): Promise<CreateResult> {
    const namespace = job.metadata?.namespace ?? '';
    const name = job.metadata?.name ?? '';
    try {
      await this.batch.createNamespacedJob({ namespace, body: job });
      return { kind: 'created' };
    } catch (err) {
      if (statusCodeOf(err) !== 409) return { kind: 'createFailed', code: statusCodeOf(err), message: apiMessageOf(err) };
    }
    try {
      const existing = await this.batch.readNamespacedJob({ name, namespace });
      return existing.metadata?.ownerReferences?.some((o) => o.uid === ownerUid) ? { kind: 'existed' } : { kind: 'nameTaken' };
    } catch (err) {
      return { kind: 'createFailed', code: statusCodeOf(err), message: apiMessageOf(err) };
    }
  }
}
