// Kubernetes-style conditions on a HeldJob's status, in the manner of Kueue's helpers: set
// one, learn whether anything changed, and write the status once.
import type { KubeCondition } from './heldjob-schema.js';
import { iso } from './time.js';

export type ConditionInput = Omit<KubeCondition, 'lastTransitionTime'>;

export function findCondition(conditions: readonly KubeCondition[] | undefined, type: string): KubeCondition | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * Sets one condition, keeping lastTransitionTime while its status stays the same. Returns
 * the new list, never the same array.
 */
export function setCondition(conditions: readonly KubeCondition[] | undefined, next: ConditionInput, now: number): KubeCondition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const prev = i >= 0 ? list[i] : undefined;
  const lastTransitionTime = prev && prev.status === next.status && prev.lastTransitionTime ? prev.lastTransitionTime : iso(now);
  const merged: KubeCondition = { ...next, lastTransitionTime };
  if (i >= 0) list[i] = merged;
  else list.push(merged);
  return list;
}

/** Whether setting `next` would change anything but the clock (status, reason or message). */
export function conditionChanged(conditions: readonly KubeCondition[] | undefined, next: ConditionInput): boolean {
  const prev = findCondition(conditions, next.type);
  return !prev || prev.status !== next.status || prev.reason !== next.reason || prev.message !== next.message;
}
