import { describe, expect, test } from '@jest/globals';
import { afterBeyondMax, refusedStatus, unknownProfile, waitForRefusal, type DeclaredProfiles } from './refusal-rules.js';
import { Phase, RefusalToken } from './vocabulary.js';

const T0 = Date.parse('2026-09-01T08:00:00Z');
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const declared: DeclaredProfiles = { state: 'ok', names: new Set(['jira']) };

describe('the refusal rules', () => {
  test.each<[string, object[], DeclaredProfiles, RefusalToken | undefined]>([
    ['nothing to refuse', [{ after: iso(T0 + DAY) }, { profile: 'jira' }], declared, undefined],
    ['a profile not declared', [{ profile: 'ci' }], declared, RefusalToken.ProfileUnknown],
    ['profiles unreadable: a slip pauses, it never refuses', [{ profile: 'ci' }], { state: 'unreadable' }, undefined],
    ['an after 31 days out', [{ after: iso(T0 + 31 * DAY) }], declared, RefusalToken.AfterBeyondMax],
    ['an after exactly 30 days out', [{ after: iso(T0 + 30 * DAY) }], declared, undefined],
    ['the first in writing order wins', [{ after: iso(T0 + 31 * DAY) }, { profile: 'ci' }], declared, RefusalToken.AfterBeyondMax],
  ])('%s', (_n, waitFor, profiles, token) => {
    expect(waitForRefusal(waitFor as never, profiles, T0, 30 * DAY)?.token).toBe(token);
  });

  test('an unreadable instant is not this rule’s business', () => {
    expect(afterBeyondMax('2026-02-31T09:00:00Z', T0, DAY)).toBeUndefined();
  });

  // The receiver, the operator and doctor all say it in these words: the instant as written.
  test.each<[string, string, string | undefined]>([
    [
      'a day and a millisecond out',
      iso(T0 + DAY + 1),
      `after ${iso(T0 + DAY + 1)} lies more than ${DAY} ms beyond the delivery at ${iso(T0)}`,
    ],
    ['exactly a day out', iso(T0 + DAY), undefined],
    ['in the past', iso(T0 - 2 * DAY), undefined],
    [
      'written with an offset, a day and a second out: named as written',
      '2026-09-02T10:00:01+02:00',
      `after 2026-09-02T10:00:01+02:00 lies more than ${DAY} ms beyond the delivery at ${iso(T0)}`,
    ],
    ['written with an offset, exactly a day out', '2026-09-02T10:00:00+02:00', undefined],
  ])('after %s: %s', (_n, after, message) => {
    const r = afterBeyondMax(after, T0, DAY);
    expect(r?.message).toBe(message);
    if (message !== undefined) expect(r?.token).toBe(RefusalToken.AfterBeyondMax);
  });

  test('the messages name what was refused', () => {
    expect(unknownProfile('ci', declared)?.message).toContain('"ci"');
    expect(afterBeyondMax(iso(T0 + 2 * DAY), T0, DAY)?.message).toContain(iso(T0));
  });
});

describe('refusedStatus', () => {
  test('phase Refused, the token as status.reason; Waiting False, Finished True, Ready False, Stalled True with its CamelCase reason', () => {
    const s = refusedStatus({ heldSince: iso(T0) }, { token: RefusalToken.Skew, message: 'm' }, T0 + 1000, 3);
    expect(s).toMatchObject({
      phase: Phase.Refused,
      reason: RefusalToken.Skew,
      message: 'm',
      finishedAt: iso(T0 + 1000),
      heldSince: iso(T0),
      observedGeneration: 3,
    });
    const at = { message: 'm', lastTransitionTime: iso(T0 + 1000), observedGeneration: 3 };
    expect(s.conditions).toEqual([
      { type: 'Waiting', status: 'False', reason: 'WaitSkew', ...at },
      { type: 'Finished', status: 'True', reason: 'WaitSkew', ...at },
      { type: 'Ready', status: 'False', reason: 'WaitSkew', ...at },
      { type: 'Stalled', status: 'True', reason: 'WaitSkew', ...at },
    ]);
  });
});
