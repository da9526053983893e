import { describe, expect, test } from '@jest/globals';
import {
  APPROVAL_REASON_MAX,
  approvalDeadline,
  approvalGroupOf,
  cancelledByText,
  describeApproval,
  readApprovalRecord,
  type ApprovalRecord,
} from './approval.js';
import { checkSpec, waitForSchema } from './heldjob-schema.js';
import { Annotations } from './vocabulary.js';

describe('readApprovalRecord', () => {
  test.each<[string, Record<string, string> | undefined, ApprovalRecord]>([
    ['no annotations', undefined, { state: 'none' }],
    ['others only', { 'waitgate.dev/delivery': 'x' }, { state: 'none' }],
    ['approved', { [Annotations.approvedBy]: 'alice' }, { state: 'approved', by: 'alice' }],
    [
      'approved with a reason',
      { [Annotations.approvedBy]: 'alice', [Annotations.approvalReason]: 'window open' },
      { state: 'approved', by: 'alice', reason: 'window open' },
    ],
    [
      'rejected',
      { [Annotations.rejectedBy]: 'bob', [Annotations.rejectionReason]: 'freeze' },
      { state: 'rejected', by: 'bob', reason: 'freeze' },
    ],
    ['both: the no wins', { [Annotations.approvedBy]: 'alice', [Annotations.rejectedBy]: 'bob' }, { state: 'rejected', by: 'bob' }],
    ['an empty name is no record', { [Annotations.approvedBy]: '  ' }, { state: 'none' }],
    ['control characters never reach the record', { [Annotations.approvedBy]: 'al\nice\u0007' }, { state: 'approved', by: 'al?ice?' }],
  ])('%s', (_name, annotations, want) => {
    expect(readApprovalRecord(annotations)).toEqual(want);
  });

  test('a long reason is cut to its bound', () => {
    const r = readApprovalRecord({ [Annotations.approvedBy]: 'a', [Annotations.approvalReason]: 'x'.repeat(5000) });
    expect(r.state === 'approved' && r.reason?.length).toBe(APPROVAL_REASON_MAX);
  });
});

describe('the approval condition in the schema', () => {
  test.each<[string, unknown, boolean]>([
    ['one approval', [{ approval: 'release-managers' }], true],
    ['beside an after and a profile', [{ after: '2026-09-01T09:00:00Z' }, { approval: 'sre' }, { profile: 'jira' }], true],
    ['two approvals', [{ approval: 'a' }, { approval: 'b' }], false],
    ['a group with a space', [{ approval: 'release managers' }], false],
    ['an empty group', [{ approval: '' }], false],
    ['a group of 254 characters', [{ approval: 'g'.repeat(254) }], false],
    ['approval beside another key in one condition', [{ approval: 'a', profile: 'jira' }], false],
  ])('%s', (_name, waitFor, ok) => {
    expect(waitForSchema.safeParse(waitFor).success).toBe(ok);
  });

  test('approvalGroupOf finds the group', () => {
    expect(approvalGroupOf([{ profile: 'jira' }, { approval: 'release-managers' }])).toBe('release-managers');
    expect(approvalGroupOf([{ profile: 'jira' }])).toBeUndefined();
  });

  // An operator older than the approval condition reads the spec with the union it had: the
  // condition is not one it knows, so the spec fails its check and the hold ends wait-unreadable.
  test('an operator whose schema lacks approval does not read the spec', async () => {
    const { z } = await import('zod');
    const old = z.array(z.union([z.object({ after: z.string() }).strict(), z.object({ profile: z.string() }).strict()]));
    expect(old.safeParse([{ approval: 'release-managers' }]).success).toBe(false);
    expect(checkSpec({ target: 'acme/web#7', trigger: 'd', job: { template: {} }, waitFor: [{ approvals: 'x' }] }).ok).toBe(false);
  });
});

test('the deadline is the after maximum from the first hold', () => {
  expect(approvalDeadline(1_000, 2_592_000_000)).toBe(2_592_001_000);
});

test('what the record says', () => {
  expect(describeApproval({ state: 'approved', by: 'alice' })).toBe('approved by alice');
  expect(describeApproval({ state: 'rejected', by: 'bob', reason: 'freeze' })).toBe('rejected by bob: freeze');
  expect(cancelledByText({ [Annotations.cancelledBy]: 'carol' })).toBe('cancelled by carol');
  expect(cancelledByText(undefined)).toBe('the delete did not say who cancelled');
});
