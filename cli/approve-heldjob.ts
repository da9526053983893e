// Approving or rejecting one HeldJob, and naming who cancels one: the user learns its own name
// from the apiserver (a SelfSubjectReview), then writes the record as annotations on the
// HeldJob with a resourceVersion precondition (users patch metadata, never status). The
// admission policy waitgate-heldjob-approval holds each name to its writer and approvals to
// the group's members; the operator reads them (api/approval.ts). approvalProblem is pure.
import * as k8s from '@kubernetes/client-node';
import { APPROVAL_REASON_MAX, approvalGroupOf, readApprovalRecord } from '../api/approval.js';
import { checkSpec, type HeldJobObject } from '../api/heldjob-schema.js';
import { Annotations, API_GROUP, API_VERSION, HELDJOB_PLURAL, isTerminal } from '../api/vocabulary.js';

export type Verdict = 'approve' | 'reject';

export interface Self {
  readonly username: string;
  readonly groups: readonly string[];
}

/** Who the kubeconfig's credentials are, as the apiserver sees them (authentication.k8s.io/v1 SelfSubjectReview). */
export async function whoAmI(kc: k8s.KubeConfig): Promise<Self> {
  const api = kc.makeApiClient(k8s.AuthenticationV1Api);
  const review = await api.createSelfSubjectReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
  const info = review.status?.userInfo;
  if (!info?.username) throw new Error('the apiserver did not say who you are (SelfSubjectReview gave no user name)');
  return { username: info.username, groups: info.groups ?? [] };
}

/**
 * Why this verdict cannot be written on this HeldJob (one line), or undefined when it can.
 * A user outside the group is told here too; the admission policy is what enforces it.
 */
export function approvalProblem(hj: HeldJobObject, verdict: Verdict, self: Self, reason: string | undefined): string | undefined {
  const ref = `${hj.metadata.namespace}/${hj.metadata.name}`;
  const spec = checkSpec(hj.spec);
  const group = spec.ok ? approvalGroupOf(spec.spec.waitFor ?? []) : undefined;
  if (group === undefined) return `${ref} has no approval condition in spec.waitFor; there is nothing to ${verdict}`;
  if (hj.metadata.deletionTimestamp) return `${ref} is being cancelled; there is nothing to ${verdict}`;
  const phase = hj.status?.phase;
  if (isTerminal(phase)) return `${ref} has already finished (${phase ?? ''}); there is nothing to ${verdict}`;
  const record = readApprovalRecord(hj.metadata.annotations);
  if (record.state !== 'none') return `${ref} was already ${record.state} by ${record.by}`;
  if (phase === 'Running') return `${ref} is already running`;
  if (reason !== undefined && reason.length > APPROVAL_REASON_MAX) {
    return `--reason is ${reason.length} characters; at most ${APPROVAL_REASON_MAX} are kept`;
  }
  if (!self.groups.includes(group)) {
    return `you (${self.username}) are not a member of ${group}, the group whose member may ${verdict} ${ref}`;
  }
  return undefined;
}

/** The annotations the verdict writes. */
export function verdictAnnotations(verdict: Verdict, username: string, reason: string | undefined): Record<string, string> {
  const [by, why] =
    verdict === 'approve' ? [Annotations.approvedBy, Annotations.approvalReason] : [Annotations.rejectedBy, Annotations.rejectionReason];
  return { [by]: username, ...(reason !== undefined && reason.trim() !== '' ? { [why]: reason.trim() } : {}) };
}

/**
 * Writes annotations on exactly the HeldJob that was read: a merge patch carrying its
 * resourceVersion, so a change in between (another approver, an edit) fails it with 409.
 */
export async function annotateHeldJob(
  kc: k8s.KubeConfig,
  seen: HeldJobObject,
  annotations: Record<string, string>,
): Promise<HeldJobObject> {
  const { namespace, name, resourceVersion } = seen.metadata;
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  return (await custom.patchNamespacedCustomObject(
    {
      group: API_GROUP,
      version: API_VERSION,
      plural: HELDJOB_PLURAL,
      namespace,
      name,
      body: { metadata: { annotations, ...(resourceVersion ? { resourceVersion } : {}) } },
    },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  )) as HeldJobObject;
}
