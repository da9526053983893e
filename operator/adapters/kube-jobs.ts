// batch/v1 Job I/O: create the HeldJob's Job, owned by it, exactly once.
import * as k8s from '@kubernetes/client-node';
import { JOB_LAUNCH_FINALIZER, Labels, MANAGED_BY } from '../../api/vocabulary.js';
import { apiMessageOf, statusCodeOf } from '../../lib/kube/client.js';
import { pageParams, type ListPage } from '../../lib/kube/informer.js';
import type { CreateOutcome, DryRunOutcome, JobRead } from '../decide/actions.js';
import { isNeverValid } from '../decide/launch.js';
import type { JobLauncher } from '../controller/ports.js';
import { DryRunMemo } from './dry-run-memo.js';

export const JOB_LABEL_SELECTOR = `${Labels.managedBy}=${MANAGED_BY}`;

export class KubeJobs implements JobLauncher {
  private readonly batch: k8s.BatchV1Api;
  private readonly dryRuns: DryRunMemo;

  constructor(kc: k8s.KubeConfig, now: () => number) {
    this.batch = kc.makeApiClient(k8s.BatchV1Api);
    this.dryRuns = new DryRunMemo(now);
  }

  /** The Jobs waitgate launched, in one namespace or all; one page of them when `page` is given. */
  list(namespace: string, page?: ListPage): Promise<k8s.V1JobList> {
    return namespace
      ? this.batch.listNamespacedJob({ namespace, labelSelector: JOB_LABEL_SELECTOR, ...pageParams(page) })
      : this.batch.listJobForAllNamespaces({ labelSelector: JOB_LABEL_SELECTOR, ...pageParams(page) });
  }

  /** Deletes the Job and, in the background, its Pods; a Job already gone is fine. */
  async delete(name: string, namespace: string): Promise<void> {
    try {
      await this.batch.deleteNamespacedJob({ name, namespace, propagationPolicy: 'Background' });
    } catch (err) {
      if (statusCodeOf(err) !== 404) throw err;
    }
  }

  /**
   * A server-side dry run of the create: admission and validation run, nothing is kept. One that
   * passed answers for the same reuse key for a minute (DryRunMemo) (10,000 holds of one job ask once
   * a minute, not 10,000 times); a refusal is never reused.
   */
  async dryRun(job: k8s.V1Job, reuseKey: string): Promise<DryRunOutcome> {
    if (this.dryRuns.passedRecently(reuseKey)) return { kind: 'valid' };
    try {
      await this.batch.createNamespacedJob({ namespace: job.metadata?.namespace ?? '', body: job, dryRun: 'All' });
      this.dryRuns.remember(reuseKey);
      return { kind: 'valid' };
    } catch (err) {
      const code = statusCodeOf(err);
      // 409: a Job of that name is there already; the launch will find out whose.
      return isNeverValid(code) ? { kind: 'invalid', code, message: apiMessageOf(err) } : { kind: 'unknown' };
    }
  }

  /** Reads the Job from the apiserver itself: this HeldJob's own, or gone. */
  async read(name: string, namespace: string, ownerUid: string): Promise<JobRead> {
    try {
      const job = await this.batch.readNamespacedJob({ name, namespace });
      return job.metadata?.ownerReferences?.some((o) => o.uid === ownerUid) ? { kind: 'present' } : { kind: 'gone' };
    } catch (err) {
      return statusCodeOf(err) === 404 ? { kind: 'gone' } : { kind: 'unknown', message: apiMessageOf(err) };
    }
  }

  /** Takes the launch finalizer off (a strategic merge patch: other finalizers stay); a Job already gone is fine. */
  async unfence(name: string, namespace: string): Promise<void> {
    try {
      await this.batch.patchNamespacedJob(
        { name, namespace, body: { metadata: { [`$deleteFromPrimitiveList/finalizers`]: [JOB_LAUNCH_FINALIZER] } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
      );
    } catch (err) {
      if (statusCodeOf(err) !== 404) throw err;
    }
  }

  /** Creates the Job. A Job of that name already there is 'existed' when it is this HeldJob's own. */
  async create(job: k8s.V1Job, ownerUid: string): Promise<CreateOutcome> {
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
