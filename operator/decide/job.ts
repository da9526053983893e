// The batch/v1 Job a HeldJob launches, and what a Job's status says. Pure.
import type * as k8s from '@kubernetes/client-node';
import type { HeldJobObject, HeldJobSpec } from '../../api/heldjob-schema.js';
import { API_GROUP, API_VERSION, HELDJOB_KIND, JOB_LAUNCH_FINALIZER, Labels, MANAGED_BY } from '../../api/vocabulary.js';
import { labelValue } from '../../api/label-value.js';
import { JobOutcome, type ObservedJob } from './observed.js';

/**
 * The Job, owned by its HeldJob (so a cancel deletes it), under the name derived from the
 * HeldJob, fenced by the launch finalizer until its creation is recorded.
 */
export function buildJob(heldJob: HeldJobObject, spec: HeldJobSpec, jobName: string): k8s.V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobName,
      namespace: heldJob.metadata.namespace,
      labels: { [Labels.managedBy]: MANAGED_BY, [Labels.heldJob]: labelValue(heldJob.metadata.name) },
      finalizers: [JOB_LAUNCH_FINALIZER],
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

/** The HeldJob's own Job as the decisions see it; a Job of that name owned by another is not it. */
export function observeJob(job: k8s.V1Job | undefined, ownerUid: string): ObservedJob | undefined {
  if (!job?.metadata?.ownerReferences?.some((o) => o.uid === ownerUid)) return undefined;
  const name = job.metadata.name ?? '';
  const fence = job.metadata.finalizers?.includes(JOB_LAUNCH_FINALIZER) ? { fenced: true } : {};
  const conds = job.status?.conditions ?? [];
  const failed = conds.find((c) => c.type === 'Failed' && c.status === 'True');
  if (failed) return { name, outcome: JobOutcome.Failed, ...(failed.reason ? { failureReason: failed.reason } : {}), ...fence };
  if (conds.some((c) => c.type === 'Complete' && c.status === 'True')) return { name, outcome: JobOutcome.Succeeded, ...fence };
  return { name, outcome: JobOutcome.Active, ...fence };
}

/** The name of the HeldJob that controls this Job, from its owner reference. */
export function heldJobOwnerOf(job: k8s.V1Job): string | undefined {
  return job.metadata?.ownerReferences?.find((o) => o.kind === HELDJOB_KIND && o.apiVersion.startsWith(`${API_GROUP}/`) && o.controller)
    ?.name;
}
