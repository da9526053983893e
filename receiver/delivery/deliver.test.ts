import { describe, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import type { DeclaredProfiles } from '../../api/refusal-rules.js';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import type { Trigger } from '../../api/triggers/triggers-file.js';
import { Phase, RefusalToken } from '../../api/vocabulary.js';
import { ValkeyKeys } from '../../lib/valkey/keys.js';
import {
  FakeHeldJobRecords,
  FakeHoldHistory,
  FakeLeaseStore,
  FakeOnceRecords,
  heldJobOf,
  FakeTriggerView,
  labelEvent,
  labelTrigger,
  profilesDeclaring,
  recordingLog,
  siblingHeldJob,
  UNREADABLE_PROFILES,
} from '../../test/support/fakes-receiver.js';
import { Deliverer, UnavailableError, type DeliveryResult } from './deliver.js';
import { BODY_DEDUP_WINDOW_MS, DEDUP_WINDOW_MS, heldJobName, tallyOf } from './plan.js';

type Handled = Extract<DeliveryResult, { outcome: 'handled' }>;

const NOW = Date.parse('2026-09-01T08:00:00Z');
const DAY = 86_400_000;
const PREFIX = 'wg';
const h = (s: string, n = 16) => createHash('sha256').update(s).digest('hex').slice(0, n);
// The key strings, spelt out: they must stay byte for byte what earlier releases wrote.
const DEDUP_KEY = `${PREFIX}:delivery:github:${h('d-1', 32)}`;
const BODY_KEY = `${PREFIX}:delivery-body:github:${'body-of-d-1'.slice(0, 32)}`;
const LOCK_KEY = `${PREFIX}:hold-lock:${h('deploy')}:${h('acme/web#7')}`;

const plain = labelTrigger({ name: 'notify' });
const onJira = labelTrigger({ waitFor: [{ profile: 'jira' }] });
const apiError = Object.assign(new Error('HeldJob.waitgate.dev "x" is invalid'), { code: 422 });

interface Setup {
  readonly triggers?: readonly Trigger[] | undefined;
  readonly profiles?: DeclaredProfiles;
  /** HeldJobs already there. */
  readonly live?: readonly HeldJobObject[];
  readonly dedupTaken?: boolean;
  readonly lockTaken?: boolean;
  readonly valkeyDown?: boolean;
  /** Valkey fails only once the delivery is past its dedup marker. */
  readonly valkeyFailsAtLock?: boolean;
  readonly createFails?: Error;
  readonly markRefusedFails?: boolean;
  /** Valkey fails only when the hold history is read or written. */
  readonly historyDown?: boolean;
  /** Valkey fails only when the hold lock is given back (with the generation handed out, if any). */
  readonly unlockFails?: boolean;
}

interface Expected {
  /** The result, or the error it rejects with. */
  readonly result: object | { throws: unknown };
  /** HeldJobs created, each as 'held' or its refusal token. */
  readonly created: readonly string[];
  /** Refusal statuses written, by token. */
  readonly marked: readonly string[];
  /** The dedup marker afterwards. */
  readonly dedup: 'never asked' | 'not taken' | 'settled' | 'released' | 'elsewhere';
  readonly warned?: boolean;
}

function run(s: Setup) {
  const now = () => NOW;
  const view = new FakeTriggerView('triggers' in s ? s.triggers : [plain, onJira], s.profiles ?? profilesDeclaring('jira'));
  const records = new FakeHeldJobRecords(s.live ?? []);
  if (s.createFails !== undefined) records.failCreate = s.createFails;
  if (s.markRefusedFails) records.failMarkRefused = apiError;
  const leases = new FakeLeaseStore(now);
  if (s.dedupTaken) leases.takenElsewhere(DEDUP_KEY);
  if (s.lockTaken) leases.takenElsewhere(LOCK_KEY);
  leases.down = s.valkeyDown ?? false;
  if (s.valkeyFailsAtLock) leases.failAcquire = (key) => key === LOCK_KEY;
  const history = new FakeHoldHistory(leases, new ValkeyKeys(PREFIX));
  if (s.historyDown) history.down = true;
  if (s.unlockFails) history.failUnlock = true;
  const { log, lines } = recordingLog();
  const deliverer = new Deliverer({
    view,
    records,
    once: new FakeOnceRecords(),
    leases,
    history,
    namespace: 'jobs',
    keys: new ValkeyKeys(PREFIX),
    afterMaxMs: 30 * DAY,
    now,
    log,
    lockWaitMs: 0,
  });
  return { deliverer, records, leases, history, lines };
}

const held = (trigger: string) => ({ trigger, outcome: 'held', heldJob: expect.stringMatching(/^web-7-/) });
const refused = (trigger: string, token: string) => ({ trigger, outcome: 'refused', token, heldJob: expect.stringMatching(/^web-7-/) });

describe('Deliverer.deliver', () => {
  test.each<[string, Setup, Expected]>([
    [
      'no trigger names the label: ignored, Valkey never asked',
      { triggers: [labelTrigger({ labels: ['other'] })] },
      { result: { outcome: 'ignored' }, created: [], marked: [], dedup: 'never asked' },
    ],
    [
      'no valid triggers file loaded: unavailable (the forge delivers again)',
      { triggers: undefined },
      { result: { throws: UnavailableError }, created: [], marked: [], dedup: 'never asked' },
    ],
    [
      'the same delivery is being or was handled (dedup marker taken): duplicate',
      { dedupTaken: true },
      { result: { outcome: 'duplicate' }, created: [], marked: [], dedup: 'elsewhere' },
    ],
    [
      'a trigger without conditions and one on a declared profile: both held',
      {},
      {
        result: { outcome: 'handled', results: [held('notify'), held('deploy')] },
        created: ['held', 'held'],
        marked: [],
        dedup: 'settled',
      },
    ],
    [
      'a profile that is not declared: refused at the door, recorded, status written',
      { triggers: [onJira], profiles: profilesDeclaring('ci') },
      {
        result: { outcome: 'handled', results: [refused('deploy', RefusalToken.ProfileUnknown)] },
        created: [RefusalToken.ProfileUnknown],
        marked: [RefusalToken.ProfileUnknown],
        dedup: 'settled',
      },
    ],
    [
      'after beyond the maximum from the delivery: refused at the door',
      { triggers: [labelTrigger({ waitFor: [{ after: new Date(NOW + 31 * DAY).toISOString() }] })] },
      {
        result: { outcome: 'handled', results: [refused('deploy', RefusalToken.AfterBeyondMax)] },
        created: [RefusalToken.AfterBeyondMax],
        marked: [RefusalToken.AfterBeyondMax],
        dedup: 'settled',
      },
    ],
    [
      'after within the maximum: held',
      { triggers: [labelTrigger({ waitFor: [{ after: new Date(NOW + 30 * DAY).toISOString() }] })] },
      { result: { outcome: 'handled', results: [held('deploy')] }, created: ['held'], marked: [], dedup: 'settled' },
    ],
    [
      'profiles unreadable: an undeclared profile is held, never refused (the operator pauses it)',
      { triggers: [labelTrigger({ waitFor: [{ profile: 'nobody-declared' }] })], profiles: UNREADABLE_PROFILES },
      { result: { outcome: 'handled', results: [held('deploy')] }, created: ['held'], marked: [], dedup: 'settled' },
    ],
    [
      'a live hold of the same trigger and target: superseded',
      { triggers: [onJira], live: [siblingHeldJob('web-7-deploy-aaaaaa', { status: { phase: Phase.Held } })] },
      {
        result: { outcome: 'handled', results: [refused('deploy', RefusalToken.Superseded)] },
        created: [RefusalToken.Superseded],
        marked: [RefusalToken.Superseded],
        dedup: 'settled',
      },
    ],
    [
      'a hold that finished long ago does not supersede',
      {
        triggers: [onJira],
        live: [
          siblingHeldJob('web-7-deploy-aaaaaa', { status: { phase: Phase.Succeeded, launchedAt: new Date(NOW - DAY).toISOString() } }),
        ],
      },
      { result: { outcome: 'handled', results: [held('deploy')] }, created: ['held'], marked: [], dedup: 'settled' },
    ],
    [
      'a live hold of another target does not supersede',
      { triggers: [onJira], live: [siblingHeldJob('web-8-deploy-aaaaaa', { target: 'acme/web#8', status: { phase: Phase.Held } })] },
      { result: { outcome: 'handled', results: [held('deploy')] }, created: ['held'], marked: [], dedup: 'settled' },
    ],
    [
      'Valkey unavailable: unavailable, nothing created',
      { valkeyDown: true },
      { result: { throws: UnavailableError }, created: [], marked: [], dedup: 'not taken' },
    ],
    [
      'Valkey fails at the hold lock: unavailable, the dedup marker released for the redelivery',
      { triggers: [onJira], valkeyFailsAtLock: true },
      { result: { throws: UnavailableError }, created: [], marked: [], dedup: 'released' },
    ],
    [
      'another delivery holds the hold lock past the wait: unavailable, dedup released',
      { triggers: [onJira], lockTaken: true },
      { result: { throws: UnavailableError }, created: [], marked: [], dedup: 'released' },
    ],
    [
      'Valkey fails as the hold lock is given back with the generation: still held, with a warning',
      { triggers: [onJira], unlockFails: true },
      { result: { outcome: 'handled', results: [held('deploy')] }, created: ['held'], marked: [], dedup: 'settled', warned: true },
    ],
    [
      'Valkey fails as the hold lock of a refusal is given back: still refused, no warning (no generation to remember)',
      { triggers: [onJira], profiles: profilesDeclaring(), unlockFails: true },
      {
        result: { outcome: 'handled', results: [refused('deploy', RefusalToken.ProfileUnknown)] },
        created: [RefusalToken.ProfileUnknown],
        marked: [RefusalToken.ProfileUnknown],
        dedup: 'settled',
      },
    ],
    [
      'records.create fails: the error, and the dedup marker released',
      { triggers: [plain], createFails: apiError },
      { result: { throws: apiError }, created: [], marked: [], dedup: 'released' },
    ],
    [
      'the apiserver is unavailable at create: unavailable, dedup released',
      { triggers: [plain], createFails: new UnavailableError('the apiserver is unavailable') },
      { result: { throws: UnavailableError }, created: [], marked: [], dedup: 'released' },
    ],
    [
      'markRefused fails: still refused (the operator writes the status), with a warning',
      { triggers: [onJira], profiles: profilesDeclaring(), markRefusedFails: true },
      {
        result: { outcome: 'handled', results: [refused('deploy', RefusalToken.ProfileUnknown)] },
        created: [RefusalToken.ProfileUnknown],
        marked: [],
        dedup: 'settled',
        warned: true,
      },
    ],
  ])('%s', async (_name, setup, want) => {
    const { deliverer, records, leases, lines } = run(setup);
    const delivering = deliverer.deliver(labelEvent());
    if ('throws' in want.result) {
      const e = want.result.throws;
      await (typeof e === 'function' ? expect(delivering).rejects.toBeInstanceOf(e) : expect(delivering).rejects.toBe(e));
    } else {
      expect(await delivering).toEqual(want.result);
    }
    expect(records.created.map((m) => m.metadata.annotations['waitgate.dev/refusal'] ?? 'held')).toEqual(want.created);
    expect(records.marked.map((m) => m.refusal.token)).toEqual(want.marked);
    const dedup = {
      'never asked': () => expect(leases.asked).not.toContain(DEDUP_KEY),
      'not taken': () => expect(leases.ttlOf(DEDUP_KEY)).toBeUndefined(),
      settled: () => expect(leases.ttlOf(DEDUP_KEY)).toBe(DEDUP_WINDOW_MS),
      released: () => {
        expect(leases.released).toContain(DEDUP_KEY);
        expect(leases.ttlOf(DEDUP_KEY)).toBeUndefined();
      },
      elsewhere: () => expect(leases.released).not.toContain(DEDUP_KEY),
    };
    dedup[want.dedup]();
    expect(lines.some((l) => l.level === 'warn')).toBe(want.warned ?? false);
  });
});

describe('Deliverer: what it writes and asks', () => {
  test('the Valkey keys are the ones earlier releases used, byte for byte', async () => {
    const { deliverer, leases } = run({ triggers: [onJira] });
    await deliverer.deliver(labelEvent());
    expect(leases.asked).toEqual([DEDUP_KEY, BODY_KEY, LOCK_KEY]);
    // The hold lock is given back once the hold is recorded.
    expect(leases.released).toEqual([LOCK_KEY]);
  });

  test('a delivery that holds: the lock comes with what is remembered, and goes back with the generation handed out', async () => {
    const { deliverer, history, records } = run({ triggers: [onJira] });
    // Looked before, and no hold found: the names say enough, nothing is listed.
    history.generations.set('deploy\nacme/web#7', 0);
    await deliverer.deliver(labelEvent());
    // Four round trips in all: the dedup claim, these two, and the settle.
    expect(history.calls).toEqual(['lockAndRecall', 'unlock']);
    expect(history.unlocked).toEqual([1]);
    expect(history.generations.get('deploy\nacme/web#7')).toBe(1);
    expect(records.selectors).toEqual([]);
  });

  test('the first delivery for a trigger and target lists, and remembers what it found before it holds', async () => {
    const { deliverer, history, records } = run({ triggers: [onJira] });
    await deliverer.deliver(labelEvent());
    expect(records.selectors).toHaveLength(1);
    expect(history.calls).toEqual(['lockAndRecall', 'handedOut', 'unlock']);
    expect(history.unlocked).toEqual([1]);
  });

  test('a refused delivery gives the lock back with no generation', async () => {
    const { deliverer, history, leases } = run({ triggers: [onJira], profiles: profilesDeclaring() });
    await deliverer.deliver(labelEvent());
    expect(history.calls).toEqual(['lockAndRecall', 'unlock']);
    expect(history.unlocked).toEqual([undefined]);
    expect(leases.ttlOf(LOCK_KEY)).toBeUndefined();
  });

  test('a trigger without conditions takes its hold lock too: it is bounded like one with them (#30)', async () => {
    const { deliverer, leases } = run({ triggers: [plain] });
    await deliverer.deliver(labelEvent());
    expect(leases.asked).toEqual([DEDUP_KEY, BODY_KEY, `${PREFIX}:hold-lock:${h('notify')}:${h('acme/web#7')}`]);
  });

  /** Twenty labeled deliveries of `plain` for one target; `operator` runs after each, as the operator would. */
  async function twentyRelabels(operator: (records: FakeHeldJobRecords) => Promise<void>) {
    const { deliverer, records } = run({ triggers: [plain] });
    const outcomes: string[] = [];
    for (let i = 1; i <= 20; i++) {
      const r = (await deliverer.deliver(labelEvent({ deliveryId: `d-${i}`, bodyHash: `b-${i}` }))) as Handled;
      outcomes.push(r.results[0]?.outcome ?? '');
      await operator(records);
    }
    const holds = records.created.filter((c) => c.metadata.annotations['waitgate.dev/refusal'] === undefined).map((c) => c.metadata.name);
    const made = records.created.filter((c) => c.metadata.annotations['waitgate.dev/refusal'] !== undefined);
    const record = made.length === 1 ? await records.get('jobs', made[0]?.metadata.name ?? '') : undefined;
    return { records, outcomes, holds, made, record };
  }
  /** What the operator does with a hold marked superseded and never started: ends it wait-superseded. */
  const endSuperseded = async (records: FakeHeldJobRecords) => {
    for (const c of records.created) {
      const hj = await records.get('jobs', c.metadata.name);
      if (hj?.metadata.annotations?.['waitgate.dev/superseded-by'] !== undefined && hj.status?.phase !== Phase.Refused) {
        records.setStatus('jobs', c.metadata.name, { phase: Phase.Refused, reason: RefusalToken.Superseded });
      }
    }
  };

  test('twenty quick relabels of a trigger without conditions, none started: the newest pending wins, nineteen counted on one record (#30)', async () => {
    const { records, outcomes, holds, made, record } = await twentyRelabels(endSuperseded);
    expect(outcomes.every((o) => o === 'held')).toBe(true);
    expect(holds).toHaveLength(20);
    expect(made).toHaveLength(1);
    // Each hold but the last marked superseded by the next (the operator ends and deletes them).
    const marks = records.annotated.filter((a) => a.annotations['waitgate.dev/superseded-by'] !== undefined);
    expect(marks.map((m) => [m.name, m.annotations['waitgate.dev/superseded-by']])).toEqual(
      holds.slice(0, -1).map((h, i) => [h, holds[i + 1]]),
    );
    expect(record?.metadata.annotations?.['waitgate.dev/refusal']).toBe(RefusalToken.Superseded);
    expect(tallyOf(record!).count).toBe(19);
    expect((await records.get('jobs', holds[19] ?? ''))?.metadata.annotations?.['waitgate.dev/superseded-by']).toBeUndefined();
  });

  test('twenty quick relabels with no operator about: three superseded holds wait for it, then deliveries are counted, nothing more made', async () => {
    const { outcomes, holds, made, record } = await twentyRelabels(async () => undefined);
    expect(holds).toHaveLength(4);
    expect(made).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'held')).toHaveLength(4);
    // Three superseded deliveries, and the sixteen counted while the operator did not end them.
    expect(tallyOf(record!).count).toBe(19);
  });

  test('one running and one pending: a new delivery supersedes the pending one, never the running one', async () => {
    const { deliverer, records } = run({ triggers: [plain] });
    const first = heldJobOf(((await deliverer.deliver(labelEvent({ deliveryId: 'd-1', bodyHash: 'b-1' }))) as Handled).results[0]) ?? '';
    records.setStatus('jobs', first, { phase: Phase.Running, jobName: 'j-1', launchedAt: new Date(NOW).toISOString() });
    const second = heldJobOf(((await deliverer.deliver(labelEvent({ deliveryId: 'd-2', bodyHash: 'b-2' }))) as Handled).results[0]) ?? '';
    const third = heldJobOf(((await deliverer.deliver(labelEvent({ deliveryId: 'd-3', bodyHash: 'b-3' }))) as Handled).results[0]) ?? '';
    expect(new Set([first, second, third]).size).toBe(3);
    expect((await records.get('jobs', first))?.metadata.annotations?.['waitgate.dev/superseded-by']).toBeUndefined();
    expect((await records.get('jobs', second))?.metadata.annotations?.['waitgate.dev/superseded-by']).toBe(third);
  });

  test('a pending hold that starts as it is superseded keeps running: the conflict is read again, and it is not marked', async () => {
    const { deliverer, records } = run({ triggers: [plain] });
    const first = heldJobOf(((await deliverer.deliver(labelEvent({ deliveryId: 'd-1', bodyHash: 'b-1' }))) as Handled).results[0]) ?? '';
    records.beforeAnnotate = async (name) => {
      if (name === first)
        records.setStatus('jobs', first, { phase: Phase.Running, jobName: 'j-1', launchedAt: new Date(NOW).toISOString() });
    };
    await deliverer.deliver(labelEvent({ deliveryId: 'd-2', bodyHash: 'b-2' }));
    expect((await records.get('jobs', first))?.metadata.annotations?.['waitgate.dev/superseded-by']).toBeUndefined();
    // Its delivery ran: nothing counts it as superseded.
    expect(records.created.filter((c) => c.metadata.annotations['waitgate.dev/refusal'] !== undefined)).toHaveLength(0);
  });

  test('a refusal status is written for the record created, as of the delivery', async () => {
    const { deliverer, records } = run({ triggers: [onJira], profiles: profilesDeclaring() });
    const r = (await deliverer.deliver(labelEvent())) as Extract<DeliveryResult, { outcome: 'handled' }>;
    expect(records.marked).toEqual([
      {
        namespace: 'jobs',
        name: heldJobOf(r.results[0]),
        refusal: { token: RefusalToken.ProfileUnknown, message: 'profile "jira" is not declared in waitgate-profiles' },
        now: NOW,
      },
    ]);
    expect(records.created[0]?.metadata.annotations['waitgate.dev/refusal-message']).toBe(
      'profile "jira" is not declared in waitgate-profiles',
    );
  });

  test('a second delivery for the same trigger and target is superseded by the first', async () => {
    const { deliverer } = run({ triggers: [onJira] });
    expect(await deliverer.deliver(labelEvent({ deliveryId: 'd-1' }))).toMatchObject({
      outcome: 'handled',
      results: [{ outcome: 'held' }],
    });
    expect(await deliverer.deliver(labelEvent({ deliveryId: 'd-2' }))).toMatchObject({
      outcome: 'handled',
      results: [{ outcome: 'refused', token: RefusalToken.Superseded }],
    });
  });

  test('an identical redelivery after it was handled is a duplicate', async () => {
    const { deliverer, records } = run({});
    await deliverer.deliver(labelEvent());
    expect(await deliverer.deliver(labelEvent())).toEqual({ outcome: 'duplicate' });
    expect(records.created).toHaveLength(2);
  });
});

