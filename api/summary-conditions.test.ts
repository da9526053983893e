import { describe, expect, test } from '@jest/globals';
import type { HeldJobStatus, KubeCondition } from './heldjob-schema.js';
import { withSummary } from './summary-conditions.js';
import { ConditionType, FailureReason, Phase, RefusalToken } from './vocabulary.js';

const T0 = Date.parse('2026-09-01T08:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const cond = (type: string, status: KubeCondition['status'], reason: string, message?: string): KubeCondition => ({
  type,
  status,
  reason,
  ...(message ? { message } : {}),
  lastTransitionTime: iso(T0),
});
const summary = (s: HeldJobStatus) =>
  Object.fromEntries(
    (s.conditions ?? [])
      .filter((c) => ([ConditionType.Ready, ConditionType.Reconciling, ConditionType.Stalled] as string[]).includes(c.type))
      .map((c) => [c.type, `${c.status} ${c.reason}`]),
  );

describe('withSummary: Ready, and kstatus Reconciling / Stalled, from the phase', () => {
  // kstatus: Reconciling True → InProgress, Stalled True → Failed, neither → Current.
  test.each<[string, HeldJobStatus, Record<string, string>]>([
    ['no status yet: pending, in progress', {}, { Ready: 'False Pending', Reconciling: 'True Pending' }],
    [
      'paused before the first hold: the Waiting reason',
      { phase: Phase.Pending, conditions: [cond('Waiting', 'True', 'Paused', 'in a pause window')] },
      { Ready: 'False Paused', Reconciling: 'True Paused' },
    ],
    [
      'held, not yet: the Waiting reason',
      { phase: Phase.Held, conditions: [cond('Waiting', 'True', 'NotYet', 'jira: exit 3')] },
      { Ready: 'False NotYet', Reconciling: 'True NotYet' },
    ],
    ['held, no Waiting condition', { phase: Phase.Held }, { Ready: 'False Held', Reconciling: 'True Held' }],
    ['running', { phase: Phase.Running, jobName: 'j' }, { Ready: 'False JobRunning', Reconciling: 'True JobRunning' }],
    [
      'succeeded: Ready, current',
      { phase: Phase.Succeeded, message: 'Job j succeeded', conditions: [cond('Reconciling', 'True', 'JobRunning')] },
      { Ready: 'True Succeeded' },
    ],
    [
      'failed: stalled with the Finished reason',
      { phase: Phase.Failed, reason: FailureReason.JobMissing, conditions: [cond('Finished', 'True', 'JobMissing')] },
      { Ready: 'False JobMissing', Stalled: 'True JobMissing' },
    ],
    [
      'a Job that failed',
      { phase: Phase.Failed, conditions: [cond('Finished', 'True', 'Failed')] },
      { Ready: 'False Failed', Stalled: 'True Failed' },
    ],
    [
      'refused: stalled with the CamelCase refusal reason',
      { phase: Phase.Refused, reason: RefusalToken.AfterBeyondMax },
      { Ready: 'False WaitAfterBeyondMax', Stalled: 'True WaitAfterBeyondMax' },
    ],
  ])('%s', (_n, status, expected) => {
    expect(summary(withSummary(status, T0, 2))).toEqual(expected);
  });

  test('every summary condition and the status carry the generation', () => {
    const s = withSummary({ phase: Phase.Held }, T0, 4);
    expect(s.observedGeneration).toBe(4);
    for (const c of s.conditions ?? []) expect(c.observedGeneration).toBe(4);
  });

  test('idempotent: a second pass changes nothing, so an unchanged hold is not written again', () => {
    const once = withSummary({ phase: Phase.Held, conditions: [cond('Waiting', 'True', 'Held', 'until 9')] }, T0, 1);
    expect(withSummary(once, T0 + 60_000, 1)).toEqual(once);
  });

  test('the transition time moves only with the status', () => {
    const held = withSummary({ phase: Phase.Held }, T0, 1);
    const running = withSummary({ ...held, phase: Phase.Running }, T0 + 1000, 1);
    const ready = (s: HeldJobStatus) => s.conditions?.find((c) => c.type === 'Ready');
    expect(ready(running)?.lastTransitionTime).toBe(iso(T0));
    const done = withSummary({ ...running, phase: Phase.Succeeded }, T0 + 2000, 1);
    expect(ready(done)?.lastTransitionTime).toBe(iso(T0 + 2000));
  });
});
