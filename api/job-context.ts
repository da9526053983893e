// What a launched Job is told about the work it serves: ids only, derived from the HeldJob
// alone, so the operator (which sets it on every container) and the command line agree.
// A HeldJob the receiver made carries all of it; one written by hand gets what its spec can
// tell (target, trigger, its own name, and the repository and number the target spells).
import { targetParts } from './target.js';
import { Annotations, Forge, FORGES, Labels, TargetKind, TARGET_KINDS } from './vocabulary.js';

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
} as const;
export type JobEnvName = (typeof JobEnv)[keyof typeof JobEnv];
export const JOB_ENV_NAMES: readonly JobEnvName[] = Object.values(JobEnv);

export type JobContext = { readonly [K in keyof typeof JobEnv]?: string };

/** What the context is read from: the HeldJob's name, labels and annotations, and its spec. */
export interface JobContextSource {
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string>; readonly annotations?: Record<string, string> };
  readonly spec: { readonly target: string; readonly trigger: string };
}

const isForge = (v: unknown): v is Forge => (FORGES as readonly unknown[]).includes(v);
const isKind = (v: unknown): v is TargetKind => (TARGET_KINDS as readonly unknown[]).includes(v);

/** Which kinds a forge has behind each separator. */
function kindFits(forge: Forge | undefined, separator: '#' | '!', kind: TargetKind): boolean {
  if (separator === '!') return kind === TargetKind.MergeRequest && forge !== Forge.GitHub;
  switch (kind) {
    case TargetKind.Issue:
      return true;
    case TargetKind.PullRequest:
      return forge !== Forge.GitLab;
    case TargetKind.MergeRequest:
      return false;
  }
}

/**
 * The context of the HeldJob's Job. Recorded values (the forge label, the kind and delivery
 * annotations) count only where they agree with the target; what the target settles by
 * itself (`!` is a GitLab merge request, a GitLab `#` an issue) needs no record.
 */
export function jobContextOf(source: JobContextSource): JobContext {
  const { metadata, spec } = source;
  const parts = targetParts(spec.target);
  const recordedForge = metadata.labels?.[Labels.forge];
  let forge: Forge | undefined = isForge(recordedForge) ? recordedForge : undefined;
  if (parts?.separator === '!') forge = forge === Forge.GitHub ? undefined : Forge.GitLab;
  let kind: TargetKind | undefined;
  if (parts) {
    const recordedKind = metadata.annotations?.[Annotations.targetKind];
    if (isKind(recordedKind) && kindFits(forge, parts.separator, recordedKind)) kind = recordedKind;
    else if (parts.separator === '!') kind = TargetKind.MergeRequest;
    else if (forge === Forge.GitLab) kind = TargetKind.Issue;
  }
  if (kind === TargetKind.PullRequest) forge = Forge.GitHub;
  const delivery = metadata.annotations?.[Annotations.delivery];
  return {
    target: spec.target,
    ...(forge ? { forge } : {}),
    ...(parts ? { repository: parts.repository, number: parts.number } : {}),
    ...(kind ? { kind } : {}),
    trigger: spec.trigger,
    ...(delivery ? { delivery } : {}),
    heldJob: metadata.name,
  };
}

/** The context as environment variables, in JobEnv's order; what is unknown is left out. */
export function jobContextEnv(context: JobContext): { name: JobEnvName; value: string }[] {
  return (Object.keys(JobEnv) as (keyof typeof JobEnv)[]).flatMap((k) => {
    const value = context[k];
    return value === undefined ? [] : [{ name: JobEnv[k], value }];
  });
}