/** A Deliverer on a clock the test moves, over the given records and triggers. */
function onClock(triggers: readonly Trigger[], live: readonly HeldJobObject[] = [], lockWaitMs = 0) {
  const clock = { now: NOW };
  const now = () => clock.now;
  const records = new FakeHeldJobRecords(live);
  const leases = new FakeLeaseStore(now);
  const history = new FakeHoldHistory(leases, new ValkeyKeys(PREFIX));
  const deliverer = new Deliverer({
    view: new FakeTriggerView(triggers, profilesDeclaring('jira')),
    records,
    once: new FakeOnceRecords(),
    leases,
    history,
    namespace: 'jobs',
    keys: new ValkeyKeys(PREFIX),
    afterMaxMs: 30 * DAY,
    now,
    log: recordingLog().log,
    lockWaitMs,
  });
  return { clock, records, leases, history, deliverer };
}

const holds = (records: FakeHeldJobRecords) => records.live.filter((o) => o.metadata.annotations?.['waitgate.dev/refusal'] === undefined);

describe('Deliverer: a redelivery meets its own HeldJobs', () => {
  test('after the dedup windows: its hold is reported, not refused, and nothing is written', async () => {
    const { clock, records, deliverer } = onClock([onJira]);
    const first = (await deliverer.deliver(labelEvent())) as Extract<DeliveryResult, { outcome: 'handled' }>;
    clock.now += BODY_DEDUP_WINDOW_MS + 1;
    expect(await deliverer.deliver(labelEvent())).toEqual({
      outcome: 'handled',
      results: [{ ...first.results[0], recordedEarlier: true }],
    });
    expect(records.created).toHaveLength(1);
    expect(records.marked).toEqual([]);
    expect(records.live[0]?.status).toBeUndefined();
  });

  test('a hold of its own that is Running is reported, and no refusal lands on it', async () => {
    // Named as a hold of this delivery was named by earlier releases.
    const own = siblingHeldJob(heldJobName(labelEvent(), onJira), {
      annotations: { 'waitgate.dev/delivery': 'd-1' },
      status: { phase: Phase.Running, launchedAt: new Date(NOW - 60_000).toISOString() },
    });
    const { records, deliverer } = onClock([onJira], [own]);
    expect(await deliverer.deliver(labelEvent())).toEqual({
      outcome: 'handled',
      results: [{ trigger: 'deploy', outcome: 'held', heldJob: own.metadata.name, recordedEarlier: true }],
    });
    expect(records.created).toEqual([]);
    expect(records.marked).toEqual([]);
    expect(records.live[0]?.status?.phase).toBe(Phase.Running);
  });

  test('after a partial failure (one trigger recorded, the next create 503): the first is reported, never refused', async () => {
    const other = labelTrigger({ name: 'deploy-b', waitFor: [{ profile: 'jira' }] });
    const { records, leases, deliverer } = onClock([onJira, other]);
    records.failCreateOf = (m) => (m.spec['trigger'] === 'deploy-b' ? new UnavailableError('the apiserver is unavailable') : undefined);
    await expect(deliverer.deliver(labelEvent())).rejects.toBeInstanceOf(UnavailableError);
    expect(leases.ttlOf(DEDUP_KEY)).toBeUndefined();
    expect(records.created).toHaveLength(1);
    const first = records.created[0]!.metadata.name;

    // The forge delivers again once the apiserver is back.
    records.failCreateOf = () => undefined;
    expect(await deliverer.deliver(labelEvent())).toEqual({
      outcome: 'handled',
      results: [
        { trigger: 'deploy', outcome: 'held', heldJob: first, recordedEarlier: true },
        { trigger: 'deploy-b', outcome: 'held', heldJob: expect.stringMatching(/^web-7-deploy-b-/) },
      ],
    });
    expect(records.marked).toEqual([]);
    expect(records.live.map((o) => o.status?.phase)).toEqual([undefined, undefined]);
  });

  test('a refusal at the door, redelivered: reported again, its status not written twice', async () => {
    const { clock, records, deliverer } = onClock([labelTrigger({ waitFor: [{ profile: 'undeclared' }] })]);
    const first = (await deliverer.deliver(labelEvent())) as Extract<DeliveryResult, { outcome: 'handled' }>;
    expect(first.results).toMatchObject([{ outcome: 'refused', token: RefusalToken.ProfileUnknown }]);
    clock.now += BODY_DEDUP_WINDOW_MS + 1;
    expect(await deliverer.deliver(labelEvent())).toEqual({
      outcome: 'handled',
      results: [{ ...first.results[0], recordedEarlier: true }],
    });
    expect(records.created).toHaveLength(1);
    expect(records.marked).toHaveLength(1);
  });
});

