// The batch/v1 Job a HeldJob launches, and what a Job's status says. Pure.
import type * as k8s from '@kubernetes/client-node';
import type { HeldJobObject, HeldJobSpec } from '../../api/heldjob-schema.js';
import { approvalGroupOf } from '../../api/approval.js';
import { jobContextEnv, jobContextOf, type JobEnvName } from '../../api/job-context.js';
import { labelValue } from '../../api/label-value.js';
import { API_GROUP, API_VERSION, HELDJOB_KIND, JOB_LAUNCH_FINALIZER, Labels, MANAGED_BY } from '../../api/vocabulary.js';
import { shortHash } from '../../lib/hash.js';
import { JobOutcome, type ObservedJob } from './observed.js';

/**
 * The Job, owned by its HeldJob (so a cancel deletes it), under the name derived from the
 * HeldJob, fenced by the launch finalizer until its creation is recorded. Every container
 * is told its context (api/job-context.ts) and the Job and its Pods carry the HeldJob's name
 * and the target's hash as labels.
 */
export function buildJob(heldJob: HeldJobObject, spec: HeldJobSpec, jobName: string): k8s.V1Job {
  const ids = { [Labels.heldJob]: labelValue(heldJob.metadata.name), [Labels.targetHash]: shortHash(spec.target) };
  // Who approved, recorded by an earlier pass (operator/decide/approval.ts), for a hold that waited for it.
  const approval = approvalGroupOf(spec.waitFor ?? []) !== undefined ? heldJob.status?.approval : undefined;
  const env = jobContextEnv(jobContextOf({ metadata: heldJob.metadata, spec, approval }));
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobName,
      namespace: heldJob.metadata.namespace,
      labels: { [Labels.managedBy]: MANAGED_BY, ...ids },
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
    spec: withContext(spec.job, ids, env),
  };
}

type Env = readonly { name: JobEnvName; value: string }[];
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JobSpec with the labels on its Pod template and the context on each container; the input is not changed. */
function withContext(job: HeldJobSpec['job'], labels: Record<string, string>, env: Env): k8s.V1JobSpec {
  const template = job.template;
  const metadata = isObj(template.metadata) ? template.metadata : {};
  const podSpec = template.spec;
  return {
    ...job,
    template: {
      ...template,
      metadata: { ...metadata, labels: { ...(isObj(metadata.labels) ? metadata.labels : {}), ...labels } },
      ...(isObj(podSpec)
        ? {
            spec: {
              ...podSpec,
              ...containersWithEnv(podSpec, 'containers', env),
              ...containersWithEnv(podSpec, 'initContainers', env),
            },
          }
        : {}),
    },
  } as k8s.V1JobSpec;
}

/**
 * Each container of the list with the context put before its own env, so its own entries can
 * refer to them as $(WAITGATE_TARGET). A name the template sets itself is its own: the
 * template wins, and that variable is not added.
 */
function containersWithEnv(podSpec: Obj, key: 'containers' | 'initContainers', env: Env): Obj {
  const list = podSpec[key];
  if (!Array.isArray(list)) return {};
  return {
    [key]: list.map((c: unknown) => {
      if (!isObj(c)) return c;
      const own: unknown[] = Array.isArray(c.env) ? c.env : [];
      const named = new Set(own.flatMap((e) => (isObj(e) && typeof e.name === 'string' ? [e.name] : [])));
      return { ...c, env: [...env.filter((e) => !named.has(e.name)), ...own] };
    }),
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

/**
 * Whether the launch fence should come off a Job whose HeldJob is gone: it is being deleted
 * (the garbage collector found its owner gone, or someone deleted it) and still fenced, and
 * its owner is not the HeldJob of that name the operator sees (none, or another uid). Nobody
 * is left to record its creation, so the fence would keep it for ever.
 */
export function isOrphanedFence(job: k8s.V1Job, ownerUidSeen: string | undefined): boolean {
  const fenced = job.metadata?.finalizers?.includes(JOB_LAUNCH_FINALIZER) ?? false;
  if (!fenced || !job.metadata?.deletionTimestamp) return false;
  const owner = job.metadata.ownerReferences?.find((o) => o.kind === HELDJOB_KIND && o.controller);
  return owner !== undefined && owner.uid !== ownerUidSeen;
}

/**
 * What a server-side dry run of a HeldJob's Job answers for: its namespace and the job as the
 * HeldJob writes it. Everything else in the Job (its name, owner, labels and context values) is
 * derived, and well formed by construction, so two holds with the same job in one namespace
 * pass or fail the dry run together.
 */
export function dryRunKey(namespace: string | undefined, job: HeldJobSpec['job']): string {
  return `${namespace ?? ''}/${shortHash(JSON.stringify(job), 32)}`;
}
