import { describe, expect, test } from '@jest/globals';
import { EventReason, EventType } from '../../api/vocabulary.js';
import { eventName } from './event-name.js';

const hj = { name: 'web-7-deploy', uid: 'uid-1' };
const said = { type: EventType.Normal, reason: EventReason.CheckNotYet, message: 'jira: exit 3 (not-yet)' };
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

describe('eventName: the same Event on the same HeldJob, the same name', () => {
  test('deterministic: a retry or a restarted operator meets the same name', () => {
    expect(eventName(hj, said)).toBe(eventName({ ...hj }, { ...said }));
    expect(eventName(hj, said)).toMatch(/^web-7-deploy\.[0-9a-f]{16}$/);
  });

  test.each([
    ['another HeldJob of the same name (a new uid)', { ...hj, uid: 'uid-2' }, said],
    ['another type', hj, { ...said, type: EventType.Warning }],
    ['another reason', hj, { ...said, reason: EventReason.CheckGo }],
    ['another message', hj, { ...said, message: 'jira: exit 0 (go)' }],
  ])('%s: another name', (_n, other, event) => {
    expect(eventName(other, event)).not.toBe(eventName(hj, said));
  });

  test.each([
    ['the longest HeldJob name', 'a'.repeat(253)],
    ['a cut that would end in a dash', `${'a'.repeat(235)}-b${'c'.repeat(16)}`],
    ['a cut that would end in a dot', `${'a'.repeat(235)}.b${'c'.repeat(16)}`],
  ])('%s: a valid name of at most 253 characters', (_n, name) => {
    const n = eventName({ name, uid: 'u' }, said);
    expect(n.length).toBeLessThanOrEqual(253);
    expect(n).toMatch(DNS_SUBDOMAIN);
  });
});