describe('Deliverer: the apiserver fences racing holds', () => {
  test('a create that stalls past the hold lock lets a second delivery in, and still exactly one hold', async () => {
    const { clock, records, deliverer } = onClock([onJira]);
    let second: DeliveryResult | undefined;
    records.beforeCreate = async () => {
      records.beforeCreate = undefined;
      // The first create is in flight past the hold lock's 15 s; another delivery arrives.
      clock.now += 16_000;
      second = await deliverer.deliver(labelEvent({ deliveryId: 'd-2' }));
    };
    const first = await deliverer.deliver(labelEvent({ deliveryId: 'd-1' }));
    expect(second).toMatchObject({ outcome: 'handled', results: [{ outcome: 'held' }] });
    expect(first).toMatchObject({ outcome: 'handled', results: [{ outcome: 'refused', token: RefusalToken.Superseded }] });
    expect(holds(records).map((o) => o.metadata.annotations?.['waitgate.dev/delivery'])).toEqual(['d-2']);
  });
});

describe('Deliverer: hold generations', () => {
  test('a create whose answer was lost and was retried (409 on its own hold): held, as this handling', async () => {
    const { records, deliverer } = onClock([onJira]);
    records.beforeCreate = async (m) => {
      records.beforeCreate = undefined;
      // The first attempt landed; the adapter's retry meets it.
      records.put({
        metadata: { name: m.metadata.name, namespace: 'jobs', uid: 'u', labels: m.metadata.labels, annotations: m.metadata.annotations },
      });
    };
    expect(await deliverer.deliver(labelEvent())).toEqual({
      outcome: 'handled',
      results: [{ trigger: 'deploy', outcome: 'held', heldJob: expect.stringMatching(/-1$/) }],
    });
    expect(records.live).toHaveLength(1);
  });

  test('the generation Valkey remembers is a floor: a deleted newest hold is never named again', async () => {
    const { records, history, deliverer } = onClock([onJira]);
    history.generations.set('deploy\nacme/web#7', 4);
    const r = (await deliverer.deliver(labelEvent())) as Extract<DeliveryResult, { outcome: 'handled' }>;
    expect(heldJobOf(r.results[0])).toMatch(/-5$/);
    expect(records.created[0]?.metadata.annotations['waitgate.dev/hold-generation']).toBe('5');
    expect(history.generations.get('deploy\nacme/web#7')).toBe(5);
  });

  test("a hold name taken by a HeldJob without the receiver's labels: read by its name, it is the hold in the way", async () => {
    const { records, history, deliverer } = onClock([onJira]);
    records.beforeCreate = async (m) => {
      records.beforeCreate = undefined;
      records.put({ metadata: { name: m.metadata.name, namespace: 'jobs', uid: 'u', labels: {} } });
    };
    const r = (await deliverer.deliver(labelEvent())) as Extract<DeliveryResult, { outcome: 'handled' }>;
    expect(r.results).toEqual([
      { trigger: 'deploy', outcome: 'refused', token: RefusalToken.Superseded, heldJob: expect.stringMatching(/-superseded$/) },
    ]);
    expect(records.created.map((m) => m.metadata.annotations['waitgate.dev/refusal'])).toEqual([RefusalToken.Superseded]);
    // The first look had what came with the lock (nothing: it listed, and remembered 0); the second reads Valkey again.
    expect(history.calls).toEqual(['lockAndRecall', 'handedOut', 'recall', 'unlock']);
  });

  test('a name taken every time, and gone again by the next look: unavailable after three looks, dedup released', async () => {
    const { records, leases, deliverer } = onClock([onJira]);
    records.beforeCreate = async (m) => {
      records.remove(m.metadata.name);
      records.put({ metadata: { name: m.metadata.name, namespace: 'jobs', uid: 'u', labels: {} } });
    };
    // Every read misses it, as reads racing its deletion would.
    records.get = async () => undefined;
    records.liveFor = async () => [];
    await expect(deliverer.deliver(labelEvent())).rejects.toBeInstanceOf(UnavailableError);
    expect(records.created).toEqual([]);
    expect(leases.released).toContain(DEDUP_KEY);
  });

  test('Valkey fails when the hold history is read: unavailable, nothing created, dedup released', async () => {
    const { deliverer, records, leases } = run({ triggers: [onJira], historyDown: true });
    await expect(deliverer.deliver(labelEvent())).rejects.toBeInstanceOf(UnavailableError);
    expect(records.created).toEqual([]);
    expect(leases.released).toContain(DEDUP_KEY);
  });
});

