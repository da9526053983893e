import { describe, expect, test } from '@jest/globals';
import { labelEvent } from '../../test/support/fakes-receiver.js';
import { decideOnce, onceRecordExpired, onceRecordManifest, onceRecordName, type OnceDecision } from './once.js';

const event = labelEvent({ deliveryId: 'd-1' });
const data = (over: Record<string, unknown> = {}) => ({
  ...onceRecordManifest(event, 'deploy', 'jobs', 'web-7-deploy-aaaaaa').spec,
  ...over,
});

describe('onceRecordName', () => {
  test('one name per trigger and target, a valid object name', () => {
    const name = onceRecordName('deploy', 'acme/web#7');
    expect(name).toMatch(/^waitgate-once-[0-9a-f]{20}$/);
    expect(onceRecordName('deploy', 'acme/web#7')).toBe(name);
    expect(onceRecordName('deploy', 'acme/web#8')).not.toBe(name);
    expect(onceRecordName('other', 'acme/web#7')).not.toBe(name);
  });
});

describe('onceRecordManifest', () => {
  test('ids only: trigger, target, forge, delivery, the HeldJob it makes; claimed; expiring 90 days on (#30)', () => {
    const now = Date.parse('2026-09-01T00:00:00Z');
    expect(onceRecordManifest(event, 'deploy', 'jobs', 'web-7-deploy-aaaaaa', now)).toEqual({
      apiVersion: 'waitgate.dev/v1alpha1',
      kind: 'OnceRecord',
      metadata: {
        name: onceRecordName('deploy', 'acme/web#7'),
        namespace: 'jobs',
        labels: {
          'app.kubernetes.io/managed-by': 'waitgate',
          'app.kubernetes.io/component': 'once-record',
          'waitgate.dev/trigger-hash': expect.stringMatching(/^[0-9a-f]{16}$/),
          'waitgate.dev/target-hash': expect.stringMatching(/^[0-9a-f]{16}$/),
        },
        annotations: { 'waitgate.dev/expires-at': '2026-11-30T00:00:00.000Z' },
      },
      spec: { trigger: 'deploy', target: 'acme/web#7', forge: 'github', delivery: 'd-1', heldJob: 'web-7-deploy-aaaaaa', state: 'claimed' },
    });
  });
});

describe('decideOnce', () => {
  test.each<[string, Record<string, unknown> | undefined, OnceDecision]>([
    ['claimed by this delivery (its HeldJob may not be there): fire', data(), { kind: 'fire' }],
    ['fired by this delivery: nothing to do', data({ state: 'fired' }), { kind: 'fired', heldJob: 'web-7-deploy-aaaaaa' }],
    ['claimed by another delivery: spent', data({ delivery: 'd-2' }), { kind: 'spent', by: 'web-7-deploy-aaaaaa' }],
    ['fired by another delivery: spent', data({ delivery: 'd-2', state: 'fired' }), { kind: 'spent', by: 'web-7-deploy-aaaaaa' }],
    ['the same delivery id from the other forge: spent', data({ forge: 'gitlab' }), { kind: 'spent', by: 'web-7-deploy-aaaaaa' }],
    ['a record without data: spent (doubt spends it)', undefined, { kind: 'spent', by: 'an unreadable once record' }],
    ['a record edited out of shape: spent', data({ state: 'maybe' }), { kind: 'spent', by: 'web-7-deploy-aaaaaa' }],
    ['a field that is not text: spent', data({ delivery: 7 }), { kind: 'spent', by: 'web-7-deploy-aaaaaa' }],
  ])('%s', (_name, record, want) => {
    expect(decideOnce(record, event)).toEqual(want);
  });
});

describe('onceRecordExpired', () => {
  test.each<[string, string | undefined, boolean]>([
    ['no expiry (a record from before #30): never', undefined, false],
    ['in the future', '2026-09-02T00:00:00Z', false],
    ['at the instant', '2026-09-01T00:00:00Z', true],
    ['passed', '2026-08-01T00:00:00Z', true],
    ['unreadable: never (doubt spends it)', 'soon', false],
  ])('%s', (_n, at, expired) => expect(onceRecordExpired(at, Date.parse('2026-09-01T00:00:00Z'))).toBe(expired));
});
