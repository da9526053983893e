// Kubernetes-style conditions on a HeldJob's status, in the manner of Kueue's helpers: set
// one, learn whether anything changed, and write the status once. Every condition records the
// HeldJob's metadata.generation it was set from (observedGeneration), as the API conventions ask.
import { boundText } from './bounded-text.js';
import type { KubeCondition } from './heldjob-schema.js';
import { iso } from './time.js';

export type ConditionInput = Omit<KubeCondition, 'lastTransitionTime' | 'observedGeneration'>;

export function findCondition(conditions: readonly KubeCondition[] | undefined, type: string): KubeCondition | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * Sets one condition, keeping lastTransitionTime while its status stays the same, and stamps
 * it with `generation` (the HeldJob's metadata.generation this pass read; undefined leaves it
 * off). Its message is bounded (boundText): whatever a message says, the write that carries it
 * fits. Returns the new list, never the same array.
 */
export function setCondition(
  conditions: readonly KubeCondition[] | undefined,
  next: ConditionInput,
  now: number,
  generation: number | undefined,
): KubeCondition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const prev = i >= 0 ? list[i] : undefined;
  const lastTransitionTime = prev && prev.status === next.status && prev.lastTransitionTime ? prev.lastTransitionTime : iso(now);
  const merged: KubeCondition = {
    ...next,
    ...(next.message !== undefined ? { message: boundText(next.message) } : {}),
    lastTransitionTime,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
  if (i >= 0) list[i] = merged;
  else list.push(merged);
  return list;
}

/** Takes one condition off (an abnormal-true condition such as Stalled is absent when False). Never the same array. */
export function removeCondition(conditions: readonly KubeCondition[] | undefined, type: string): KubeCondition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}

/**
 * Whether setting `next` at `generation` would change anything but the clock: status, reason,
 * message (as setCondition would bound it), or the generation it was set from.
 */
export function conditionChanged(
  conditions: readonly KubeCondition[] | undefined,
  next: ConditionInput,
  generation: number | undefined,
): boolean {
  const prev = findCondition(conditions, next.type);
  return (
    !prev ||
    prev.status !== next.status ||
    prev.reason !== next.reason ||
    prev.message !== (next.message === undefined ? undefined : boundText(next.message)) ||
    prev.observedGeneration !== generation
  );
}
