import { describe, expect, test } from '@jest/globals';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import type { Trigger } from '../../api/triggers/triggers-file.js';
import type { LabelEvent } from '../forges/event.js';
import type { DeclaredProfiles } from '../../api/refusal-rules.js';
import {
  decideHold,
  generationOf,
  heldJobManifest,
  heldJobName,
  holdName,
  isOwnRecord,
  matchTriggers,
  recordedOutcome,
  siblingSelector,
  supersededBy,
  SUPERSEDE_WINDOW_MS,
  verdictFor,
  type HoldDecision,
  type Remembered,
} from './plan.js';

const NOW = Date.parse('2026-09-01T08:00:00Z');
const DAY = 86_400_000;
const job = { template: { spec: {} } };
const t = (name: string, any: string[], extra: Partial<Trigger['run']> = {}, kind = 'github'): Trigger => ({
  name,
  on: { type: 'label', any },
  run: { kind, flow: 'f', job, ...extra },
});
const event: LabelEvent = {
  forge: 'github',
  deliveryId: 'd-1',
  bodyHash: 'b0d1',
  target: 'acme/web#7',
  kind: 'issue',
  addedLabels: ['deploy'],
};

describe('matchTriggers', () => {
  test.each<[string, Trigger[], string[]]>([
    ['a label trigger naming the added label', [t('a', ['deploy'])], ['a']],
    ['one label among several', [t('a', ['x', 'deploy'])], ['a']],
    ['another label', [t('a', ['x'])], []],
    ['a trigger for the other forge', [t('a', ['deploy'], {}, 'gitlab')], []],
    ['a kind that names no forge', [t('a', ['deploy'], {}, 'agent')], ['a']],
    ['two matching triggers', [t('a', ['deploy']), t('b', ['deploy'])], ['a', 'b']],
  ])('%s', (_n, triggers, names) => {
    expect(matchTriggers(event, triggers).map((x) => x.name)).toEqual(names);
  });
});