describe('Deliverer: the 15-minute window outlives the hold', () => {
  test('a hold that launched and was deleted: its marker refuses, naming it; once the marker goes, a delivery holds', async () => {
    const { records, history, deliverer } = onClock([onJira]);
    const first = (await deliverer.deliver(labelEvent({ deliveryId: 'd-1' }))) as Extract<DeliveryResult, { outcome: 'handled' }>;
    const hold = heldJobOf(first.results[0])!;
    history.leaveMarker('deploy', 'acme/web#7', hold);
    records.remove(hold);

    const second = (await deliverer.deliver(labelEvent({ deliveryId: 'd-2' }))) as Extract<DeliveryResult, { outcome: 'handled' }>;
    expect(second.results).toMatchObject([{ outcome: 'refused', token: RefusalToken.Superseded }]);
    expect(records.marked.at(-1)?.refusal.message).toBe(
      `HeldJob ${hold} finished waiting for deploy on this target less than 15 minutes ago`,
    );

    history.launched.clear();
    const third = (await deliverer.deliver(labelEvent({ deliveryId: 'd-3' }))) as Extract<DeliveryResult, { outcome: 'handled' }>;
    expect(third.results).toMatchObject([{ outcome: 'held' }]);
    // Not the deleted hold's name again: the generation moved on.
    expect(heldJobOf(third.results[0])).not.toBe(hold);
  });

  test('a stale marker, naming a HeldJob still there that never launched, refuses nothing', async () => {
    const refused = siblingHeldJob('web-7-deploy-aaaaaaaa-1', {
      annotations: { 'waitgate.dev/delivery': 'd-0', 'waitgate.dev/hold-generation': '1' },
      status: { phase: Phase.Refused, reason: RefusalToken.Expired },
    });
    const { history, deliverer } = onClock([onJira], [refused]);
    history.leaveMarker('deploy', 'acme/web#7', refused.metadata.name);
    expect(await deliverer.deliver(labelEvent())).toMatchObject({
      outcome: 'handled',
      results: [{ outcome: 'held', heldJob: expect.stringMatching(/-2$/) }],
    });
  });
});

