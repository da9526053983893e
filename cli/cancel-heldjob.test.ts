import { describe, expect, test } from '@jest/globals';
import type { HeldJobObject, HeldJobStatus } from '../api/heldjob-schema.js';
import { classify, describeCancel } from './cancel-heldjob.js';

const hj = (status?: HeldJobStatus, target: unknown = 'acme/web#7', deleting = false): HeldJobObject => ({
  metadata: { name: 'web-7-deploy', namespace: 'team-a', uid: 'u1', ...(deleting ? { deletionTimestamp: '2026-09-01T09:00:00Z' } : {}) },
  spec: { target, trigger: 'deploy', job: { template: {} } },
  ...(status ? { status } : {}),
});
const say = (h: HeldJobObject) => describeCancel('team-a/web-7-deploy', classify(h));

describe('cancel says which it was', () => {
  test('held: never ran', () => {
    expect(classify(hj({ phase: 'Held' }))).toMatchObject({ kind: 'held', target: 'acme/web#7' });
    expect(say(hj({ phase: 'Held' }))).toBe(
      'Cancelling team-a/web-7-deploy (acme/web#7): it was held on its conditions and never ran; nothing will start.',
    );
  });

  test('queued: Pending, or no status yet', () => {
    expect(classify(hj({ phase: 'Pending' })).kind).toBe('queued');
    expect(classify(hj()).kind).toBe('queued');
    expect(say(hj({ phase: 'Pending' }))).toMatch(/it was queued \(Pending, its hold had not begun\) and never ran/);
  });

  test('running: its Job is deleted, operator-cancel', () => {
    expect(say(hj({ phase: 'Running', jobName: 'web-7-deploy-x1' }))).toBe(
      'Cancelling team-a/web-7-deploy (acme/web#7): it was running; its Job web-7-deploy-x1 is deleted with it and the record says operator-cancel.',
    );
  });

  test.each([
    ['Succeeded', undefined, '(Succeeded)'],
    ['Failed', undefined, '(Failed)'],
    ['Refused', 'wait-expired', '(Refused, wait-expired)'],
  ] as const)('finished (%s): only the record goes', (phase, reason, shown) => {
    const line = say(hj({ phase, ...(reason ? { reason } : {}) }));
    expect(line).toBe(
      `Deleting the record of team-a/web-7-deploy (acme/web#7): it had already finished ${shown}; there was nothing to stop.`,
    );
  });

  test('a target that is not id-only is not printed; an earlier delete is said', () => {
    expect(say(hj({ phase: 'Held' }, 'Fix login\u001b[2J'))).toMatch(/^Cancelling team-a\/web-7-deploy: /);
    expect(say(hj({ phase: 'Held' }, 'acme/web#7', true))).toMatch(/^team-a\/web-7-deploy \(acme\/web#7\) was already being cancelled: /);
  });
});
