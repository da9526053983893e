// What a launched Job is told about the work it serves: ids only, derived from the HeldJob
// alone, so the operator (which sets it on every container) and the command line agree.
// A HeldJob the receiver made carries all of it; one written by hand gets what its spec can
// tell (target, trigger, its own name, and the repository and number the target spells).
import { deliveryIdOrUndefined } from './delivery-id.js';
import { placeOfTarget } from './forges.js';
import { Annotations, Labels } from './vocabulary.js';

/** The environment variables of a launched Job's containers, in the order they are set. */
export const JobEnv = {
  target: 'WAITGATE_TARGET',
  forge: 'WAITGATE_FORGE',
  repository: 'WAITGATE_REPOSITORY',
  number: 'WAITGATE_NUMBER',
  kind: 'WAITGATE_KIND',
  trigger: 'WAITGATE_TRIGGER',
  delivery: 'WAITGATE_DELIVERY',
  heldJob: 'WAITGATE_HELDJOB',
  /** The commit the labeller saw, when the trigger pins it (run.pinRevision): spec.revision. */
  revision: 'WAITGATE_REVISION',
  /** Who said go to the hold's approval condition (status.approval.by), when it had one. */
  approvedBy: 'WAITGATE_APPROVED_BY',
  /** When the operator saw that approval (status.approval.at, RFC 3339). */
  approvedAt: 'WAITGATE_APPROVED_AT',
} as const;
export type JobEnvName = (typeof JobEnv)[keyof typeof JobEnv];
export const JOB_ENV_NAMES: readonly JobEnvName[] = Object.values(JobEnv);

export type JobContext = { readonly [K in keyof typeof JobEnv]?: string };

/** What the context is read from: the HeldJob's name, labels and annotations, and its spec. */
export interface JobContextSource {
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string>; readonly annotations?: Record<string, string> };
  readonly spec: { readonly target: string; readonly trigger: string; readonly revision?: string | undefined };
  /** The approval the hold recorded (status.approval), for a hold with an approval condition. */
  readonly approval?: { readonly by: string; readonly at: string } | undefined;
}

/**
 * The context of the HeldJob's Job. The forge and the kind are where the target is
 * (api/forges.ts): the recorded forge label and kind annotation where they agree with the
 * target, and what the target's shape settles by itself.
 */
export function jobContextOf(source: JobContextSource): JobContext {
  const { metadata, spec, approval } = source;
  const place = placeOfTarget(spec.target, {
    forge: metadata.labels?.[Labels.forge],
    kind: metadata.annotations?.[Annotations.targetKind],
  });
  // Only a delivery id in the shape a forge gives one (api/delivery-id.ts) reaches the Job.
  const delivery = deliveryIdOrUndefined(metadata.annotations?.[Annotations.delivery]);
  return {
    target: spec.target,
    ...(place?.forge ? { forge: place.forge } : {}),
    ...(place ? { repository: place.parts.repository, number: place.parts.number } : {}),
    ...(place?.kind ? { kind: place.kind } : {}),
    trigger: spec.trigger,
    ...(delivery ? { delivery } : {}),
    heldJob: metadata.name,
    ...(spec.revision ? { revision: spec.revision } : {}),
    ...(approval ? { approvedBy: approval.by, approvedAt: approval.at } : {}),
  };
}

/**
 * The context as environment variables, in JobEnv's order; what is unknown is left out. Each
 * value is escaped for the kubelet, which expands `$(NAME)` in an env value to another variable
 * of the container (and `$$` to `$`): a target or name spelling `$(SECRET)` reaches the Job as
 * those characters, never as the variable's value.
 */
export function jobContextEnv(context: JobContext): { name: JobEnvName; value: string }[] {
  return (Object.keys(JobEnv) as (keyof typeof JobEnv)[]).flatMap((k) => {
    const value = context[k];
    return value === undefined ? [] : [{ name: JobEnv[k], value: escapeExpansion(value) }];
  });
}

/** `$` doubled: the kubelet's expansion turns `$$` back into `$`, and expands nothing. */
export function escapeExpansion(value: string): string {
  return value.replaceAll('$', '$$$$');
}