describe('Deliverer: the same signed body under another delivery id', () => {
  const replay = (id: string) => labelEvent({ deliveryId: id, bodyHash: 'body-of-d-1' });

  test.each([
    ['at once', 0],
    ['after the delivery id window', DEDUP_WINDOW_MS + 1],
    ['just inside the body window', BODY_DEDUP_WINDOW_MS - 1],
  ])('%s: a duplicate, nothing created', async (_n, later) => {
    const { clock, records, leases, deliverer } = onClock([plain]);
    expect(await deliverer.deliver(labelEvent())).toMatchObject({ outcome: 'handled' });
    expect(leases.ttlOf(BODY_KEY)).toBe(BODY_DEDUP_WINDOW_MS);
    clock.now += later;
    expect(await deliverer.deliver(replay('d-replayed'))).toEqual({ outcome: 'duplicate' });
    expect(records.created).toHaveLength(1);
    // The replay's own id is not kept: it was never handled.
    expect(leases.ttlOf(`${PREFIX}:delivery:github:${h('d-replayed', 32)}`)).toBeUndefined();
  });

  test('after the body window, it is handled again', async () => {
    const { clock, records, deliverer } = onClock([plain]);
    await deliverer.deliver(labelEvent());
    clock.now += BODY_DEDUP_WINDOW_MS + 1;
    expect(await deliverer.deliver(replay('d-later'))).toMatchObject({ outcome: 'handled' });
    // A second hold (the first, never started here, superseded by it and counted on its record).
    expect(records.created.filter((c) => c.metadata.annotations['waitgate.dev/refusal'] === undefined)).toHaveLength(2);
  });

  test('a delivery that fails gives its body back, so the forge can deliver it again', async () => {
    const { records, leases, deliverer } = onClock([plain]);
    records.failCreateOf = () => new UnavailableError('the apiserver is unavailable');
    await expect(deliverer.deliver(labelEvent())).rejects.toBeInstanceOf(UnavailableError);
    expect(leases.released).toEqual(expect.arrayContaining([DEDUP_KEY, BODY_KEY]));
    records.failCreateOf = () => undefined;
    expect(await deliverer.deliver(replay('d-again'))).toMatchObject({ outcome: 'handled' });
  });
});

describe('Deliverer: a once trigger fires at most once per target', () => {
  const onceTrigger = { ...plain, on: { ...plain.on, once: true } } satisfies Trigger;
  /** A receiver with a Valkey of its own (fresh, as after a flush), over the given apiserver records. */
  function onceSetup(world: { records?: FakeHeldJobRecords; once?: FakeOnceRecords } = {}) {
    const records = world.records ?? new FakeHeldJobRecords();
    const once = world.once ?? new FakeOnceRecords();
    const { log, lines } = recordingLog();
    const leases = new FakeLeaseStore(() => NOW);
    const deliverer = new Deliverer({
      view: new FakeTriggerView([onceTrigger], profilesDeclaring()),
      records,
      once,
      leases,
      history: new FakeHoldHistory(leases, new ValkeyKeys(PREFIX)),
      namespace: 'jobs',
      keys: new ValkeyKeys(PREFIX),
      afterMaxMs: 30 * DAY,
      now: () => NOW,
      log,
      lockWaitMs: 0,
    });
    return { records, once, deliverer, lines };
  }
  const results = (r: DeliveryResult) => (r as Extract<DeliveryResult, { outcome: 'handled' }>).results;

  test('the first delivery holds; a later one is once-spent, names the HeldJob that spent it, and creates nothing', async () => {
    const { records, once, deliverer } = onceSetup();
    const first = results(await deliverer.deliver(labelEvent({ deliveryId: 'd-1' })));
    expect(first).toEqual([held('notify')]);
    expect([...once.records.values()]).toEqual([
      expect.objectContaining({ delivery: 'd-1', state: 'fired', heldJob: heldJobOf(first[0]) }),
    ]);
    const second = results(await deliverer.deliver(labelEvent({ deliveryId: 'd-2' })));
    expect(second).toEqual([{ trigger: 'notify', outcome: 'once-spent', spentBy: heldJobOf(first[0]) }]);
    expect(records.created).toHaveLength(1);
  });

  test('still spent when its HeldJob is deleted and Valkey forgets everything', async () => {
    const { records, once, deliverer } = onceSetup();
    const first = results(await deliverer.deliver(labelEvent({ deliveryId: 'd-1' })));
    records.remove(heldJobOf(first[0])!);
    const again = onceSetup({ records, once }).deliverer;
    expect(results(await again.deliver(labelEvent({ deliveryId: 'd-2' })))).toMatchObject([{ outcome: 'once-spent' }]);
    // The same delivery handled again (its dedup key gone) creates nothing either: its record says fired.
    expect(results(await again.deliver(labelEvent({ deliveryId: 'd-1' })))).toEqual([{ ...held('notify'), recordedEarlier: true }]);
    expect(records.created).toHaveLength(1);
  });

  test('another target, or another once trigger, is not spent', async () => {
    const { records, deliverer } = onceSetup();
    await deliverer.deliver(labelEvent({ deliveryId: 'd-1' }));
    expect(results(await deliverer.deliver(labelEvent({ deliveryId: 'd-2', target: 'acme/web#8' })))).toMatchObject([{ outcome: 'held' }]);
    expect(records.created).toHaveLength(2);
  });

  test('the HeldJob create fails after the claim: the delivery is not lost; the same delivery again goes on', async () => {
    const { records, once, deliverer } = onceSetup();
    records.failCreate = new UnavailableError('the apiserver is unavailable');
    await expect(deliverer.deliver(labelEvent({ deliveryId: 'd-1' }))).rejects.toBeInstanceOf(UnavailableError);
    expect([...once.records.values()]).toEqual([expect.objectContaining({ delivery: 'd-1', state: 'claimed' })]);
    records.failCreate = undefined;
    // Another delivery meanwhile finds the trigger spent: the claim holds.
    expect(results(await deliverer.deliver(labelEvent({ deliveryId: 'd-2' })))).toMatchObject([{ outcome: 'once-spent' }]);
    // The forge's redelivery of d-1 creates its HeldJob.
    expect(results(await deliverer.deliver(labelEvent({ deliveryId: 'd-1' })))).toEqual([held('notify')]);
    expect(records.created).toHaveLength(1);
    expect([...once.records.values()]).toEqual([expect.objectContaining({ delivery: 'd-1', state: 'fired' })]);
  });

  test('two deliveries at once: one holds, the other is once-spent', async () => {
    const { records, once, deliverer } = onceSetup();
    let arrived = 0;
    let release: () => void = () => undefined;
    const both = new Promise<void>((r) => (release = r));
    once.beforeClaim = async () => {
      if (++arrived === 2) release();
      await both;
    };
    const [a, b] = await Promise.all([
      deliverer.deliver(labelEvent({ deliveryId: 'd-1' })),
      deliverer.deliver(labelEvent({ deliveryId: 'd-2' })),
    ]);
    expect([...results(a), ...results(b)].map((x) => x.outcome).sort()).toEqual(['held', 'once-spent']);
    expect(records.created).toHaveLength(1);
  });

  test('marking the record fired fails: held all the same, and a warning', async () => {
    const { once, deliverer, lines } = onceSetup();
    once.failMarkFired = apiError;
    expect(results(await deliverer.deliver(labelEvent({ deliveryId: 'd-1' })))).toEqual([held('notify')]);
    expect(lines).toContainEqual({ level: 'warn', msg: 'Failed to mark once record fired' });
  });
});

