import { describe, expect, test } from '@jest/globals';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import type { Trigger } from '../../api/triggers/triggers-file.js';
import type { LabelEvent } from '../forges/event.js';
import type { DeclaredProfiles } from '../../api/refusal-rules.js';
import { SUPERSEDE_WINDOW_MS } from '../../api/supersede-window.js';
import {
  decideHold,
  generationOf,
  heldJobManifest,
  heldJobName,
  holdCandidates,
  holdName,
  isOwnRecord,
  matchTriggers,
  recordedOutcome,
  refusalRecordManifest,
  refusalRecordName,
  siblingSelector,
  tallyOf,
  supersededBy,
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
    ['a trigger for Azure DevOps', [t('a', ['deploy'], {}, 'azure')], []],
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

  test('a hold carries its conditions and its Job, and no refusal', () => {
    const trig = t('a', ['deploy'], { waitFor: [{ profile: 'jira' }] });
    const held = heldJobManifest(event, trig, 'ns');
    expect(held.metadata.annotations['waitgate.dev/refusal']).toBeUndefined();
    expect(held.spec).toEqual({ target: 'acme/web#7', trigger: 'a', waitFor: [{ profile: 'jira' }], job });
  });

  test.each<[string, LabelEvent['kind'], string]>([
    ['a GitHub issue', 'issue', 'acme/web#7'],
    ['a GitHub pull request', 'pull_request', 'acme/web#7'],
    ['a GitLab merge request', 'merge_request', 'acme/web!7'],
  ])('%s: the kind of target and the delivery are recorded, for the Job to be told', (_n, kind, target) => {
    const m = heldJobManifest({ ...event, kind, target }, t('deploy', ['deploy']), 'ns');
    expect(m.metadata.annotations).toMatchObject({ 'waitgate.dev/target-kind': kind, 'waitgate.dev/delivery': 'd-1' });
  });

  test.each<[string, number | undefined, object]>([
    ['no replicas: run.job as written', undefined, job],
    ['replicas: an indexed Job of that many Pods at once', 3, { ...job, completions: 3, parallelism: 3, completionMode: 'Indexed' }],
  ])('%s', (_n, replicas, want) => {
    const trig = t('deploy', ['deploy'], replicas === undefined ? {} : { replicas });
    expect(heldJobManifest(event, trig, 'ns').spec['job']).toEqual(want);
  });

  test('labels: the keys and hashes the receiver has always written; the sibling selector finds them', () => {
    const m = heldJobManifest(event, t('deploy', ['deploy']), 'ns');
    expect(m.metadata.labels).toEqual({
      'app.kubernetes.io/managed-by': 'waitgate',
      'waitgate.dev/trigger-hash': 'b7bd55c11b781b0c',
      'waitgate.dev/target-hash': '88f91b05b485982a',
      'waitgate.dev/forge': 'github',
      // The operator binds such a HeldJob to its trigger (api/trigger-binding.ts).
      'waitgate.dev/made-by': 'receiver',
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
  // A refusal record that has counted these deliveries (`<forge>/<id>`), the first of them its creator.
  const counted = (name: string, deliveries: string[], token: string): HeldJobObject => ({
    metadata: {
      name,
      namespace: 'n',
      uid: name,
      labels: { 'waitgate.dev/forge': 'github' },
      annotations: {
        'waitgate.dev/delivery': 'first',
        'waitgate.dev/refusal': token,
        'waitgate.dev/refusal-count': String(deliveries.length + 5),
        'waitgate.dev/refusal-deliveries': deliveries.join(' '),
      },
    },
  });
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
      { generation: undefined },
      { kind: 'hold', generation: 8 },
    ],
    ['Valkey remembers nothing and nothing is live: the first hold', [], { generation: undefined }, { kind: 'hold', generation: 1 }],
    [
      'a refusal record that counted this delivery among others: its own, with the token',
      [
        made('h', { generation: 1, status: { phase: 'Held' } }),
        counted('r', ['github/d-0', 'github/d-1', 'github/d-2'], 'wait-superseded'),
      ],
      nothing,
      { kind: 'recorded', recorded: { outcome: 'refused', token: 'wait-superseded', heldJob: 'r' } },
    ],
    [
      'a refusal record that counted the same id from the other forge: not its own',
      [made('h', { generation: 1, status: { phase: 'Held' } }), counted('r', ['gitlab/d-1'], 'wait-superseded')],
      nothing,
      superseded('h'),
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

  test('a hold given a generation is named and annotated by it', () => {
    const trig = t('deploy', ['deploy'], { waitFor: [{ profile: 'jira' }] });
    const hold = heldJobManifest(event, trig, 'ns', 3);
    expect(hold.metadata.name).toBe(holdName(event.target, 'deploy', 3));
    expect(hold.metadata.annotations['waitgate.dev/hold-generation']).toBe('3');
    expect(hold.metadata.annotations['waitgate.dev/delivery']).toBe('d-1');
    expect(heldJobManifest(event, trig, 'ns').metadata.name).toBe(heldJobName(event, trig));
  });
});

describe('holdCandidates', () => {
  test.each<[number, number[]]>([
    [0, [1]],
    [1, [1, 2]],
    [7, [7, 8]],
  ])('remembered %d: the holds read first, by name', (remembered, want) => {
    expect(holdCandidates(remembered)).toEqual(want);
  });
});

describe('refusal records', () => {
  const trig = t('deploy', ['deploy'], {
    waitFor: [{ profile: 'jira' }],
    job: { template: { spec: { containers: [{ name: 'deploy', image: 'registry.example/secret-sauce:1' }] } } },
  });

  test('one name per trigger, target and token, whichever delivery; readable, valid, at most 63 characters', () => {
    const a = refusalRecordName('acme/web#7', 'deploy', 'wait-superseded');
    expect(a).toMatch(/^web-7-deploy-[0-9a-f]{8}-superseded$/);
    expect(refusalRecordName('acme/web#7', 'deploy', 'wait-superseded')).toBe(a);
    const others = [
      refusalRecordName('acme/web#7', 'deploy', 'wait-profile-unknown'),
      refusalRecordName('acme/web#7', 'deploy', 'wait-after-beyond-max'),
      refusalRecordName('acme/web#8', 'deploy', 'wait-superseded'),
      refusalRecordName('acme/web#7', 'deploy-b', 'wait-superseded'),
      refusalRecordName('acme/web!7', 'deploy', 'wait-superseded'),
    ];
    expect(new Set([a, ...others]).size).toBe(6);
    for (const token of ['wait-profile-unknown', 'wait-after-beyond-max', 'wait-superseded'] as const) {
      const long = refusalRecordName(`acme/${'x'.repeat(200)}#123456`, 'y'.repeat(100), token);
      expect(long.length).toBeLessThanOrEqual(63);
      expect(long).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      expect(long.endsWith(token.replace('wait-', ''))).toBe(true);
    }
  });

  test("never a hold's or a delivery's name", () => {
    const record = refusalRecordName(event.target, 'deploy', 'wait-superseded');
    expect(record).not.toMatch(/-\d+$/); // a hold's ends in its generation
    expect(record).not.toMatch(/-[0-9a-f]{6}$/); // a delivery's in six hex digits
    expect(holdName(event.target, 'deploy', 1)).toMatch(/-\d+$/);
    expect(heldJobName(event, trig)).toMatch(/-[0-9a-f]{6}$/);
  });

  test('what a record holds: ids, the token and its message, one refusal counted; no conditions, no Job', () => {
    const m = refusalRecordManifest(
      event,
      'deploy',
      { token: 'wait-profile-unknown', message: 'profile "jira" is not declared' },
      'ns',
      NOW,
    );
    expect(m.metadata.name).toBe(refusalRecordName(event.target, 'deploy', 'wait-profile-unknown'));
    expect(m.spec).toEqual({ target: 'acme/web#7', trigger: 'deploy', job: { template: {} } });
    expect(m.metadata.annotations).toEqual({
      'waitgate.dev/delivery': 'd-1',
      'waitgate.dev/target-kind': 'issue',
      'waitgate.dev/receiver-schema': '1',
      'waitgate.dev/refusal': 'wait-profile-unknown',
      'waitgate.dev/refusal-message': 'profile "jira" is not declared',
      'waitgate.dev/refusal-count': '1',
      'waitgate.dev/refusal-first-seen': '2026-09-01T08:00:00.000Z',
      'waitgate.dev/refusal-last-seen': '2026-09-01T08:00:00.000Z',
      'waitgate.dev/refusal-last-delivery': 'd-1',
      'waitgate.dev/refusal-deliveries': 'github/d-1',
    });
    expect(JSON.stringify(m)).not.toContain('secret-sauce');
    expect(JSON.stringify(m)).not.toContain('containers');
    // Labelled as the holds are, so the sibling selector finds it too, and as what it is.
    expect(m.metadata.labels).toEqual({
      ...heldJobManifest(event, trig, 'ns').metadata.labels,
      'app.kubernetes.io/component': 'refusal-record',
    });
  });

  test("a record is its creating delivery's own, and reads back as one refusal", () => {
    const m = refusalRecordManifest(event, 'deploy', { token: 'wait-superseded', message: 'm' }, 'ns', NOW);
    const record: HeldJobObject = { metadata: { ...m.metadata, uid: 'u' } };
    expect(isOwnRecord(record, event)).toBe(true);
    expect(isOwnRecord(record, { ...event, deliveryId: 'd-2' })).toBe(false);
    expect(isOwnRecord(record, { ...event, forge: 'gitlab' })).toBe(false);
    expect(recordedOutcome(record)).toEqual({ outcome: 'refused', token: 'wait-superseded', heldJob: m.metadata.name });
    expect(tallyOf(record)).toEqual({ count: 1, firstSeenMs: NOW, lastSeenMs: NOW, lastDelivery: 'd-1', recent: ['github/d-1'] });
  });
});
