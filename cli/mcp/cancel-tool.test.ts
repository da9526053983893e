import { describe, expect, test } from '@jest/globals';
import type { HeldJobObject, HeldJobStatus } from '../../api/heldjob-schema.js';
import { cancelTool, type Ask } from './cancel-tool.js';
import type { McpPorts } from './ports.js';

const NOW = Date.parse('2026-09-01T12:00:00Z');
const hj = (uid: string, status: HeldJobStatus = { phase: 'Held', heldSince: new Date(NOW - 60_000).toISOString() }): HeldJobObject => ({
  metadata: { name: 'web-7-deploy', namespace: 'team-a', uid },
  spec: { target: 'acme/web#7', trigger: 'deploy', waitFor: [{ profile: 'jira' }], job: { template: {} } },
  status,
});

/** Ports over a sequence of reads: each get returns the next one (the last one repeats). */
function ports(reads: (HeldJobObject | undefined)[]): McpPorts & { cancelled: HeldJobObject[] } {
  const cancelled: HeldJobObject[] = [];
  let i = 0;
  let t = NOW;
  return {
    cancelled,
    list: () => Promise.resolve([]),
    get: () => Promise.resolve(reads[Math.min(i++, reads.length - 1)]),
    cancel: (seen) => {
      cancelled.push(seen);
      return Promise.resolve({
        kind: 'deleted',
        subject: { kind: 'held', phase: 'Held', target: 'acme/web#7', jobName: undefined, reason: undefined, alreadyDeleting: false },
      });
    },
    now: () => t,
    sleep: (ms) => {
      t += ms;
      return Promise.resolve();
    },
  };
}

const settings = { defaultNamespace: 'team-a', confirmTimeoutMs: 1000, goneTimeoutMs: 1000 };
const accept: Ask = () => Promise.resolve({ kind: 'answered', action: 'accept', content: { confirm: true } });
const decline: Ask = () => Promise.resolve({ kind: 'answered', action: 'decline' });
const never: Ask = () => Promise.reject(new Error('nobody should have been asked'));

describe('cancelTool', () => {
  test.each<[string, (HeldJobObject | undefined)[], Ask, string, boolean, boolean]>([
    ['accepted: cancelled, and gone', [hj('u1'), hj('u1'), undefined], accept, 'accepted', true, true],
    ['declined: nothing', [hj('u1')], decline, 'declined', false, true],
    ['no such HeldJob: nobody asked', [undefined], never, 'not-found', false, false],
    [
      'already being cancelled: nobody asked',
      [{ ...hj('u1'), metadata: { ...hj('u1').metadata, deletionTimestamp: '2026-09-01T11:00:00Z' } }],
      never,
      'already-cancelling',
      false,
      true,
    ],
    ['gone while asked', [hj('u1'), undefined], accept, 'gone', false, true],
    ['replaced while asked: the new one is not touched', [hj('u1'), hj('u2')], accept, 'replaced', false, true],
    ['started running while asked: ask again', [hj('u1'), hj('u1', { phase: 'Running', jobName: 'j' })], accept, 'changed', false, true],
  ])('%s', async (_what, reads, ask, outcome, cancelled, ok) => {
    const p = ports(reads);
    const r = await cancelTool(p, settings, ask, 'team-a', 'web-7-deploy');
    expect(r.data.outcome).toBe(outcome);
    expect(r.data.cancelled).toBe(cancelled);
    expect(r.ok).toBe(ok);
    expect(p.cancelled.map((h) => h.metadata.uid)).toEqual(cancelled ? ['u1'] : []);
  });

  test('accepted but still there at the timeout: gone is false, and it says the finalizer waits', async () => {
    const p = ports([hj('u1')]);
    const r = await cancelTool(p, settings, accept, 'team-a', 'web-7-deploy');
    expect(r.data).toMatchObject({
      cancelled: true,
      gone: false,
      question: 'Cancel acme/web#7 (team-a/web-7-deploy), waiting 1m for jira?',
    });
    expect(r.data.said).toMatch(/still there \(its finalizer waits for the operator\)\.$/);
  });
});