describe('Deliverer: refusals cost a bounded amount (one label toggled)', () => {
  const TOGGLES = 50;
  const deliveries = (n: number) => Array.from({ length: n }, (_, i) => labelEvent({ deliveryId: `t-${i}` }));
  const annotationsOf = (records: FakeHeldJobRecords, name: string | undefined) =>
    records.live.find((o) => o.metadata.name === name)?.metadata.annotations ?? {};

  test('a label toggled again and again: one hold and one record counting every refusal, read by name, not listed', async () => {
    const withImage = labelTrigger({ waitFor: [{ profile: 'jira' }] });
    const { clock, records, deliverer } = onClock([withImage]);
    const answers: DeliveryResult[] = [];
    for (const e of deliveries(TOGGLES)) {
      clock.now += 1000;
      answers.push(await deliverer.deliver(e));
    }
    const results = answers.map((a) => (a as Extract<DeliveryResult, { outcome: 'handled' }>).results[0]);
    expect(results.filter((r) => r?.outcome === 'held')).toHaveLength(1);
    const refusedTo = new Set(results.filter((r) => r?.outcome === 'refused').map(heldJobOf));
    expect(refusedTo.size).toBe(1);
    const record = [...refusedTo][0];
    expect(record).toMatch(/-superseded$/);

    // Two HeldJobs, whatever the number of deliveries; one refusal status written, at the first.
    expect(records.created.map((m) => m.metadata.annotations['waitgate.dev/refusal'] ?? 'held')).toEqual(['held', 'wait-superseded']);
    expect(records.marked).toHaveLength(1);
    expect(annotationsOf(records, record)).toMatchObject({
      'waitgate.dev/refusal': RefusalToken.Superseded,
      'waitgate.dev/refusal-count': String(TOGGLES - 1),
      'waitgate.dev/refusal-first-seen': new Date(NOW + 2000).toISOString(),
      'waitgate.dev/refusal-last-seen': new Date(NOW + TOGGLES * 1000).toISOString(),
      'waitgate.dev/refusal-last-delivery': `t-${TOGGLES - 1}`,
      'waitgate.dev/delivery': 't-1',
    });
    // The record carries no Job: the hold does.
    const recordObject = records.live.find((o) => o.metadata.name === record);
    expect(recordObject?.spec).toEqual({ target: 'acme/web#7', trigger: 'deploy', job: { template: {} } });
    expect(JSON.stringify(recordObject)).not.toContain('busybox');
    expect(JSON.stringify(holds(records))).toContain('busybox');

    // One LIST, for the first delivery, when Valkey remembered no generation; then GETs by name,
    // a handful per delivery however many records the target has had.
    expect(records.selectors).toHaveLength(1);
    const before = records.gets.length;
    await deliverer.deliver(labelEvent({ deliveryId: 'one-more' }));
    expect(records.selectors).toHaveLength(1);
    expect(records.gets.length - before).toBeLessThanOrEqual(6);
  });

  test('refused at the door again and again: one record, counted; never a list, never a second status', async () => {
    const { records, deliverer } = onClock([labelTrigger({ waitFor: [{ profile: 'undeclared' }] })]);
    for (const e of deliveries(TOGGLES)) {
      expect(await deliverer.deliver(e)).toMatchObject({ results: [{ outcome: 'refused', token: RefusalToken.ProfileUnknown }] });
    }
    expect(records.created).toHaveLength(1);
    expect(records.marked).toHaveLength(1);
    expect(records.selectors).toEqual([]);
    expect(annotationsOf(records, records.created[0]?.metadata.name)['waitgate.dev/refusal-count']).toBe(String(TOGGLES));
  });

  test('a counted delivery, redelivered after its dedup keys went: reported as recorded earlier, not counted twice', async () => {
    const { clock, records, deliverer } = onClock([onJira]);
    await deliverer.deliver(labelEvent({ deliveryId: 'first' }));
    const refusedOnce = (await deliverer.deliver(labelEvent({ deliveryId: 'second' }))) as Extract<DeliveryResult, { outcome: 'handled' }>;
    await deliverer.deliver(labelEvent({ deliveryId: 'third' }));
    const name = heldJobOf(refusedOnce.results[0]);
    expect(annotationsOf(records, name)['waitgate.dev/refusal-count']).toBe('2');
    clock.now += BODY_DEDUP_WINDOW_MS + 1;
    const writes = records.annotated.length;
    expect(await deliverer.deliver(labelEvent({ deliveryId: 'second' }))).toEqual({
      outcome: 'handled',
      results: [{ ...refusedOnce.results[0], recordedEarlier: true }],
    });
    expect(records.annotated).toHaveLength(writes);
    expect(annotationsOf(records, name)['waitgate.dev/refusal-count']).toBe('2');
  });

  test('another replica counts on the record between the read and the write: counted on top of it, nothing lost', async () => {
    const { records, deliverer } = onClock([labelTrigger({ waitFor: [{ profile: 'undeclared' }] })]);
    await deliverer.deliver(labelEvent({ deliveryId: 'a' }));
    const name = records.created[0]!.metadata.name;
    records.beforeAnnotate = async () => {
      records.beforeAnnotate = undefined;
      records.touch(name, { 'waitgate.dev/refusal-count': '7', 'waitgate.dev/refusal-deliveries': 'github/a github/elsewhere' });
    };
    expect(await deliverer.deliver(labelEvent({ deliveryId: 'b' }))).toMatchObject({ results: [{ outcome: 'refused', heldJob: name }] });
    expect(annotationsOf(records, name)).toMatchObject({
      'waitgate.dev/refusal-count': '8',
      'waitgate.dev/refusal-deliveries': 'github/a github/elsewhere github/b',
    });
  });

  test('the record is deleted (its time to live) between the read and the count: the refusal starts a new one', async () => {
    const { records, deliverer } = onClock([labelTrigger({ waitFor: [{ profile: 'undeclared' }] })]);
    await deliverer.deliver(labelEvent({ deliveryId: 'a' }));
    const name = records.created[0]!.metadata.name;
    records.beforeAnnotate = async () => {
      records.beforeAnnotate = undefined;
      records.remove(name);
    };
    expect(await deliverer.deliver(labelEvent({ deliveryId: 'b' }))).toMatchObject({ results: [{ outcome: 'refused', heldJob: name }] });
    expect(records.created).toHaveLength(2);
    expect(records.marked).toHaveLength(2);
    expect(annotationsOf(records, name)).toMatchObject({ 'waitgate.dev/refusal-count': '1', 'waitgate.dev/delivery': 'b' });
  });

  test('the first create of a record landed and its answer was lost (409 on the retry): refused now, not "earlier"', async () => {
    const { records, deliverer } = onClock([labelTrigger({ waitFor: [{ profile: 'undeclared' }] })]);
    records.beforeCreate = async (m) => {
      records.beforeCreate = undefined;
      records.put({
        metadata: { name: m.metadata.name, namespace: 'jobs', uid: 'u', labels: m.metadata.labels, annotations: m.metadata.annotations },
      });
    };
    expect(await deliverer.deliver(labelEvent())).toEqual({
      outcome: 'handled',
      results: [
        { trigger: 'deploy', outcome: 'refused', token: RefusalToken.ProfileUnknown, heldJob: expect.stringMatching(/-profile-unknown$/) },
      ],
    });
    expect(records.annotated).toEqual([]);
  });

  test("a HeldJob under the record's name that is no refusal record: nothing is counted onto it", async () => {
    const trig = labelTrigger({ waitFor: [{ profile: 'undeclared' }] });
    const { records, deliverer } = onClock([trig]);
    await deliverer.deliver(labelEvent({ deliveryId: 'a' }));
    const name = records.created[0]!.metadata.name;
    records.remove(name);
    records.put(siblingHeldJob(name, { annotations: { 'waitgate.dev/delivery': 'someone' } }));
    expect(await deliverer.deliver(labelEvent({ deliveryId: 'b' }))).toMatchObject({
      results: [{ outcome: 'refused', token: RefusalToken.ProfileUnknown, heldJob: name }],
    });
    expect(records.annotated).toEqual([]);
  });
});

