// batch/v1 Job I/O: create the HeldJob's Job, owned by it, exactly once.
import * as k8s from '@kubernetes/client-node';
import { assertNever, Labels, MANAGED_BY } from '../../api/vocabulary.js';
import { apiMessageOf, statusCodeOf } from '../../lib/kube/client.js';
import type { CreateOutcome, DryRunOutcome, JobRead } from '../decide/actions.js';
import { isNeverValid } from '../decide/launch.js';
import type { JobLauncher } from '../controller/ports.js';

export const JOB_LABEL_SELECTOR = `${Labels.managedBy}=${MANAGED_BY}`;
/** How long a watch replays the history of one Job name (the server ends it then). */
const HISTORY_WATCH_MS = 2_000;

export class KubeJobs implements JobLauncher {
  private readonly batch: k8s.BatchV1Api;
  private readonly watch: k8s.Watch;

  constructor(kc: k8s.KubeConfig) {
    this.batch = kc.makeApiClient(k8s.BatchV1Api);
    this.watch = new k8s.Watch(kc);
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

  /** A server-side dry run of the create: admission and validation run, nothing is kept. */
  async dryRun(job: k8s.V1Job): Promise<DryRunOutcome> {
    try {
      await this.batch.createNamespacedJob({ namespace: job.metadata?.namespace ?? '', body: job, dryRun: 'All' });
      return { kind: 'valid' };
    } catch (err) {
      const code = statusCodeOf(err);
      // 409: a Job of that name is there already; the launch will find out whose.
      return isNeverValid(code) ? { kind: 'invalid', code, message: apiMessageOf(err) } : { kind: 'unknown' };
    }
  }

  /**
   * Reads the Job from the apiserver itself: this HeldJob's own, or gone. With `sinceVersion`,
   * a Job that is not there is looked for in the history since then: never created, or gone.
   */
  async read(name: string, namespace: string, ownerUid: string, sinceVersion?: string): Promise<JobRead> {
    try {
      const job = await this.batch.readNamespacedJob({ name, namespace });
      return job.metadata?.ownerReferences?.some((o) => o.uid === ownerUid) ? { kind: 'present' } : { kind: 'gone' };
    } catch (err) {
      if (statusCodeOf(err) !== 404) return { kind: 'unknown', message: apiMessageOf(err) };
    }
    if (!sinceVersion) return { kind: 'gone' };
    const history = await this.createdSince(name, namespace, sinceVersion);
    switch (history) {
      case 'never':
        return { kind: 'neverCreated' };
      case 'created':
      case 'forgotten':
        // Came and went, or too long ago to tell: never created again.
        return { kind: 'gone' };
      case 'unanswered':
        return { kind: 'unknown', message: 'the history of Job events could not be read' };
      default:
        return assertNever(history);
    }
  }

  /**
   * Whether a Job of this name appeared after `sinceVersion`: the apiserver replays every change
   * since a resourceVersion to a watch that starts there, from its watch cache. 'never' only when
   * that history is there and holds nothing of it; 'forgotten' when it is too old (410 Gone).
   */
  private createdSince(name: string, namespace: string, sinceVersion: string): Promise<'created' | 'never' | 'forgotten' | 'unanswered'> {
    return new Promise((resolve) => {
      let seen = false;
      let expired = false;
      let settled = false;
      let controller: AbortController | undefined;
      const settle = (r: 'created' | 'never' | 'forgotten' | 'unanswered') => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        controller?.abort();
        resolve(r);
      };
      const timer = setTimeout(() => settle('unanswered'), HISTORY_WATCH_MS + 8_000);
      this.watch
        .watch(
          `/apis/batch/v1/namespaces/${namespace}/jobs`,
          { resourceVersion: sinceVersion, fieldSelector: `metadata.name=${name}`, timeoutSeconds: HISTORY_WATCH_MS / 1000 },
          (type: string) => {
            if (type === 'ERROR') expired = true;
            else if (type !== 'BOOKMARK') seen = true;
          },
          (err: unknown) => settle(seen ? 'created' : expired ? 'forgotten' : err ? 'unanswered' : 'never'),
        )
        .then(
          (c) => {
            controller = c;
            if (settled) c.abort();
          },
          () => settle('unanswered'),
        );
    });
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