describe('matchTriggers by on.repositories', () => {
  const from = (forge: LabelEvent['forge'], target: string): LabelEvent => ({ ...event, forge, target });
  const only = (name: string, repositories: string[], kind = 'agent'): Trigger => ({
    ...t(name, ['deploy'], {}, kind),
    on: { type: 'label', any: ['deploy'], repositories },
  });
  test.each<[string, LabelEvent, Trigger[], string[]]>([
    ['no on.repositories: a delivery from any repository fires it', from('github', 'stranger/thing#1'), [t('a', ['deploy'])], ['a']],
    ['the repository it names', from('github', 'acme/web#7'), [only('a', ['acme/web'])], ['a']],
    ['another repository of the same hook', from('github', 'acme/api#7'), [only('a', ['acme/web'])], []],
    ['another owner', from('github', 'other/web#7'), [only('a', ['acme/web'])], []],
    ['a pull request of the repository it names', from('github', 'acme/web#9'), [only('a', ['acme/web'])], ['a']],
    ['an owner glob', from('github', 'acme/api#7'), [only('a', ['acme/*'])], ['a']],
    ['the name in another case', from('github', 'Acme/Web#7'), [only('a', ['acme/web'])], ['a']],
    ['a GitLab nested group glob', from('gitlab', 'group/sub/repo!12'), [only('a', ['group/sub/*'])], ['a']],
    ['a GitLab project one group deeper', from('gitlab', 'group/sub/deeper/repo!12'), [only('a', ['group/sub/*'])], []],
    ['a GitLab project at any depth with **', from('gitlab', 'group/sub/deeper/repo#3'), [only('a', ['group/**'])], ['a']],
    ['a github: pattern and a GitLab delivery', from('gitlab', 'acme/web#7'), [only('a', ['github:acme/web'])], []],
    ['a gitlab: pattern and a GitLab delivery', from('gitlab', 'acme/web#7'), [only('a', ['gitlab:acme/web'])], ['a']],
    ['a pattern without a forge, on either forge', from('gitlab', 'acme/web!7'), [only('a', ['acme/web'])], ['a']],
    ['the repository matches but the kind names the other forge', from('github', 'acme/web#7'), [only('a', ['acme/web'], 'gitlab')], []],
    [
      'of two triggers on one label, only the one naming this repository',
      from('github', 'acme/web#7'),
      [only('web', ['acme/web']), only('api', ['acme/api']), t('open', ['deploy'])],
      ['web', 'open'],
    ],
  ])('%s', (_n, e, triggers, names) => {
    expect(matchTriggers(e, triggers).map((x) => x.name)).toEqual(names);
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

  test.each<[string, LabelEvent['kind'], string]>([
    ['a GitHub issue', 'issue', 'acme/web#7'],
    ['a GitHub pull request', 'pull_request', 'acme/web#7'],
    ['a GitLab merge request', 'merge_request', 'acme/web!7'],
  ])('%s: the kind of target and the delivery are recorded, for the Job to be told', (_n, kind, target) => {
    const m = heldJobManifest({ ...event, kind, target }, { trigger: t('deploy', ['deploy']), verdict: { kind: 'hold' } }, 'ns');
    expect(m.metadata.annotations).toMatchObject({ 'waitgate.dev/target-kind': kind, 'waitgate.dev/delivery': 'd-1' });
  });

  test.each<[string, number | undefined, object]>([
    ['no replicas: run.job as written', undefined, job],
    ['replicas: an indexed Job of that many Pods at once', 3, { ...job, completions: 3, parallelism: 3, completionMode: 'Indexed' }],
  ])('%s', (_n, replicas, want) => {
    const trig = t('deploy', ['deploy'], replicas === undefined ? {} : { replicas });
    expect(heldJobManifest(event, { trigger: trig, verdict: { kind: 'hold' } }, 'ns').spec['job']).toEqual(want);
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

describe('decideHold', () => {
  const ago = (ms: number) => new Date(NOW - ms).toISOString();
  // Records as the receiver makes them: from a delivery on a forge, maybe a hold generation.
  const made = (
    name: string,
    o: { delivery?: string; forge?: string; generation?: number; refusal?: string; status?: HeldJobObject['status'] } = {},
  ): HeldJobObject => ({
    metadata: {
      name,
      namespace: 'n',
      uid: name,
      labels: { 'waitgate.dev/forge': o.forge ?? 'github' },
      annotations: {
        'waitgate.dev/delivery': o.delivery ?? 'other',
        ...(o.generation !== undefined ? { 'waitgate.dev/hold-generation': String(o.generation) } : {}),
        ...(o.refusal !== undefined ? { 'waitgate.dev/refusal': o.refusal } : {}),
      },
    },
    ...(o.status ? { status: o.status } : {}),
  });
  const nothing: Remembered = { generation: 0 };
  const superseded = (by: string) => ({ kind: 'superseded' as const, by });

  test.each<[string, HeldJobObject[], Remembered, Partial<HoldDecision>]>([
    ['nothing live, nothing remembered: the first hold', [], nothing, { kind: 'hold', generation: 1 }],
    [
      'its own hold, waiting: reported, not superseded by itself',
      [made('a', { delivery: 'd-1', generation: 1 })],
      nothing,
      { kind: 'recorded', recorded: { outcome: 'held', heldJob: 'a' } },
    ],
    [
      'its own hold, running, beside a later one: still its own',
      [made('a', { delivery: 'd-1', generation: 1, status: { phase: 'Running', launchedAt: ago(60_000) } }), made('b')],
      nothing,
      { kind: 'recorded', recorded: { outcome: 'held', heldJob: 'a' } },
    ],
    [
      'its own refusal record: reported with its token',
      [made('h', { generation: 1, status: { phase: 'Held' } }), made('r', { delivery: 'd-1', refusal: 'wait-superseded' })],
      nothing,
      { kind: 'recorded', recorded: { outcome: 'refused', token: 'wait-superseded', heldJob: 'r' } },
    ],
    [
      'the same delivery id from the other forge is not its own',
      [made('a', { delivery: 'd-1', forge: 'gitlab' })],
      nothing,
      superseded('a'),
    ],
    ['another hold waiting', [made('a', { generation: 1, status: { phase: 'Held' } })], nothing, superseded('a')],
    [
      'one launched 14 minutes ago',
      [made('a', { generation: 1, status: { phase: 'Succeeded', launchedAt: ago(14 * 60_000) } })],
      nothing,
      superseded('a'),
    ],
    [
      'one launched 20 minutes ago: the next generation',
      [made('a', { generation: 3, status: { phase: 'Succeeded', launchedAt: ago(20 * 60_000) } })],
      nothing,
      { kind: 'hold', generation: 4 },
    ],
    [
      'the marker names a hold that is gone (deleted after it launched): superseded by it',
      [],
      { launched: 'gone', generation: 2 },
      superseded('gone'),
    ],
    [
      'the marker names a hold still there and refused: stale, refuses nothing',
      [made('a', { generation: 1, status: { phase: 'Refused', reason: 'wait-expired' } })],
      { launched: 'a', generation: 1 },
      { kind: 'hold', generation: 2 },
    ],
    [
      'the marker names a hold still there that launched long ago: the HeldJob says better',
      [made('a', { generation: 1, status: { phase: 'Succeeded', launchedAt: ago(60 * 60_000) } })],
      { launched: 'a', generation: 1 },
      { kind: 'hold', generation: 2 },
    ],
    [
      'the marker names a refusal record still there: stale',
      [made('r', { refusal: 'wait-superseded', status: { phase: 'Refused' } })],
      { launched: 'r', generation: 0 },
      { kind: 'hold', generation: 1 },
    ],
    [
      'Valkey remembers a higher generation than is live (the newest deleted): past it',
      [made('a', { generation: 2, status: { phase: 'Refused' } })],
      { generation: 5 },
      { kind: 'hold', generation: 6 },
    ],
    [
      'Valkey lost what it remembered: past the live ones',
      [made('a', { generation: 7, status: { phase: 'Refused' } }), made('b', { refusal: 'wait-superseded' })],
      nothing,
      { kind: 'hold', generation: 8 },
    ],
  ])('%s', (_n, live, remembered, expected) => {
    expect(decideHold(event, 'deploy', live, remembered, NOW)).toMatchObject(expected);
  });

  test('superseded says by which, and why', () => {
    expect(decideHold(event, 'deploy', [made('a', { status: { phase: 'Held' } })], nothing, NOW)).toEqual({
      kind: 'superseded',
      by: 'a',
      message: 'HeldJob a already holds deploy for this target',
    });
    expect(decideHold(event, 'deploy', [], { launched: 'gone', generation: 1 }, NOW)).toEqual({
      kind: 'superseded',
      by: 'gone',
      message: 'HeldJob gone finished waiting for deploy on this target less than 15 minutes ago',
    });
  });

  test('own, outcome and generation read from what the receiver wrote', () => {
    expect(isOwnRecord(made('a', { delivery: 'd-1' }), event)).toBe(true);
    expect(isOwnRecord(made('a', { delivery: 'd-2' }), event)).toBe(false);
    expect(recordedOutcome(made('r', { refusal: 'not-a-token' }))).toEqual({ outcome: 'refused', token: 'wait-unreadable', heldJob: 'r' });
    expect([undefined, 1, 12].map((g) => generationOf(made('a', g === undefined ? {} : { generation: g })))).toEqual([0, 1, 12]);
    const odd = made('a');
    odd.metadata.annotations = { 'waitgate.dev/hold-generation': '-3' };
    expect(generationOf(odd)).toBe(0);
  });
});

describe('holdName', () => {
  test('the same trigger, target and generation: the same name, whichever delivery', () => {
    const a = holdName('acme/web#7', 'deploy', 1);
    expect(a).toMatch(/^web-7-deploy-[0-9a-f]{8}-1$/);
    expect(holdName('acme/web#7', 'deploy', 1)).toBe(a);
    expect(holdName('acme/web#7', 'deploy', 2)).not.toBe(a);
    expect(holdName('acme/web#8', 'deploy', 1)).not.toBe(a);
    expect(holdName('acme/web#7', 'deploy-b', 1)).not.toBe(a);
  });

  test('a valid object name of at most 63 characters, however long the parts', () => {
    const long = holdName(`acme/${'x'.repeat(200)}#123456`, 'y'.repeat(100), 123456789);
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(long).toMatch(/-123456789$/);
  });

  test('a hold given a generation is named and annotated by it; a refusal record never is', () => {
    const trig = t('deploy', ['deploy'], { waitFor: [{ profile: 'jira' }] });
    const hold = heldJobManifest(event, { trigger: trig, verdict: { kind: 'hold' } }, 'ns', 3);
    expect(hold.metadata.name).toBe(holdName(event.target, 'deploy', 3));
    expect(hold.metadata.annotations['waitgate.dev/hold-generation']).toBe('3');
    expect(hold.metadata.annotations['waitgate.dev/delivery']).toBe('d-1');
    const refusal = heldJobManifest(event, { trigger: trig, verdict: { kind: 'refuse', token: 'wait-superseded', message: 'm' } }, 'ns', 3);
    expect(refusal.metadata.name).toBe(heldJobName(event, trig));
    expect(refusal.metadata.annotations['waitgate.dev/hold-generation']).toBeUndefined();
  });
});
