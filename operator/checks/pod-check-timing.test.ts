import { describe, expect, test } from '@jest/globals';
import type * as k8s from '@kubernetes/client-node';
import { containerStartOf, notStartedReason, podClock, startTimeoutDetail, type PodClock, type PodTimes } from './pod-check-timing.js';

const T0 = Date.parse('2026-09-01T08:00:00Z');
const S = 1000;
const times = (over: Partial<PodTimes>): PodTimes => ({
  createdAt: T0,
  startedAt: undefined,
  now: T0,
  checkTimeoutMs: 10 * S,
  startTimeoutMs: 120 * S,
  ...over,
});

describe('podClock: the start timeout from the create, then the check timeout from the start', () => {
  test.each<[string, Partial<PodTimes>, PodClock]>([
    ['just created: waiting for the start, at most the start timeout', {}, { kind: 'starting', until: T0 + 120 * S }],
    [
      'pending longer than the check timeout (a cold image pull): still starting, no fault',
      { now: T0 + 60 * S },
      { kind: 'starting', until: T0 + 120 * S },
    ],
    ['not started at the start timeout: a fault', { now: T0 + 120 * S }, { kind: 'startTimedOut' }],
    [
      'started late: the check timeout counts from the start, not the create',
      { startedAt: T0 + 100 * S, now: T0 + 105 * S },
      { kind: 'running', until: T0 + 110 * S },
    ],
    [
      'started, past the start timeout since the create, inside the check timeout: running',
      { startedAt: T0 + 115 * S, now: T0 + 121 * S },
      { kind: 'running', until: T0 + 125 * S },
    ],
    ['started and past the check timeout: timed out', { startedAt: T0 + 100 * S, now: T0 + 110 * S }, { kind: 'timedOut' }],
    ['started at once: the check timeout as before', { startedAt: T0, now: T0 + 9 * S }, { kind: 'running', until: T0 + 10 * S }],
  ])('%s', (_n, over, expected) => {
    expect(podClock(times(over))).toEqual(expected);
  });
});

describe('containerStartOf: when the container started, on the operator clock', () => {
  const withState = (state: k8s.V1ContainerState | undefined): k8s.V1Pod => ({
    status: { phase: 'Running', containerStatuses: [{ name: 'check', image: 'x', imageID: '', ready: true, restartCount: 0, state }] },
  });
  const at = (ms: number) => new Date(ms).toISOString();
  test.each<[string, k8s.V1Pod, number, number | undefined]>([
    ['no status: not started', {}, T0 + 5 * S, undefined],
    ['waiting: not started', withState({ waiting: { reason: 'ContainerCreating' } }), T0 + 5 * S, undefined],
    ['running: its startedAt', withState({ running: { startedAt: at(T0 + 3 * S) as unknown as Date } }), T0 + 5 * S, T0 + 3 * S],
    ['running, startedAt as a Date', withState({ running: { startedAt: new Date(T0 + 3 * S) } }), T0 + 5 * S, T0 + 3 * S],
    [
      'terminated: its startedAt',
      withState({ terminated: { exitCode: 0, startedAt: at(T0 + 2 * S) as unknown as Date } }),
      T0 + 5 * S,
      T0 + 2 * S,
    ],
    ['running without startedAt: when seen', withState({ running: {} }), T0 + 5 * S, T0 + 5 * S],
    [
      'a node clock ahead: no later than seen',
      withState({ running: { startedAt: at(T0 + 60 * S) as unknown as Date } }),
      T0 + 5 * S,
      T0 + 5 * S,
    ],
    [
      'a node clock behind: no earlier than the create',
      withState({ running: { startedAt: at(T0 - 60 * S) as unknown as Date } }),
      T0 + 5 * S,
      T0,
    ],
  ])('%s', (_n, pod, seenAt, expected) => {
    expect(containerStartOf(pod, T0, seenAt)).toBe(expected);
  });
});

describe('the fault detail names why the Pod did not start', () => {
  test.each<[string, k8s.V1Pod | undefined, string]>([
    [
      'an image pull backing off',
      {
        status: {
          phase: 'Pending',
          containerStatuses: [
            { name: 'c', image: 'x', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff' } } },
          ],
        },
      },
      'ImagePullBackOff',
    ],
    [
      'not scheduled',
      { status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] } },
      'Unschedulable',
    ],
    ['pending, nothing more said', { status: { phase: 'Pending' } }, 'Pending'],
    ['never seen', undefined, 'not seen yet'],
  ])('%s', (_n, pod, reason) => {
    expect(notStartedReason(pod)).toBe(reason);
    expect(startTimeoutDetail(120_000, pod)).toBe(`check Pod did not start within 120 s: ${reason}`);
  });

  test('a part second is said as one', () => {
    expect(startTimeoutDetail(2_500, undefined)).toBe('check Pod did not start within 2.5 s: not seen yet');
  });
});
