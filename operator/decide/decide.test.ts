import { describe, expect, test } from '@jest/globals';
import { decide, JobOutcome, type Action, type Observed, type ObservedJob } from './decide.js';
import type { HeldJobObject, HeldJobStatus } from '../api/heldjob-schema.js';
import { jobNameFor } from '../api/job-name.js';
import { Phase, RefusalToken } from '../api/vocabulary.js';

const T0 = Date.parse('2026-09-01T08:00:00Z');
const AFTER = '2026-09-01T09:00:00Z';
const AFTER_MS = Date.parse(AFTER);
const DAY = 86_400_000;

/** Builder for the HeldJob under decision. */
function heldJob(over: { spec?: Record<string, unknown>; status?: HeldJobStatus; deleted?: boolean; annotations?: Record<string, string> } = {}): HeldJobObject {
  return {
    metadata: {
      name: 'web-7-deploy',
      namespace: 'team-a',
      uid: 'uid-1',
      generation: 1,
      creationTimestamp: new Date(T0).toISOString(),
      ...(over.deleted ? { deletionTimestamp: new Date(T0).toISOString() } : {}),
      ...(over.annotations ? { annotations: over.annotations } : {}),
    },
    spec: over.spec ?? {
      target: 'acme/web#7',
      trigger: 'deploy',
      waitFor: [{ after: AFTER }],
      job: { template: { spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Never' } } },
    },
    ...(over.status ? { status: over.status } : {}),
  };
}

function observed(hj: HeldJobObject, job?: ObservedJob): Observed {
  return { heldJob: hj, job, config: { afterMaxMs: 30 * DAY } };
}

const JOB = jobNameFor({ name: 'web-7-deploy', uid: 'uid-1' });
const types = (as: readonly Action[]) => as.map((a) => a.type);
const statusOf = (as: readonly Action[]) => {
  const u = [...as].reverse().find((a) => a.type === 'updateStatus');
  return u && u.type === 'updateStatus' ? u.status : undefined;
};
const held: HeldJobStatus = {
  phase: Phase.Held,
  heldSince: new Date(T0).toISOString(),
  waitingSince: new Date(T0).toISOString(),
  nextCheckAt: AFTER,
  jobName: JOB,
};

describe('decide', () => {
  test.each<[string, HeldJobObject, ObservedJob | undefined, number, string[], Partial<HeldJobStatus> | undefined]>([
    ['new, instant ahead: hold and sleep until it', heldJob(), undefined, T0, ['updateStatus', 'wakeAt'], { phase: Phase.Held, heldSince: new Date(T0).toISOString(), waitLabel: 'after 2026-09-01T09:00Z' }],
    ['held, instant ahead, status current: only re-arm the wake', heldJob({ status: { ...held, nextCheckAt: new Date(AFTER_MS).toISOString() } }), undefined, T0 + 1000, ['wakeAt'], undefined],
    ['held, instant reached: create the Job and record Running', heldJob({ status: held }), undefined, AFTER_MS, ['createJob', 'updateStatus'], { phase: Phase.Running, jobName: JOB, waitedSeconds: 3600 }],
    ['held, instant long past (restart after the instant): launch now', heldJob({ status: held }), undefined, AFTER_MS + DAY, ['createJob', 'updateStatus'], { phase: Phase.Running }],
    ['new, no conditions: launch at once', heldJob({ spec: { target: 'acme/web#7', trigger: 'd', job: { template: {} } } }), undefined, T0, ['createJob', 'updateStatus'], { phase: Phase.Running, waitLabel: '-' }],
    ['held, Job exists (crash after create): no second create', heldJob({ status: held }), { name: JOB, outcome: JobOutcome.Active }, AFTER_MS, ['updateStatus'], { phase: Phase.Running }],
    ['held, Job exists and already over: one write to the end', heldJob({ status: held }), { name: JOB, outcome: JobOutcome.Succeeded }, AFTER_MS, ['updateStatus'], { phase: Phase.Succeeded }],
    ['running, Job active: nothing', heldJob({ status: { ...held, phase: Phase.Running } }), { name: JOB, outcome: JobOutcome.Active }, AFTER_MS, [], undefined],
    ['running, Job not seen yet: nothing', heldJob({ status: { ...held, phase: Phase.Running } }), undefined, AFTER_MS, [], undefined],
    ['running, Job succeeded: Succeeded', heldJob({ status: { ...held, phase: Phase.Running } }), { name: JOB, outcome: JobOutcome.Succeeded }, AFTER_MS, ['updateStatus'], { phase: Phase.Succeeded }],
    ['running, Job failed: Failed', heldJob({ status: { ...held, phase: Phase.Running } }), { name: JOB, outcome: JobOutcome.Failed, failureReason: 'BackoffLimitExceeded' }, AFTER_MS, ['updateStatus'], { phase: Phase.Failed, message: `Job ${JOB} failed (BackoffLimitExceeded)` }],
    ['terminal: nothing, ever', heldJob({ status: { phase: Phase.Succeeded } }), undefined, AFTER_MS, [], undefined],
    ['refused: nothing, ever', heldJob({ status: { phase: Phase.Refused, reason: RefusalToken.Expired } }), undefined, AFTER_MS, [], undefined],
    ['being deleted: nothing', heldJob({ deleted: true }), undefined, AFTER_MS, [], undefined],
    ['after beyond 30 days of the delivery: refused', heldJob({ spec: { target: 'acme/web#7', trigger: 'd', waitFor: [{ after: new Date(T0 + 31 * DAY).toISOString() }], job: { template: {} } } }), undefined, T0, ['updateStatus'], { phase: Phase.Refused, reason: RefusalToken.AfterBeyondMax }],
    ['after exactly 30 days out: held', heldJob({ spec: { target: 'acme/web#7', trigger: 'd', waitFor: [{ after: new Date(T0 + 30 * DAY).toISOString() }], job: { template: {} } } }), undefined, T0, ['updateStatus', 'wakeAt'], { phase: Phase.Held }],
    ['unknown key in a condition: refused unreadable', heldJob({ spec: { target: 'acme/web#7', trigger: 'd', waitFor: [{ until: AFTER }], job: { template: {} } } }), undefined, T0, ['updateStatus'], { phase: Phase.Refused, reason: RefusalToken.Unreadable }],
    ['misspelt waitFor in spec: refused unreadable, not run', heldJob({ spec: { target: 'acme/web#7', trigger: 'd', waitfor: [{ after: AFTER }], job: { template: {} } } }), undefined, T0, ['updateStatus'], { phase: Phase.Refused, reason: RefusalToken.Unreadable }],
    ['impossible date: refused unreadable', heldJob({ spec: { target: 'acme/web#7', trigger: 'd', waitFor: [{ after: '2026-02-31T09:00:00Z' }], job: { template: {} } } }), undefined, T0, ['updateStatus'], { phase: Phase.Refused, reason: RefusalToken.Unreadable }],
    ['a receiver refusal record: refused with its token, never held', heldJob({ annotations: { 'waitgate.dev/refusal': 'wait-superseded', 'waitgate.dev/refusal-message': 'm' } }), undefined, T0, ['updateStatus'], { phase: Phase.Refused, reason: RefusalToken.Superseded, message: 'm' }],
    ['a refusal record with a token this operator does not know: unreadable', heldJob({ annotations: { 'waitgate.dev/refusal': 'wait-someday' } }), undefined, AFTER_MS, ['updateStatus'], { phase: Phase.Refused, reason: RefusalToken.Unreadable }],
    ['profile condition (not yet supported): refused unreadable, not run', heldJob({ spec: { target: 'acme/web#7', trigger: 'd', waitFor: [{ profile: 'jira' }], job: { template: {} } } }), undefined, T0, ['updateStatus'], { phase: Phase.Refused, reason: RefusalToken.Unreadable }],
  ])('%s', (_name, hj, job, now, expectedTypes, expectedStatus) => {
    const actions = decide(observed(hj, job), now);
    expect(types(actions)).toEqual(expectedTypes);
    if (expectedStatus) expect(statusOf(actions)).toMatchObject(expectedStatus);
  });

  test('the wake is at the exact instant, with no jitter', () => {
    const actions = decide(observed(heldJob()), T0);
    expect(actions.find((a) => a.type === 'wakeAt')).toEqual({ type: 'wakeAt', at: AFTER_MS });
  });

  test('a restarted operator keeps heldSince from status', () => {
    const actions = decide(observed(heldJob({ status: held })), T0 + 5000);
    expect(types(actions)).not.toContain('createJob');
    const s = statusOf(decide(observed(heldJob({ status: held })), AFTER_MS));
    expect(s?.heldSince).toBe(held.heldSince);
  });

  test('launching clears waitingSince so WAITED stops counting', () => {
    const s = statusOf(decide(observed(heldJob({ status: held })), AFTER_MS));
    expect(s?.waitingSince).toBeUndefined();
    expect(s?.nextCheckAt).toBeUndefined();
  });

  test('deciding twice from the same world gives the same plan', () => {
    const o = observed(heldJob({ status: held }));
    expect(decide(o, AFTER_MS)).toEqual(decide(o, AFTER_MS));
  });
});