describe('Deliverer: holds are read by name from the generation Valkey remembers', () => {
  const waiting = (generation: number, delivery = 'other') =>
    siblingHeldJob(`web-7-deploy-${h('deploy\nacme/web#7', 8)}-${generation}`, {
      annotations: { 'waitgate.dev/delivery': delivery, 'waitgate.dev/hold-generation': String(generation) },
      status: { phase: Phase.Held },
    });

  const finished = (generation: number) => ({
    ...waiting(generation),
    status: { phase: Phase.Succeeded, launchedAt: new Date(NOW - DAY).toISOString() },
  });

  test('the hold name is the one plan.ts gives, for these fixtures', async () => {
    const { holdName } = await import('./plan.js');
    expect(waiting(3).metadata.name).toBe(holdName('acme/web#7', 'deploy', 3));
  });

  test('waiting for the lock, a delivery reads what is remembered as it takes it, not before', async () => {
    const { clock, records, leases, history, deliverer } = onClock([onJira], [], 10_000);
    leases.takenElsewhere(LOCK_KEY);
    const lockAndRecall = history.lockAndRecall.bind(history);
    let refusals = 0;
    history.lockAndRecall = async (trigger, target, ttlMs) => {
      const taken = await lockAndRecall(trigger, target, ttlMs);
      if (taken === undefined && ++refusals === 1) {
        // Meanwhile the delivery holding the lock makes hold 1, and gives the lock back remembering it.
        records.put(waiting(1));
        history.generations.set('deploy\nacme/web#7', 1);
        leases.releaseElsewhere(LOCK_KEY);
      }
      clock.now += 1_000;
      return taken;
    };
    expect(await deliverer.deliver(labelEvent())).toMatchObject({ results: [{ token: RefusalToken.Superseded }] });
    expect(refusals).toBe(1);
    // Read by its name from the generation that came with the lock: nothing listed.
    expect(records.selectors).toEqual([]);
    expect(history.calls).toEqual(['lockAndRecall', 'lockAndRecall', 'unlock']);
  });

  test('another delivery keeps the lock past the wait: unavailable, and nothing of the history read', async () => {
    const { clock, records, leases, history, deliverer } = onClock([onJira], [], 3_000);
    leases.takenElsewhere(LOCK_KEY);
    const lockAndRecall = history.lockAndRecall.bind(history);
    history.lockAndRecall = async (trigger, target, ttlMs) => {
      clock.now += 1_000;
      return lockAndRecall(trigger, target, ttlMs);
    };
    await expect(deliverer.deliver(labelEvent())).rejects.toBeInstanceOf(UnavailableError);
    expect(history.calls).toEqual(['lockAndRecall', 'lockAndRecall', 'lockAndRecall']);
    expect(records.gets).toEqual([]);
    expect(leases.ttlOf(LOCK_KEY)).toBeDefined();
  });

  test('Valkey lost its memory while a hold waits: one list finds it (superseded), and Valkey remembers it again', async () => {
    const { records, history, deliverer } = onClock([onJira], [waiting(4)]);
    expect(await deliverer.deliver(labelEvent({ deliveryId: 'a' }))).toMatchObject({ results: [{ token: RefusalToken.Superseded }] });
    expect(records.selectors).toHaveLength(1);
    expect(history.generations.get('deploy\nacme/web#7')).toBe(4);
    expect(await deliverer.deliver(labelEvent({ deliveryId: 'b' }))).toMatchObject({ results: [{ token: RefusalToken.Superseded }] });
    expect(records.selectors).toHaveLength(1);
  });

  test('Valkey behind (a write of it failed): the probe goes on upwards to the hold in the way, and catches Valkey up', async () => {
    const { records, history, deliverer } = onClock([onJira], [finished(2), waiting(3)]);
    history.generations.set('deploy\nacme/web#7', 1);
    expect(await deliverer.deliver(labelEvent())).toMatchObject({ results: [{ token: RefusalToken.Superseded }] });
    expect(records.selectors).toEqual([]);
    expect(records.gets).toEqual(
      expect.arrayContaining([waiting(1).metadata.name, waiting(2).metadata.name, waiting(3).metadata.name, waiting(4).metadata.name]),
    );
    expect(history.generations.get('deploy\nacme/web#7')).toBe(3);
    expect(records.live.find((o) => o.metadata.name.endsWith('-superseded'))?.metadata.annotations?.['waitgate.dev/refusal-message']).toBe(
      `HeldJob ${waiting(3).metadata.name} already holds deploy for this target`,
    );
  });

  test('the remembered hold is not here (another install handed it out): listed, so a live hold of ours below it is not missed', async () => {
    const { records, history, deliverer } = onClock([onJira], [waiting(2)]);
    history.generations.set('deploy\nacme/web#7', 9);
    expect(await deliverer.deliver(labelEvent())).toMatchObject({ results: [{ token: RefusalToken.Superseded }] });
    expect(records.selectors).toHaveLength(1);
    expect(records.created.map((m) => m.metadata.annotations['waitgate.dev/refusal'])).toEqual([RefusalToken.Superseded]);
  });

  test('refused at the door while Valkey remembers nothing: the records are read by name, nothing listed', async () => {
    const { records, deliverer } = onClock([labelTrigger({ waitFor: [{ profile: 'undeclared' }] })], [waiting(2)]);
    expect(await deliverer.deliver(labelEvent())).toMatchObject({ results: [{ token: RefusalToken.ProfileUnknown }] });
    expect(records.selectors).toEqual([]);
  });

  test('its own hold, redelivered, when the door would now refuse it (the profile since undeclared): reported as its hold', async () => {
    const { records, history, deliverer } = onClock([labelTrigger({ waitFor: [{ profile: 'undeclared' }] })], [waiting(1, 'd-1')]);
    history.generations.set('deploy\nacme/web#7', 1);
    expect(await deliverer.deliver(labelEvent())).toEqual({
      outcome: 'handled',
      results: [{ trigger: 'deploy', outcome: 'held', heldJob: waiting(1).metadata.name, recordedEarlier: true }],
    });
    expect(records.created).toEqual([]);
  });
});

describe('run.pinRevision: the hold records the commit the labeller saw', () => {
  const SHA = 'c'.repeat(40);
  const HEAD = 'd'.repeat(40);
  const pinned = labelTrigger({ waitFor: [{ profile: 'jira' }], pinRevision: true });
  const pinnedPlain = labelTrigger({ name: 'notify', pinRevision: true });

  function setup(triggers: Trigger[], reader?: { head?: string; fails?: boolean }) {
    const now = () => NOW;
    const records = new FakeHeldJobRecords([]);
    const reads: string[] = [];
    const leases = new FakeLeaseStore(now);
    const deliverer = new Deliverer({
      view: new FakeTriggerView(triggers, profilesDeclaring('jira')),
      records,
      once: new FakeOnceRecords(),
      leases,
      history: new FakeHoldHistory(leases, new ValkeyKeys(PREFIX)),
      namespace: 'jobs',
      keys: new ValkeyKeys(PREFIX),
      afterMaxMs: 30 * DAY,
      now,
      log: recordingLog().log,
      lockWaitMs: 0,
      ...(reader
        ? {
            revisions: {
              defaultBranchHead: async (forge, repository) => {
                reads.push(`${forge}:${repository}`);
                if (reader.fails) throw new Error('HTTP 502');
                return reader.head ?? HEAD;
              },
            },
          }
        : {}),
    });
    return { deliverer, records, reads };
  }
  const revisionOf = (r: FakeHeldJobRecords) => r.created.map((m) => m.spec['revision']);

  test.each<[string, Trigger[], Partial<Parameters<typeof labelEvent>[0]>, string | undefined, string[]]>([
    ['a pull request: the head the payload gave, no forge read', [pinned], { kind: 'pull_request', revision: SHA }, SHA, []],
    ['an issue: the default branch’s head, read now', [pinned], {}, HEAD, ['github:acme/web']],
    ['a trigger without conditions pins as well', [pinnedPlain], {}, HEAD, ['github:acme/web']],
    [
      'an Azure DevOps work item: read from Azure',
      [labelTrigger({ kind: 'agent', pinRevision: true })],
      { forge: 'azure', target: 'proj/proj#5' },
      HEAD,
      ['azure:proj/proj'],
    ],
    ['a trigger that does not pin records nothing, even given a head', [onJira], { revision: SHA }, undefined, []],
  ])('%s', async (_n, triggers, event, revision, reads) => {
    const s = setup(triggers, {});
    const r = await s.deliverer.deliver(labelEvent(event));
    expect(r).toMatchObject({ outcome: 'handled', results: [{ outcome: 'held' }] });
    expect(revisionOf(s.records)).toEqual([revision]);
    expect(s.reads).toEqual(reads);
  });

  test.each<[string, { fails?: boolean } | undefined]>([
    ['the head cannot be read', { fails: true }],
    ['no API token to read it with', undefined],
  ])('%s: unavailable (the forge delivers again), nothing created unpinned', async (_n, reader) => {
    const s = setup([pinned], reader);
    await expect(s.deliverer.deliver(labelEvent())).rejects.toThrow(UnavailableError);
    expect(s.records.created).toEqual([]);
  });
});

