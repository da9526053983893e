// When a check Pod has run out of time. Pure: the times go in, a verdict on the clock comes out.
//
// Two clocks, one after the other. Scheduling the Pod and starting its container (an image
// pull on a cold node, a cluster autoscaler adding one) is bounded by the start timeout
// (WAITGATE_POD_START_TIMEOUT_MS) from the Pod's creation; only running past it is a fault.
// The check's own timeout (WAITGATE_WAIT_CHECK_TIMEOUT_MS) counts from the container's start,
// as it does for an exec check from its spawn.
import type * as k8s from '@kubernetes/client-node';
import { epochOf } from '../../api/time.js';

export type PodClock =
  /** Not started yet: look again at `until` (the start timeout) unless the Pod says more first. */
  | { readonly kind: 'starting'; readonly until: number }
  /** Started: look again at `until` (the check timeout) unless it answers first. */
  | { readonly kind: 'running'; readonly until: number }
  /** Not started within the start timeout: a fault ("could not tell"). */
  | { readonly kind: 'startTimedOut' }
  /** Started, and ran past the check timeout: a timeout ("could not tell"), as for exec. */
  | { readonly kind: 'timedOut' };

export interface PodTimes {
  /** When the operator created the Pod (its own clock). */
  readonly createdAt: number;
  /** When its container started, as first seen (containerStartOf); undefined while not started. */
  readonly startedAt: number | undefined;
  readonly now: number;
  readonly checkTimeoutMs: number;
  readonly startTimeoutMs: number;
}

export function podClock(t: PodTimes): PodClock {
  if (t.startedAt === undefined) {
    const until = t.createdAt + t.startTimeoutMs;
    return t.now >= until ? { kind: 'startTimedOut' } : { kind: 'starting', until };
  }
  const until = t.startedAt + t.checkTimeoutMs;
  return t.now >= until ? { kind: 'timedOut' } : { kind: 'running', until };
}

/**
 * When the check container started (state.running.startedAt, or terminated.startedAt), on the
 * operator's clock: the node's time, kept within [createdAt, seenAt] so a node clock that runs
 * ahead or behind can neither shorten the check below what the operator saw nor lengthen it
 * past it. `seenAt` is when the operator saw it; undefined while the container has not started.
 */
export function containerStartOf(pod: k8s.V1Pod, createdAt: number, seenAt: number): number | undefined {
  const state = pod.status?.containerStatuses?.[0]?.state;
  const started = state?.running?.startedAt ?? state?.terminated?.startedAt;
  if (started === undefined && !state?.running && !state?.terminated) return undefined;
  const at = epochOf(started) ?? seenAt;
  return Math.min(Math.max(at, createdAt), seenAt);
}

/** Why a check Pod has not started yet, in the words Kubernetes uses. */
export function notStartedReason(pod: k8s.V1Pod | undefined): string {
  const waiting = pod?.status?.containerStatuses?.[0]?.state?.waiting?.reason;
  if (waiting) return waiting;
  const scheduled = pod?.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  if (scheduled?.reason) return scheduled.reason;
  if (pod === undefined || pod.status?.phase === undefined) return 'not seen yet';
  return pod.status.phase;
}

/** The fault's detail: `check Pod did not start within 120 s: ImagePullBackOff`. */
export function startTimeoutDetail(startTimeoutMs: number, pod: k8s.V1Pod | undefined): string {
  const seconds = Math.round(startTimeoutMs / 100) / 10;
  return `check Pod did not start within ${seconds} s: ${notStartedReason(pod)}`;
}
