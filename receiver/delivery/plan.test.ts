import { describe, expect, test } from '@jest/globals';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import type { Trigger } from '../../api/triggers/triggers-file.js';
import type { LabelEvent } from '../forges/event.js';
import type { DeclaredProfiles } from '../../api/refusal-rules.js';
import { heldJobManifest, heldJobName, matchTriggers, siblingSelector, supersededBy, SUPERSEDE_WINDOW_MS, verdictFor } from './plan.js';

const NOW = Date.parse('2026-09-01T08:00:00Z');
const DAY = 86_400_000;
const job = { template: { spec: {} } };
const t = (name: string, any: string[], extra: Partial<Trigger['run']> = {}, kind = 'github'): Trigger => ({
  name,
  on: { type: 'label', any },
  run: { kind, flow: 'f', job, ...extra },
});
const event: LabelEvent = { forge: 'github', deliveryId: 'd-1', target: 'acme/web#7', addedLabels: ['deploy'] };

describe('matchTriggers', () => {
  test.each<[string, Trigger[], string[]]>([
    ['a label trigger naming the added label', [t('a', ['deploy'])], ['a']],
    ['one label among several', [t('a', ['x', 'deploy'])], ['a']],
    ['another label', [t('a', ['x'])], []],
    ['a trigger for the other forge', [t('a', ['deploy'], {}, 'gitlab')], []],
    ['a kind that names no forge', [t('a', ['deploy'], {}, 'agent')], ['a']],
    ['a cron trigger', [{ name: 'c', on: { type: 'cron', schedule: '* * * * *' }, run: { kind: 'github', flow: 'f', job } }], []],
    ['two matching triggers', [t('a', ['deploy']), t('b', ['deploy'])], ['a', 'b']],
  ])('%s', (_n, triggers, names) => {
    expect(matchTriggers(event, triggers).map((x) => x.name)).toEqual(names);
  });
});

describe('verdictFor', () => {
  const declared: DeclaredProfiles = { state: 'ok', names: new Set(['ci']) };
  const unreadable: DeclaredProfiles = { state: 'unreadable' };
  test.each<[string, Trigger['run']['waitFor'], DeclaredProfiles, object]>([
    ['no conditions', undefined, declared, { kind: 'hold' }],
    ['a declared profile', [{ profile: 'ci' }], declared, { kind: 'hold' }],
    ['an undeclared profile', [{ profile: 'jira' }], declared, { kind: 'refuse', token: 'wait-profile-unknown' }],
    ['an undeclared profile while the profiles are unreadable: held, never refused', [{ profile: 'jira' }], unreadable, { kind: 'hold' }],
    ['after 30 days out exactly', [{ after: new Date(NOW + 30 * DAY).toISOString() }], declared, { kind: 'hold' }],
    [
      'after beyond 30 days',
      [{ after: new Date(NOW + 30 * DAY + 1000).toISOString() }],
      declared,
      { kind: 'refuse', token: 'wait-after-beyond-max' },
    ],
    [
      'after beyond 30 days while the profiles are unreadable',
      [{ after: new Date(NOW + 31 * DAY).toISOString() }],
      unreadable,
      { kind: 'refuse', token: 'wait-after-beyond-max' },
    ],
    ['after in the past', [{ after: '2020-01-01T00:00:00Z' }], declared, { kind: 'hold' }],
    [
      'the first refusal in written order',
      [{ after: new Date(NOW + 31 * DAY).toISOString() }, { profile: 'jira' }],
      declared,
      { kind: 'refuse', token: 'wait-after-beyond-max' },
    ],
  ])('%s', (_n, waitFor, profiles, expected) => {
    expect(verdictFor(t('a', ['deploy'], waitFor ? { waitFor } : {}), profiles, NOW, 30 * DAY)).toMatchObject(expected);
  });

  test('after beyond the maximum is measured from the delivery, and says so', () => {
    const after = new Date(NOW + 31 * DAY).toISOString();
    expect(verdictFor(t('a', ['deploy'], { waitFor: [{ after }] }), declared, NOW, 30 * DAY)).toEqual({
      kind: 'refuse',
      token: 'wait-after-beyond-max',
      message: `after ${after} lies more than ${30 * DAY} ms beyond the delivery at 2026-09-01T08:00:00.000Z`,
    });
    // The same instant, delivered a day later, holds.
    expect(verdictFor(t('a', ['deploy'], { waitFor: [{ after }] }), declared, NOW + DAY, 30 * DAY)).toEqual({ kind: 'hold' });
  });
});