describe('Deliverer: receiver.confirmLabels asks the forge before holding (#30)', () => {
  function setup(
    onTarget: readonly string[] | 'fails',
    triggers: Trigger[] = [labelTrigger(), labelTrigger({ name: 'other', labels: ['other'] })],
  ) {
    const now = () => NOW;
    const records = new FakeHeldJobRecords([]);
    const leases = new FakeLeaseStore(now);
    const asked: string[] = [];
    const deliverer = new Deliverer({
      view: new FakeTriggerView(triggers, profilesDeclaring()),
      records,
      once: new FakeOnceRecords(),
      leases,
      history: new FakeHoldHistory(leases, new ValkeyKeys(PREFIX)),
      namespace: 'jobs',
      keys: new ValkeyKeys(PREFIX),
      afterMaxMs: 30 * DAY,
      now,
      log: recordingLog().log,
      lockWaitMs: 0,
      labels: {
        currentLabels: (forge, target) => {
          asked.push(`${forge}:${target}`);
          return onTarget === 'fails' ? Promise.reject(new Error('HTTP 502')) : Promise.resolve(onTarget);
        },
      },
    });
    return { deliverer, records, leases, asked };
  }

  test.each<[string, readonly string[], Partial<Parameters<typeof labelEvent>[0]>, readonly string[]]>([
    ['the label is on the target: held', ['deploy', 'bug'], {}, ['held']],
    ['the label is not on the target (a forged or stale delivery): unconfirmed, nothing created', ['bug'], {}, ['unconfirmed']],
    ['no labels at all: unconfirmed', [], {}, ['unconfirmed']],
    ['labels compare exactly: a near name is not the label', ['Deploy'], {}, ['unconfirmed']],
    ['two triggers: each on its own label', ['other'], { addedLabels: ['deploy', 'other'] }, ['unconfirmed', 'held']],
    [
      'a label on the target that the delivery did not say was added confirms nothing',
      ['other'],
      { addedLabels: ['deploy'] },
      ['unconfirmed'],
    ],
  ])('%s', async (_n, onTarget, event, outcomes) => {
    const s = setup(onTarget);
    const r = await s.deliverer.deliver(labelEvent(event));
    expect(r.outcome).toBe('handled');
    expect(r.outcome === 'handled' ? r.results.map((x) => x.outcome) : []).toEqual(outcomes);
    expect(s.records.created.length).toBe(outcomes.filter((o) => o === 'held').length);
    expect(s.asked).toEqual(['github:acme/web#7']);
  });

  test('the forge cannot be asked: unavailable (the forge delivers again), nothing created, the dedup claim given back', async () => {
    const s = setup('fails');
    await expect(s.deliverer.deliver(labelEvent())).rejects.toThrow(UnavailableError);
    expect(s.records.created).toEqual([]);
    await expect(s.deliverer.deliver(labelEvent())).rejects.toThrow(UnavailableError);
    expect(s.asked.length).toBe(2);
  });

  test('a delivery no trigger matches never asks the forge', async () => {
    const s = setup(['deploy']);
    expect(await s.deliverer.deliver(labelEvent({ addedLabels: ['unrelated'] }))).toEqual({ outcome: 'ignored' });
    expect(s.asked).toEqual([]);
  });
});

describe('Deliverer: an OnceRecord has a lifetime (#30, finding 7)', () => {
  const onceTrigger: Trigger = { ...labelTrigger({ name: 'welcome' }), on: { type: 'label', any: ['deploy'], once: true } };
  function setup(now: { t: number }) {
    const leases = new FakeLeaseStore(() => now.t);
    const once = new FakeOnceRecords();
    const records = new FakeHeldJobRecords([]);
    const deliverer = new Deliverer({
      view: new FakeTriggerView([onceTrigger], profilesDeclaring()),
      records,
      once,
      leases,
      history: new FakeHoldHistory(leases, new ValkeyKeys(PREFIX)),
      namespace: 'jobs',
      keys: new ValkeyKeys(PREFIX),
      afterMaxMs: 30 * DAY,
      now: () => now.t,
      log: recordingLog().log,
      lockWaitMs: 0,
      onceTtlMs: 10 * DAY,
    });
    return { deliverer, once, records };
  }

  test.each<[string, number, string, number]>([
    ['inside its lifetime: spent', 9 * DAY, 'once-spent', 0],
    ['past its lifetime: deleted, and the trigger fires once more', 10 * DAY + 1, 'held', 1],
  ])('%s', async (_n, later, outcome, expired) => {
    const now = { t: NOW };
    const s = setup(now);
    expect(await s.deliverer.deliver(labelEvent({ deliveryId: 'd-1' }))).toMatchObject({ results: [{ outcome: 'held' }] });
    expect(s.once.claims[0]?.metadata.annotations['waitgate.dev/expires-at']).toBe(new Date(NOW + 10 * DAY).toISOString());
    now.t = NOW + later;
    expect(await s.deliverer.deliver(labelEvent({ deliveryId: 'd-2', bodyHash: 'b-2' }))).toMatchObject({ results: [{ outcome }] });
    expect(s.once.expired).toHaveLength(expired);
    expect(s.records.created).toHaveLength(1 + expired);
  });
});

describe('Deliverer: a pull request whose forge sends every label at every update (#30, finding 4)', () => {
  function setup(seenBefore: readonly string[] | undefined, failCreate = false) {
    const now = () => NOW;
    const records = new FakeHeldJobRecords([]);
    if (failCreate) records.failCreate = Object.assign(new Error('apiserver down'), { code: 503 });
    const leases = new FakeLeaseStore(now);
    let seen = seenBefore;
    const remembered: (readonly string[])[] = [];
    const deliverer = new Deliverer({
      view: new FakeTriggerView([labelTrigger({ name: 'notify', kind: 'azure' }), plain], profilesDeclaring()),
      records,
      once: new FakeOnceRecords(),
      leases,
      history: new FakeHoldHistory(leases, new ValkeyKeys(PREFIX)),
      namespace: 'jobs',
      keys: new ValkeyKeys(PREFIX),
      afterMaxMs: 30 * DAY,
      now,
      log: recordingLog().log,
      lockWaitMs: 0,
      seenLabels: {
        added: (_f, _t, labels) => Promise.resolve(seen === undefined ? [...labels] : labels.filter((l) => !seen?.includes(l))),
        remember: (_f, _t, labels) => {
          remembered.push(labels);
          seen = labels;
          return Promise.resolve();
        },
      },
    });
    return { deliverer, records, remembered };
  }
  const update = (labels: string[], id = 'd-1') =>
    labelEvent({
      forge: 'azure',
      target: 'proj/web!12',
      kind: 'merge_request',
      addedLabels: labels,
      labelsAreWholeSet: true,
      deliveryId: id,
      bodyHash: `b-${id}`,
    });

  test.each<[string, readonly string[] | undefined, string[], string]>([
    ['nothing seen before: its labels count as added', undefined, ['deploy'], 'handled'],
    ['the label seen before (a push, a vote): nothing fires', ['deploy'], ['deploy'], 'ignored'],
    ['a label added beside one seen: it fires', ['bug'], ['bug', 'deploy'], 'handled'],
  ])('%s', async (_n, before, labels, outcome) => {
    const s = setup(before);
    expect((await s.deliverer.deliver(update(labels))).outcome).toBe(outcome);
    expect(s.remembered).toEqual([labels]);
  });

  test('a delivery that fails (503) remembers nothing: its redelivery finds its label still new', async () => {
    const s = setup(undefined, true);
    await expect(s.deliverer.deliver(update(['deploy']))).rejects.toThrow();
    expect(s.remembered).toEqual([]);
  });

  test('an event with its added labels only (GitHub, a work item) is never told against what was seen', async () => {
    const s = setup(['deploy']);
    expect((await s.deliverer.deliver(labelEvent())).outcome).toBe('handled');
    expect(s.remembered).toEqual([]);
  });
});
