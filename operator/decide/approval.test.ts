import { describe, expect, test } from '@jest/globals';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { Annotations, Phase, RefusalToken } from '../../api/vocabulary.js';
import type { Action } from './actions.js';
import { decide } from './decide.js';
import { buildJob } from './job.js';
import type { Observed } from './observed.js';
import { viewOf } from './view.js';

const T0 = Date.parse('2026-09-01T08:00:00Z');
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const JOB = { template: { spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Never' } } };
const CONFIG = { afterMaxMs: 30 * DAY, intervalMs: 60_000, maxMs: DAY, maxChecks: 96, maxFaults: 5, pauseWindows: [], finishedTtlMs: 0 };

function observed(waitFor: object[], annotations: Record<string, string> = {}, status?: HeldJobStatus): Observed {
  const heldJob = {
    metadata: { name: 'web-7-deploy', namespace: 'team-a', uid: 'uid-1', generation: 1, creationTimestamp: iso(T0), annotations },
    spec: { target: 'acme/web#7', trigger: 'deploy', waitFor, job: JOB },
    ...(status ? { status } : {}),
  };
  return {
    heldJob,
    view: viewOf(heldJob),
    job: undefined,
    config: CONFIG,
    profiles: { state: 'ok', profiles: new Map([['jira', { name: 'jira', mode: 'exec', script: 'jira.sh' }]]) },
    triggers: { state: 'ok', waits: new Map([['deploy', true]]), declared: new Map() },
  };
}

/** The actions of a pass, the first hold's dry run unwrapped. */
function pass(o: Observed, now: number): readonly Action[] {
  const as = decide(o, now);
  const dry = as.find((a) => a.type === 'dryRunJob');
  return dry && dry.type === 'dryRunJob' ? dry.then : as;
}
const written = (as: readonly Action[]) => as.flatMap((a) => (a.type === 'updateStatus' ? [a] : []))[0];
const heldAt = (now: number): HeldJobStatus => ({ phase: Phase.Held, heldSince: iso(now), waitingSince: iso(now), jobName: 'j' });
const APPROVAL = [{ approval: 'release-managers' }];

describe('the approval condition', () => {
  test('unapproved: held AwaitingApproval, its waits row, woken only at the deadline, nothing run', () => {
    const as = pass(observed(APPROVAL), T0);
    const w = written(as);
    expect(w?.status.phase).toBe(Phase.Held);
    expect(w?.status.conditions?.find((c) => c.type === 'Waiting')?.reason).toBe('AwaitingApproval');
    expect(w?.status.waits).toEqual([
      { condition: 'approval release-managers', state: 'Waiting', detail: expect.stringMatching(/release-managers/) },
    ]);
    expect(as.filter((a) => a.type === 'wakeAt')).toEqual([{ type: 'wakeAt', at: T0 + 30 * DAY }]);
    expect(as.some((a) => a.type === 'runCheck' || a.type === 'acquireScope' || a.type === 'setFinalizers')).toBe(false);
  });

  test('a later pass with nothing new writes nothing', () => {
    const first = written(pass(observed(APPROVAL), T0));
    const again = pass(observed(APPROVAL, {}, first?.status), T0 + 60_000);
    expect(again.filter((a) => a.type === 'updateStatus')).toEqual([]);
  });

  test('approved: recorded with its Event in a pass of its own, then launched with who and when on the Job', () => {
    const by = { [Annotations.approvedBy]: 'alice', [Annotations.approvalReason]: 'go' };
    const first = pass(observed(APPROVAL, by, heldAt(T0)), T0 + 5000);
    const w = written(first);
    expect(w?.status.approval).toEqual({ by: 'alice', at: iso(T0 + 5000), reason: 'go' });
    expect(w?.event).toEqual({ type: 'Normal', reason: 'Approved', message: 'approved by alice: go (a member of release-managers)' });
    expect(first.some((a) => a.type === 'acquireScope')).toBe(false);
    const o = observed(APPROVAL, by, w?.status);
    const next = pass(o, T0 + 6000);
    expect(next.map((a) => a.type)).toEqual(['acquireScope']);
    const job = buildJob(o.heldJob, o.view.ok ? o.view.spec : (undefined as never), 'j');
    const env = job.spec?.template.spec?.containers[0]?.env ?? [];
    expect(env).toEqual(
      expect.arrayContaining([
        { name: 'WAITGATE_APPROVED_BY', value: 'alice' },
        { name: 'WAITGATE_APPROVED_AT', value: iso(T0 + 5000) },
      ]),
    );
  });

  test('rejected: Refused wait-refused naming the rejecter, even before the after', () => {
    const o = observed(
      [{ after: '2026-09-02T09:00:00Z' }, ...APPROVAL],
      { [Annotations.rejectedBy]: 'bob', [Annotations.rejectionReason]: 'freeze' },
      heldAt(T0),
    );
    const w = written(pass(o, T0 + 1000));
    expect(w?.status).toMatchObject({ phase: Phase.Refused, reason: RefusalToken.Refused, message: 'rejected by bob: freeze' });
    expect(w?.refusal).toBe(RefusalToken.Refused);
  });

  test('cheapest first: an unreached after is waited for before the approval, and is not armed', () => {
    const after = '2026-09-01T09:00:00Z';
    const as = pass(observed([...APPROVAL, { after }]), T0);
    const w = written(as);
    expect(w?.status.conditions?.find((c) => c.type === 'Waiting')?.message).toMatch(/waiting until/);
    expect(w?.status.conditions?.find((c) => c.type === 'Launched')).toBeUndefined();
    expect(as.filter((a) => a.type === 'wakeAt')).toEqual([{ type: 'wakeAt', at: Date.parse(after) }]);
  });

  test('approved first, then the profile checks: no check before the go', () => {
    const o = observed([{ profile: 'jira' }, ...APPROVAL], {}, heldAt(T0));
    expect(pass(o, T0 + 1000).some((a) => a.type === 'runCheck')).toBe(false);
    const approved = observed(
      [{ profile: 'jira' }, ...APPROVAL],
      { [Annotations.approvedBy]: 'a' },
      { ...heldAt(T0), approval: { by: 'a', at: iso(T0) } },
    );
    expect(pass(approved, T0 + 1000).some((a) => a.type === 'runCheck')).toBe(true);
  });

  test('no approval by the deadline: wait-expired', () => {
    const w = written(pass(observed(APPROVAL, {}, heldAt(T0)), T0 + 30 * DAY));
    expect(w?.status).toMatchObject({ phase: Phase.Refused, reason: RefusalToken.Expired });
    expect(w?.status.message).toMatch(/no member of release-managers approved/);
  });
});

test('the cancel Event names who cancelled, or says the delete did not', () => {
  const running = (annotations: Record<string, string>): Observed => {
    const o = observed([], annotations, { phase: Phase.Running, jobName: 'j' });
    const heldJob = { ...o.heldJob, metadata: { ...o.heldJob.metadata, deletionTimestamp: iso(T0), finalizers: ['waitgate.dev/cleanup'] } };
    return { ...o, heldJob, job: { name: 'j', outcome: 'Active' } };
  };
  const message = (o: Observed) => written(decide(o, T0 + 1000))?.event?.message;
  expect(message(running({ [Annotations.cancelledBy]: 'carol' }))).toMatch(/cancelled by carol/);
  expect(message(running({}))).toMatch(/the delete did not say who cancelled/);
});