const rec = (name: string, status?: HeldJobObject['status'], refusal?: string): HeldJobObject => ({
  metadata: { name, namespace: 'n', uid: name, ...(refusal ? { annotations: { 'waitgate.dev/refusal': refusal } } : {}) },
  ...(status ? { status } : {}),
});

describe('supersededBy', () => {
  const ago = (ms: number) => new Date(NOW - ms).toISOString();
  test.each<[string, HeldJobObject[], string | undefined]>([
    ['nothing live', [], undefined],
    ['a HeldJob just created (no status yet)', [rec('a')], 'a'],
    ['one held', [rec('a', { phase: 'Held' })], 'a'],
    ['one launched 14 minutes ago', [rec('a', { phase: 'Running', launchedAt: ago(14 * 60_000) })], 'a'],
    ['one launched just over 15 minutes ago', [rec('a', { phase: 'Succeeded', launchedAt: ago(SUPERSEDE_WINDOW_MS) })], undefined],
    ['one refused', [rec('a', { phase: 'Refused', reason: 'wait-expired' })], undefined],
    ['a refusal record without status yet', [rec('a', undefined, 'wait-superseded')], undefined],
  ])('%s', (_n, records, by) => {
    expect(supersededBy(records, NOW)).toBe(by);
  });
});

describe('heldJobName and manifest', () => {
  test('names are valid, readable and differ per delivery', () => {
    const a = heldJobName(event, t('Deploy To Prod!', ['deploy']));
    expect(a).toMatch(/^web-7-deploy-to-prod-[0-9a-f]{6}$/);
    expect(heldJobName({ ...event, deliveryId: 'd-2' }, t('Deploy To Prod!', ['deploy']))).not.toBe(a);
    const long = heldJobName({ ...event, target: `acme/${'x'.repeat(200)}#123456` }, t('y'.repeat(100), ['deploy']));
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });

  test('a refusal record carries its token; a hold does not', () => {
    const trig = t('a', ['deploy'], { waitFor: [{ profile: 'jira' }] });
    const held = heldJobManifest(event, { trigger: trig, verdict: { kind: 'hold' } }, 'ns');
    expect(held.metadata.annotations['waitgate.dev/refusal']).toBeUndefined();
    expect(held.spec).toEqual({ target: 'acme/web#7', trigger: 'a', waitFor: [{ profile: 'jira' }], job });
    const refused = heldJobManifest(
      event,
      { trigger: trig, verdict: { kind: 'refuse', token: 'wait-profile-unknown', message: 'm' } },
      'ns',
    );
    expect(refused.metadata.annotations['waitgate.dev/refusal']).toBe('wait-profile-unknown');
  });

  test('labels: the keys and hashes the receiver has always written; the sibling selector finds them', () => {
    const m = heldJobManifest(event, { trigger: t('deploy', ['deploy']), verdict: { kind: 'hold' } }, 'ns');
    expect(m.metadata.labels).toEqual({
      'app.kubernetes.io/managed-by': 'waitgate',
      'waitgate.dev/trigger-hash': 'b7bd55c11b781b0c',
      'waitgate.dev/target-hash': '88f91b05b485982a',
      'waitgate.dev/forge': 'github',
    });
    const selected: Record<string, string> = Object.fromEntries(
      siblingSelector('deploy', event.target)
        .split(',')
        .map((kv) => kv.split('=') as [string, string]),
    );
    expect(selected).toEqual({
      'waitgate.dev/trigger-hash': m.metadata.labels['waitgate.dev/trigger-hash'],
      'waitgate.dev/target-hash': m.metadata.labels['waitgate.dev/target-hash'],
    });
  });
});
