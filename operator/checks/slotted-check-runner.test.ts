import { describe, expect, test } from '@jest/globals';
import { CheckVerdict } from '../../api/check-verdict.js';
import { ProfileMode, type Profile } from '../../api/profiles.js';
import {
  answerWhenAborted,
  captureLog,
  checkAnswer,
  deferred,
  FakeCheckGateMetrics,
  FakeCheckRunner,
  FakeSlots,
  LogLevel,
  ManualClock,
  T0,
  type CheckRunCall,
} from '../../test/support/fakes.js';
import type { CheckAnswer } from './exec-check.js';
import { WorkQueue } from '../controller/work-queue.js';

/** Lets pending promise callbacks run until `probe` holds (a few turns at most). */
async function until(probe: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !probe(); i++) await new Promise((r) => setImmediate(r));
  expect(probe()).toBe(true);
}
import { checkActiveMs, HAND_ON_MS, resultOf, SlottedCheckGate, type CheckGateOptions } from './slotted-check-runner.js';
import { splitKey } from '../controller/object-key.js';
import type { CheckResult } from '../decide/record-check.js';

const SLOT_KEY = 'wg:{checks}:slots';
const ACTIVE_KEY = 'wg:{checks}:active';
/** A namespace's check slots (readable here; ValkeyKeys hashes the namespace). */
const nsKey = (namespace: string): string => `wg:{checks}:ns:${namespace}`;
const SLOT_KEYS = { fleet: SLOT_KEY, active: ACTIVE_KEY, ofNamespace: nsKey };
/** Where a check slot of `namespace` is taken. */
const placeIn = (namespace: string, limit = 2) => ({ fleetKey: SLOT_KEY, namespaceKey: nsKey(namespace), activeKey: ACTIVE_KEY, limit });
const TTL = 60_000;
const WORKER = 'op-0';
const KEY = 'team-a/web-7';
const UID = '0b8e7c1a-5d2f-4c3e-9a61-7f00c0ffee07';
/** The token of KEY's check slot: this worker, this HeldJob, this incarnation of it. */
const TOKEN = `${WORKER}/${KEY}/${UID}`;
/** The uid of each HeldJob in the informer's cache: KEY's is UID; any other has one of its own. */
const uidInCache = (key: string): string | undefined => (key === KEY ? UID : `uid-of-${key}`);
const TARGET = 'acme/web#7';
const PROFILE: Profile = { name: 'ci', mode: ProfileMode.Exec, script: 'wait-ci.sh' };

function gateWith(
  o: {
    slotLimit?: number;
    runner?: FakeCheckRunner;
    slots?: FakeSlots;
    workerName?: string;
    uidOf?: (key: string) => string | undefined;
    onPlaceFreed?: (key: string) => void;
    checksOf?: (key: string) => number | undefined;
    knobs?: Partial<CheckGateOptions['knobs']>;
  } = {},
) {
  const clock = new ManualClock();
  const slots = o.slots ?? new FakeSlots(clock.now);
  const runner = o.runner ?? new FakeCheckRunner();
  const metrics = new FakeCheckGateMetrics();
  const { log, lines } = captureLog();
  const options: CheckGateOptions = {
    slots,
    runner,
    metrics,
    log,
    now: clock.now,
    slotKeys: SLOT_KEYS,
    slotLimit: o.slotLimit ?? 2,
    workerName: o.workerName ?? WORKER,
    uidOf: o.uidOf ?? uidInCache,
    leaseTtlMs: TTL,
    knobs: { checkSlots: o.slotLimit ?? 2, intervalMs: 30_000, concurrency: 10, ...o.knobs },
    ...(o.onPlaceFreed ? { onPlaceFreed: o.onPlaceFreed } : {}),
    ...(o.checksOf ? { checksOf: o.checksOf } : {}),
  };
  return { gate: new SlottedCheckGate(options), slots, runner, metrics, clock, lines };
}

/** Takes every slot for someone else, so the next acquire is refused. */
function fill(slots: FakeSlots, limit: number): void {
  for (let i = 0; i < limit; i++) slots.hold(SLOT_KEY, `other/${i}`, T0 + 10 * TTL);
}

describe('resultOf: an answer as the gate records it', () => {
  test.each<[string, Partial<CheckAnswer>, CheckResult]>([
    ['exit 0', { exitCode: 0 }, { profile: 'ci', verdict: CheckVerdict.Go, exitCode: 0 }],
    ['exit 3', { exitCode: 3 }, { profile: 'ci', verdict: CheckVerdict.NotYet, exitCode: 3 }],
    ['exit 2', { exitCode: 2 }, { profile: 'ci', verdict: CheckVerdict.Never, exitCode: 2 }],
    ['exit 1', { exitCode: 1 }, { profile: 'ci', verdict: CheckVerdict.CouldNotTell, exitCode: 1 }],
    ['exit 7', { exitCode: 7 }, { profile: 'ci', verdict: CheckVerdict.CouldNotTell, exitCode: 7 }],
    [
      'timed out, killed',
      { exitCode: null, signal: 'SIGTERM', timedOut: true },
      { profile: 'ci', verdict: CheckVerdict.CouldNotTell, exitCode: undefined, detail: 'timed out' },
    ],
    [
      'timed out, then exit 0: still a timeout',
      { exitCode: 0, timedOut: true },
      { profile: 'ci', verdict: CheckVerdict.CouldNotTell, exitCode: undefined, detail: 'timed out' },
    ],
    [
      'a spawn error',
      { exitCode: null, spawnError: 'ENOENT' },
      { profile: 'ci', verdict: CheckVerdict.CouldNotTell, exitCode: undefined, detail: 'could not start (ENOENT)' },
    ],
    [
      'a Pod that could not start',
      { exitCode: null, spawnError: 'ImagePullBackOff' },
      { profile: 'ci', verdict: CheckVerdict.CouldNotTell, exitCode: undefined, detail: 'could not start (ImagePullBackOff)' },
    ],
    [
      'killed by a signal',
      { exitCode: null, signal: 'SIGSEGV' },
      { profile: 'ci', verdict: CheckVerdict.CouldNotTell, exitCode: undefined, detail: 'killed by SIGSEGV' },
    ],
    [
      'no code and no signal (a Pod past its deadline reads as timed out; this cannot)',
      { exitCode: null },
      { profile: 'ci', verdict: CheckVerdict.CouldNotTell, exitCode: undefined, detail: 'killed by a signal' },
    ],
  ])('%s', (_name, answer, expected) => {
    expect(resultOf('ci', checkAnswer(answer))).toEqual(expected);
  });
});

describe('SlottedCheckGate.run', () => {
  test.each<[string, Partial<CheckAnswer>, CheckResult]>([
    ['go', { exitCode: 0, durationMs: 1500 }, { profile: 'ci', verdict: CheckVerdict.Go, exitCode: 0 }],
    ['not yet', { exitCode: 3, durationMs: 1500 }, { profile: 'ci', verdict: CheckVerdict.NotYet, exitCode: 3 }],
    ['never', { exitCode: 2, durationMs: 1500 }, { profile: 'ci', verdict: CheckVerdict.Never, exitCode: 2 }],
    [
      'timed out',
      { exitCode: null, signal: 'SIGKILL', timedOut: true, durationMs: 1500 },
      { profile: 'ci', verdict: CheckVerdict.CouldNotTell, exitCode: undefined, detail: 'timed out' },
    ],
  ])('a slot taken: answered, %s; counted, logged without output, slot given back', async (_name, answer, expected) => {
    const { gate, slots, runner, metrics, lines } = gateWith({
      runner: new FakeCheckRunner(() => checkAnswer({ ...answer, stdoutBytes: 12, stderrBytes: 34 })),
    });

    await expect(gate.run(KEY, PROFILE, TARGET)).resolves.toEqual({ kind: 'answered', result: expected });

    // Within team-a's share; asking keeps team-a active a lease's time at least.
    expect(slots.callsOf('acquireShare')).toEqual([
      { op: 'acquireShare', place: placeIn('team-a'), token: TOKEN, ttlMs: TTL, activeMs: TTL },
    ]);
    expect(runner.calls.map((c) => [c.profile, c.target, c.key, c.signal.aborted])).toEqual([[PROFILE, TARGET, KEY, false]]);
    expect(metrics.checks).toEqual([{ profile: 'ci', verdict: expected.verdict, seconds: 1.5 }]);
    expect(metrics.denied).toBe(0);
    expect(slots.callsOf('release')).toEqual([{ op: 'release', keys: [SLOT_KEY, nsKey('team-a')], token: TOKEN }]);
    expect(slots.holders(SLOT_KEY)).toEqual([]);
    const ran = lines.filter((l) => l.msg === 'Ran check');
    expect(ran).toEqual([
      expect.objectContaining({ level: LogLevel.info, heldjob: KEY, profile: 'ci', stdoutBytes: 12, stderrBytes: 34, durationMs: 1500 }),
    ]);
    // The script's name and path stay out of the log.
    expect(JSON.stringify(lines)).not.toContain(PROFILE.script);
  });

  test.each<[string, (slots: FakeSlots) => void, 'denied' | 'unavailable']>([
    ['every slot taken: denied', (slots) => fill(slots, 2), 'denied'],
    ['Valkey throws: unavailable', (slots) => (slots.failing.acquireShare = new Error('connect ECONNREFUSED')), 'unavailable'],
  ])('%s, and nothing runs, nothing is counted, nothing is released', async (_name, arrange, kind) => {
    const { gate, slots, runner, metrics, lines } = gateWith();
    arrange(slots);

    await expect(gate.run(KEY, PROFILE, TARGET)).resolves.toEqual({ kind });

    expect(runner.calls).toEqual([]);
    expect(metrics.checks).toEqual([]);
    expect(metrics.denied).toBe(kind === 'denied' ? 1 : 0);
    expect(metrics.capacityAlarms).toBe(0);
    expect(slots.callsOf('release')).toEqual([]);
    if (kind === 'unavailable')
      expect(lines).toEqual([
        expect.objectContaining({ level: LogLevel.warn, heldjob: KEY, msg: 'Deferred check: Valkey is unavailable' }),
      ]);
  });

  test('a slot held by a running check is not free for another operator until it is given back', async () => {
    const started = deferred();
    const finish = deferred<CheckAnswer>();
    const runner = new FakeCheckRunner((c) => {
      if (c.key !== KEY) return checkAnswer();
      started.resolve();
      return finish.promise;
    });
    const { gate, slots } = gateWith({ slotLimit: 1, runner });
    const other = gateWith({ slotLimit: 1, slots, workerName: 'op-1' });

    const first = gate.run(KEY, PROFILE, TARGET);
    await started.promise;
    await expect(other.gate.run('team-a/other', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    finish.resolve(checkAnswer({ exitCode: 3 }));
    await expect(first).resolves.toMatchObject({ kind: 'answered' });
    await expect(other.gate.run('team-a/other', PROFILE, TARGET)).resolves.toMatchObject({ kind: 'answered' });
    expect(other.metrics.denied).toBe(1);
  });

  test("every place taken by this process's own checks: the next waits here, is not counted denied, and is handed the first place freed", async () => {
    const finish = new Map<string, (a: CheckAnswer) => void>();
    const runner = new FakeCheckRunner((c) => new Promise<CheckAnswer>((resolve) => finish.set(c.key, resolve)));
    const freed: string[] = [];
    const { gate, slots, metrics } = gateWith({ slotLimit: 2, runner, onPlaceFreed: (key) => freed.push(key) });

    const a = gate.run('ns/a', PROFILE, TARGET);
    const b = gate.run('ns/b', PROFILE, TARGET);
    await until(() => finish.size === 2);
    await expect(gate.run('ns/c', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    await expect(gate.run('ns/d', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    // Valkey was not asked for places this process knew were taken, and no denial was counted.
    expect(slots.callsOf('acquireShare')).toHaveLength(2);
    expect(metrics.denied).toBe(0);
    gate.cancel('ns/c');

    finish.get('ns/a')?.(checkAnswer({ exitCode: 3 }));
    await a;
    // Handed on, first come first (c was cancelled): a's place given back and taken for d in one
    // call, so d's check starts without asking Valkey, and no other operator could take it between.
    expect(slots.callsOf('release')).toHaveLength(0);
    expect(slots.callsOf('handOnShare')).toEqual([
      {
        op: 'handOnShare',
        from: { namespaceKey: nsKey('ns'), token: `${WORKER}/ns/a/uid-of-ns/a` },
        place: placeIn('ns'),
        to: `${WORKER}/ns/d/uid-of-ns/d`,
        ttlMs: TTL,
        activeMs: TTL,
      },
    ]);
    expect(freed).toEqual(['ns/d']);
    await expect(Promise.race([gate.run('ns/d', PROFILE, TARGET), until(() => finish.has('ns/d')).then(() => 'started')])).resolves.toBe(
      'started',
    );
    expect(slots.callsOf('acquireShare')).toHaveLength(2);
    expect(slots.holders(SLOT_KEY).sort()).toEqual([`${WORKER}/ns/b/uid-of-ns/b`, `${WORKER}/ns/d/uid-of-ns/d`]);
    finish.get('ns/b')?.(checkAnswer({ exitCode: 3 }));
    await b;
    expect(freed).toEqual(['ns/d']);
  });
});

describe('SlottedCheckGate: places handed on within the process', () => {
  test('a place handed to a HeldJob that does not come for it is kept HAND_ON_MS, then another may take it', async () => {
    const finish = new Map<string, (a: CheckAnswer) => void>();
    const runner = new FakeCheckRunner((c) => new Promise<CheckAnswer>((resolve) => finish.set(c.key, resolve)));
    const freed: string[] = [];
    const { gate, clock, slots } = gateWith({ slotLimit: 1, runner, onPlaceFreed: (key) => freed.push(key) });
    const a = gate.run('ns/a', PROFILE, TARGET);
    await until(() => finish.has('ns/a'));
    await expect(gate.run('ns/b', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    await expect(gate.run('ns/c', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    finish.get('ns/a')?.(checkAnswer({ exitCode: 3 }));
    await a;
    expect(freed).toEqual(['ns/b']);
    // b's place is kept for it, in Valkey too: c still waits.
    expect(slots.holders(SLOT_KEY)).toEqual([`${WORKER}/ns/b/uid-of-ns/b`]);
    await expect(gate.run('ns/c', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    clock.advance(HAND_ON_MS + 1);
    // b never came: its place goes back to the fleet, and c takes one.
    void gate.run('ns/c', PROFILE, TARGET);
    await until(() => finish.has('ns/c'));
    expect(slots.holders(SLOT_KEY)).toEqual([`${WORKER}/ns/c/uid-of-ns/c`]);
  });

  test.each<[string, (gate: SlottedCheckGate) => void]>([
    ['cancelled (its HeldJob deleted)', (gate) => gate.cancel('ns/b')],
    ['made again under its name (a new uid): the new one asks for a place of its own', (gate) => void gate.run('ns/b', PROFILE, TARGET)],
  ])('a place taken for a waiting HeldJob that is then %s is given back to the fleet', async (_name, after) => {
    const finish = new Map<string, (a: CheckAnswer) => void>();
    const runner = new FakeCheckRunner((c) => new Promise<CheckAnswer>((resolve) => finish.set(c.key, resolve)));
    let uidOfB = 'uid-1';
    const { gate, slots } = gateWith({ slotLimit: 1, runner, uidOf: (key) => (key === 'ns/b' ? uidOfB : `uid-of-${key}`) });
    const a = gate.run('ns/a', PROFILE, TARGET);
    await until(() => finish.has('ns/a'));
    await expect(gate.run('ns/b', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    finish.get('ns/a')?.(checkAnswer({ exitCode: 3 }));
    await a;
    expect(slots.holders(SLOT_KEY)).toEqual([`${WORKER}/ns/b/uid-1`]);
    uidOfB = 'uid-2';
    after(gate);
    await until(() => !slots.holders(SLOT_KEY).includes(`${WORKER}/ns/b/uid-1`));
    expect(slots.callsOf('release').map((c) => c.token)).toContain(`${WORKER}/ns/b/uid-1`);
  });

  test('a hand-on Valkey fails: the waiting HeldJob is still told, and its pass asks for a place itself', async () => {
    const finish = new Map<string, (a: CheckAnswer) => void>();
    const runner = new FakeCheckRunner((c) => new Promise<CheckAnswer>((resolve) => finish.set(c.key, resolve)));
    const freed: string[] = [];
    const { gate, slots, lines } = gateWith({ slotLimit: 1, runner, onPlaceFreed: (key) => freed.push(key) });
    const a = gate.run('ns/a', PROFILE, TARGET);
    await until(() => finish.has('ns/a'));
    await expect(gate.run('ns/b', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    slots.failing.handOnShare = new Error('connection reset');
    finish.get('ns/a')?.(checkAnswer({ exitCode: 3 }));
    await a;
    expect(freed).toEqual(['ns/b']);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: LogLevel.warn, msg: 'Failed to hand check slot on; its lease expires by itself' }),
    );
    // a's place was not given back (the script failed): here it lapses only with its lease, so b is denied by Valkey.
    await expect(gate.run('ns/b', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    expect(slots.callsOf('acquireShare').map((c) => c.token)).toEqual([`${WORKER}/ns/a/uid-of-ns/a`, `${WORKER}/ns/b/uid-of-ns/b`]);
  });

  /** One check slot, taken by ns/a's check (its answer in `finish`); places freed are noted in `freed`. */
  async function oneSlotTakenByA() {
    const finish = new Map<string, (a: CheckAnswer) => void>();
    const runner = new FakeCheckRunner((c) => new Promise<CheckAnswer>((resolve) => finish.set(c.key, resolve)));
    const freed: string[] = [];
    const { gate } = gateWith({ slotLimit: 1, runner, onPlaceFreed: (key) => freed.push(key) });
    const a = gate.run('ns/a', PROFILE, TARGET);
    await until(() => finish.has('ns/a'));
    return { finish, freed, gate, a };
  }

  test('a HeldJob handed a place whose pass ends without a check gives the place on at once', async () => {
    const { finish, freed, gate, a } = await oneSlotTakenByA();
    // b and c find the place taken; their passes end.
    await gate.run('ns/b', PROFILE, TARGET);
    gate.passEnded('ns/b');
    await gate.run('ns/c', PROFILE, TARGET);
    gate.passEnded('ns/c');
    finish.get('ns/a')?.(checkAnswer({ exitCode: 3 }));
    await a;
    expect(freed).toEqual(['ns/b']);
    // b's next pass skipped (a stale version, say) and ended: c is handed the place, no lapse waited.
    gate.passEnded('ns/b');
    await until(() => freed.length === 2);
    expect(freed).toEqual(['ns/b', 'ns/c']);
    // A pass of one not handed anything changes nothing.
    gate.passEnded('ns/x');
    expect(freed).toEqual(['ns/b', 'ns/c']);
  });

  test("a place handed to a HeldJob while the pass that found every place taken is still under way is kept for its next pass: that pass's end does not give it on", async () => {
    const { finish, freed, gate, a } = await oneSlotTakenByA();
    await expect(gate.run('ns/b', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    await expect(gate.run('ns/c', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    gate.passEnded('ns/c');
    // a's check ends before b's pass does: the place is handed to b (the wiring queues b again).
    finish.get('ns/a')?.(checkAnswer({ exitCode: 3 }));
    await a;
    expect(freed).toEqual(['ns/b']);
    // The pass that found the place taken ends: the place stays b's, for the pass after it.
    gate.passEnded('ns/b');
    expect(freed).toEqual(['ns/b']);
    await expect(gate.run('ns/c', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    gate.passEnded('ns/c');
    // b's next pass takes it and runs its check.
    void gate.run('ns/b', PROFILE, TARGET);
    await until(() => finish.has('ns/b'));
  });

  test('Valkey refusing at once and more HeldJobs due a check than workers: each asks Valkey once and the work queue goes idle', async () => {
    // The operator that took over during the Valkey partition (2026-12-04): its informer queued
    // every HeldJob at once, each check slot asked for was refused at once, and the places
    // handed on went round for ever among passes still under way: the queue re-ran them on
    // promise callbacks alone, its event loop never free.
    const clock = new ManualClock();
    const slots = new FakeSlots(clock.now);
    slots.failing.acquireShare = new Error("Stream isn't writeable and enableOfflineQueue options is false");
    const keys = Array.from({ length: 6 }, (_, i) => `ns/held-${i}`);
    let passes = 0;
    const gate = gateWith({ slotLimit: 1, slots, onPlaceFreed: (key) => queue.addFirst(key) }).gate;
    const queue: WorkQueue = new WorkQueue(
      async (key) => {
        // Bounded, so that the spin, should it come back, ends the test rather than hangs it.
        if (++passes >= 1_000) queue.stop();
        try {
          await gate.run(key, PROFILE, TARGET);
          // The pass goes on a few turns after the answer (the wake, the pass's own end).
          for (let i = 0; i < 5; i++) await Promise.resolve();
        } finally {
          gate.passEnded(key);
        }
      },
      { workers: 4, retryBaseMs: 250, retryMaxMs: 60_000 },
      () => undefined,
    );
    for (const key of keys) queue.add(key);
    // The queue starts each pass on an event-loop turn of its own, so a spin would no longer
    // starve the timers; the pass guard ends it, and the count says whether it came back.
    await queue.whenIdle();
    expect(passes).toBeLessThanOrEqual(2 * keys.length);
    expect(
      slots
        .callsOf('acquireShare')
        .map((c) => c.token.split('/').slice(1, 3).join('/'))
        .sort(),
    ).toEqual([...keys].sort());
  });
});

describe('SlottedCheckGate: fair shares of check slots per namespace', () => {
  test.each<[string, number | undefined, number, number]>([
    // checks done, lease ttl (ms), activity window (ms)
    ['a new hold: a lease, as that outlasts twice a denial (11 s)', undefined, TTL, TTL],
    ['a new hold with a short lease: twice a denial and its jitter, 2.2 x 11 s', undefined, 1_000, 24_200],
    ['a hold backed off to 15 minutes: 2.2 x its quarter', 60, TTL, 495_000],
  ])('the activity window asked with a check slot: %s', async (_name, checks, leaseTtlMs, activeMs) => {
    expect(checkActiveMs(checks ?? 0, 30_000, leaseTtlMs)).toBe(activeMs);
    if (leaseTtlMs !== TTL) return;
    const { gate, slots } = gateWith({ checksOf: () => checks });
    await expect(gate.run(KEY, PROFILE, TARGET)).resolves.toMatchObject({ kind: 'answered' });
    expect(slots.callsOf('acquireShare').map((c) => c.activeMs)).toEqual([activeMs]);
  });

  test.each<[string, string[], string[]]>([
    // queued behind ns-a/run (the one place), in this order; handed the place in this order
    ['one namespace alone: first come first', ['ns-a/1', 'ns-a/2', 'ns-a/3'], ['ns-a/1', 'ns-a/2', 'ns-a/3']],
    [
      "a namespace's many queued holds do not go before another's one",
      [...Array.from({ length: 20 }, (_, i) => `ns-a/${i}`), 'ns-b/1'],
      ['ns-b/1', 'ns-a/0', 'ns-a/1', 'ns-a/2'],
    ],
    [
      'two busy namespaces take turns, the one that ran nothing first',
      ['ns-a/1', 'ns-a/2', 'ns-a/3', 'ns-b/1', 'ns-b/2', 'ns-b/3'],
      ['ns-b/1', 'ns-a/1', 'ns-b/2', 'ns-a/2', 'ns-b/3', 'ns-a/3'],
    ],
    ['namespaces that ran nothing: the one that came first goes first', ['ns-c/1', 'ns-b/1', 'ns-c/2'], ['ns-c/1', 'ns-b/1', 'ns-c/2']],
  ])('the queue within the operator, round-robin by namespace: %s', async (_name, queued, handed) => {
    const finish = new Map<string, (a: CheckAnswer) => void>();
    const runner = new FakeCheckRunner((c) => new Promise<CheckAnswer>((resolve) => finish.set(c.key, resolve)));
    const freed: string[] = [];
    const { gate, slots } = gateWith({ slotLimit: 1, runner, onPlaceFreed: (key) => freed.push(key) });
    let running = 'ns-a/run';
    let run = gate.run(running, PROFILE, TARGET);
    await until(() => finish.has(running));
    for (const key of queued) await expect(gate.run(key, PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    for (const [i, next] of handed.entries()) {
      finish.get(running)?.(checkAnswer({ exitCode: 3 }));
      await run;
      expect(freed).toEqual(handed.slice(0, i + 1));
      // Handed on in Valkey too, from the namespace of the check that ended to the next's.
      expect(slots.callsOf('handOnShare').at(-1)).toMatchObject({
        from: { namespaceKey: nsKey(splitKey(running).namespace) },
        place: placeIn(splitKey(next).namespace, 1),
      });
      expect(slots.holders(SLOT_KEY)).toEqual([`${WORKER}/${next}/uid-of-${next}`]);
      running = next;
      run = gate.run(next, PROFILE, TARGET);
      await until(() => finish.has(next));
    }
    expect(slots.callsOf('acquireShare')).toHaveLength(1);
    for (const key of [...queued]) gate.cancel(key);
    gate.cancel('ns-a/run');
    finish.get(running)?.(checkAnswer({ exitCode: 3 }));
    await run;
    expect(gate.heldJobsTracked).toBe(0);
    expect(gate.namespacesTracked).toBe(0);
  });

  test('a namespace at its share is refused the place its own check hands on; another namespace, active since its denial, takes it', async () => {
    const finish = new Map<string, (a: CheckAnswer) => void>();
    const runner = new FakeCheckRunner((c) => new Promise<CheckAnswer>((resolve) => finish.set(c.key, resolve)));
    const freed: string[] = [];
    const east = gateWith({ slotLimit: 2, runner, onPlaceFreed: (key) => freed.push(key) });
    const west = gateWith({ slotLimit: 2, slots: east.slots, workerName: 'op-1' });
    // ns-a alone takes both places of the fleet.
    const a1 = east.gate.run('ns-a/1', PROFILE, TARGET);
    void east.gate.run('ns-a/2', PROFILE, TARGET);
    await until(() => finish.size === 2);
    await expect(east.gate.run('ns-a/3', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    // ns-b asks on another operator: the fleet is full, but ns-b is active now, and ns-a's share is 1.
    await expect(west.gate.run('ns-b/1', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    expect(east.slots.holders(ACTIVE_KEY).sort()).toEqual([nsKey('ns-a'), nsKey('ns-b')]);
    finish.get('ns-a/1')?.(checkAnswer({ exitCode: 3 }));
    await a1;
    // ns-a/1's place is given back, but ns-a/3 takes none: ns-a still holds 1, its share. It is
    // told all the same, and its own ask is denied.
    expect(freed).toEqual(['ns-a/3']);
    expect(east.slots.holders(SLOT_KEY)).toEqual([`${WORKER}/ns-a/2/uid-of-ns-a/2`]);
    await expect(east.gate.run('ns-a/3', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    await expect(west.gate.run('ns-b/1', PROFILE, TARGET)).resolves.toMatchObject({ kind: 'answered' });
  });
});

describe('SlottedCheckGate: the check slot token', () => {
  test('names the worker, the HeldJob and its uid', async () => {
    const { gate, slots } = gateWith();
    await expect(gate.run(KEY, PROFILE, TARGET)).resolves.toMatchObject({ kind: 'answered' });
    expect(slots.callsOf('acquireShare').map((c) => c.token)).toEqual([`op-0/team-a/web-7/${UID}`]);
  });

  test('two clusters with the default worker name and a HeldJob of the same name do not share one place', async () => {
    const slots = new FakeSlots();
    const started = deferred();
    const finish = deferred<CheckAnswer>();
    const east = gateWith({
      slots,
      slotLimit: 1,
      workerName: 'waitgate',
      uidOf: () => 'uid-in-east',
      runner: new FakeCheckRunner(() => (started.resolve(), finish.promise)),
    });
    const west = gateWith({ slots, slotLimit: 1, workerName: 'waitgate', uidOf: () => 'uid-in-west' });

    const running = east.gate.run(KEY, PROFILE, TARGET);
    await started.promise;
    // The one place is east's: west's HeldJob of the same name is another holder, and is denied.
    await expect(west.gate.run(KEY, PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    expect(west.runner.calls).toEqual([]);
    expect(slots.holders(SLOT_KEY)).toEqual([`waitgate/${KEY}/uid-in-east`]);

    finish.resolve(checkAnswer({ exitCode: 3 }));
    await expect(running).resolves.toMatchObject({ kind: 'answered' });
    await expect(west.gate.run(KEY, PROFILE, TARGET)).resolves.toMatchObject({ kind: 'answered' });
  });

  test('a HeldJob gone from the cache: nothing is acquired and nothing runs', async () => {
    const { gate, slots, runner, metrics } = gateWith({ uidOf: () => undefined });
    await expect(gate.run(KEY, PROFILE, TARGET)).resolves.toEqual({ kind: 'cancelled' });
    expect(slots.calls).toEqual([]);
    expect(runner.calls).toEqual([]);
    expect(metrics.denied).toBe(0);
  });
});

describe('SlottedCheckGate: the capacity alarm', () => {
  const alarms = (lines: { msg: string; event?: unknown }[]) => lines.filter((l) => l.event === 'wait_capacity_exceeded');

  test.each<[string, string[], number]>([
    ['one HeldJob denied twice: no alarm', [KEY, KEY], 0],
    ['one HeldJob denied three times: the alarm', [KEY, KEY, KEY], 1],
    ['every denial from the third on counts', [KEY, KEY, KEY, KEY, KEY], 3],
    ['denials are counted per HeldJob', [KEY, 'team-a/b', KEY, 'team-a/b'], 0],
  ])('%s', async (_name, keys, expectedAlarms) => {
    const { gate, slots, metrics } = gateWith();
    fill(slots, 2);
    for (const key of keys) await expect(gate.run(key, PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    expect(metrics.denied).toBe(keys.length);
    expect(metrics.capacityAlarms).toBe(expectedAlarms);
  });

  test('the log line is rate-limited to one a minute; the metric is not', async () => {
    const { gate, slots, metrics, clock, lines } = gateWith();
    fill(slots, 2);
    const deny = () => expect(gate.run(KEY, PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });

    for (let i = 0; i < 3; i++) await deny();
    expect(alarms(lines)).toEqual([
      expect.objectContaining({
        level: LogLevel.warn,
        checkSlots: 2,
        intervalMs: 30_000,
        concurrency: 10,
        knobs: ['WAITGATE_WAIT_CHECK_SLOTS', 'WAITGATE_WAIT_INTERVAL_MS', 'WAITGATE_CONCURRENCY'],
      }),
    ]);
    clock.advance(59_999);
    await deny();
    expect(alarms(lines)).toHaveLength(1);
    clock.advance(1);
    await deny();
    expect(alarms(lines)).toHaveLength(2);
    expect(metrics.capacityAlarms).toBe(3);
  });

  test('a slot taken clears the HeldJob denial count', async () => {
    const { gate, slots, metrics } = gateWith({ slotLimit: 1 });
    slots.hold(SLOT_KEY, 'other/0', T0 + 1000);
    for (let i = 0; i < 2; i++) await expect(gate.run(KEY, PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    await expect(gate.run(KEY, PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    expect(metrics.capacityAlarms).toBe(1);
    slots.hold(SLOT_KEY, 'other/0', T0); // lapses now
    await expect(gate.run(KEY, PROFILE, TARGET)).resolves.toMatchObject({ kind: 'answered' });
    slots.hold(SLOT_KEY, 'other/0', T0 + 1000);
    for (let i = 0; i < 2; i++) await expect(gate.run(KEY, PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    expect(metrics.capacityAlarms).toBe(1);
  });
});

describe('SlottedCheckGate: overload within one operator speaks', () => {
  const alarms = (lines: { msg: string; event?: unknown }[]) => lines.filter((l) => l.event === 'wait_capacity_exceeded');

  /** One check slot, taken by ns/a's check until `finish` answers it. */
  function oneSlot(o: Parameters<typeof gateWith>[0] = {}) {
    const finish = new Map<string, (a: CheckAnswer) => void>();
    const runner = new FakeCheckRunner((c) => new Promise<CheckAnswer>((resolve) => finish.set(c.key, resolve)));
    return { finish, ...gateWith({ slotLimit: 1, runner, ...o }) };
  }

  test('a check that finds a place at once starts with no lateness, and nothing is queued', async () => {
    const { gate, metrics } = gateWith();
    await expect(gate.run(KEY, PROFILE, TARGET)).resolves.toMatchObject({ kind: 'answered' });
    expect(metrics.lateness).toEqual([0]);
    expect(metrics.queuedChecks).toBe(0);
    expect(gate.queuedChecks).toBe(0);
  });

  test('queued behind its own checks: counted once a check, in the gauge while it waits, its lateness measured when it starts', async () => {
    const { gate, metrics, clock, finish } = oneSlot({ onPlaceFreed: () => undefined });
    const a = gate.run('ns/a', PROFILE, TARGET);
    await until(() => finish.has('ns/a'));
    await expect(gate.run('ns/b', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    clock.advance(4_000);
    // Its pass comes again (a wake): still queued, counted once.
    await expect(gate.run('ns/b', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    expect(metrics.queuedChecks).toBe(1);
    expect(gate.queuedChecks).toBe(1);
    expect(metrics.denied).toBe(0);
    clock.advance(3_000);
    finish.get('ns/a')?.(checkAnswer({ exitCode: 3 }));
    await a;
    // Handed the place: still counted as queued until it starts.
    expect(gate.queuedChecks).toBe(1);
    void gate.run('ns/b', PROFILE, TARGET);
    await until(() => finish.has('ns/b'));
    expect(gate.queuedChecks).toBe(0);
    expect(metrics.lateness).toEqual([0, 7]);
    // Late, but under a quarter of its cadence (11 s at 30 s): no alarm.
    expect(metrics.capacityAlarms).toBe(0);
  });

  test.each<[string, number | undefined, number, number]>([
    // checks done, waited (ms), alarms
    ['a new hold waits 11 s (the floor of a quarter cadence): no alarm', undefined, 11_000, 0],
    ['a new hold waits past 11 s: wait_capacity_exceeded', undefined, 11_001, 1],
    ['a hold backed off to 15 minutes waits 3 minutes: within a quarter of its cadence', 60, 180_000, 0],
    ['a hold backed off to 15 minutes waits past 3m45s: wait_capacity_exceeded', 60, 225_001, 1],
  ])('%s', async (_n, checks, waitedMs, expected) => {
    const { gate, metrics, clock, finish, lines } = oneSlot({ checksOf: () => checks });
    void gate.run('ns/a', PROFILE, TARGET);
    await until(() => finish.has('ns/a'));
    await expect(gate.run('ns/b', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    clock.advance(waitedMs);
    // Its wake (a quarter of the cadence later): still no place, and late by now or not.
    await expect(gate.run('ns/b', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    await expect(gate.run('ns/b', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    expect(metrics.capacityAlarms).toBe(expected);
    expect(alarms(lines)).toHaveLength(expected);
    if (expected > 0) {
      expect(alarms(lines)[0]).toMatchObject({
        level: LogLevel.warn,
        shortage: 'own-slots',
        heldjob: 'ns/b',
        waitedMs,
        knobs: ['WAITGATE_WAIT_CHECK_SLOTS', 'WAITGATE_WAIT_INTERVAL_MS', 'WAITGATE_CONCURRENCY'],
      });
      expect(alarms(lines)[0]?.msg).toMatch(/^wait_capacity_exceeded: checks wait past a quarter of their cadence/);
    }
  });

  test('a check late when it finally starts is counted then, once', async () => {
    const { gate, metrics, clock, finish } = oneSlot();
    const a = gate.run('ns/a', PROFILE, TARGET);
    await until(() => finish.has('ns/a'));
    await expect(gate.run('ns/b', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    clock.advance(20_000);
    finish.get('ns/a')?.(checkAnswer({ exitCode: 3 }));
    await a;
    void gate.run('ns/b', PROFILE, TARGET);
    await until(() => finish.has('ns/b'));
    expect(metrics.capacityAlarms).toBe(1);
    expect(metrics.lateness).toEqual([0, 20]);
  });

  test.each<[string, Partial<CheckGateOptions['knobs']>, number, RegExp]>([
    [
      'no fleet-wide Job cap: the slots or the interval',
      { checkSlots: 1, concurrency: undefined },
      1,
      /raise WAITGATE_WAIT_CHECK_SLOTS or lengthen WAITGATE_WAIT_INTERVAL_MS \(WAITGATE_CONCURRENCY is unset and holds no slot back\)$/,
    ],
    [
      'a cap that keeps the slots below it: the cap with the slots',
      { checkSlots: 4, concurrency: 2 },
      1,
      /raise WAITGATE_CONCURRENCY \(the slots are kept below its 2\) with WAITGATE_WAIT_CHECK_SLOTS, or lengthen WAITGATE_WAIT_INTERVAL_MS$/,
    ],
    [
      'a cap above the slots: all three',
      { checkSlots: 1, concurrency: 10 },
      1,
      /raise WAITGATE_WAIT_CHECK_SLOTS \(kept below WAITGATE_CONCURRENCY\), lengthen WAITGATE_WAIT_INTERVAL_MS, or raise WAITGATE_CONCURRENCY$/,
    ],
  ])('the log names the knobs that help: %s', async (_n, knobs, slotLimit, advice) => {
    const { gate, clock, finish, lines } = oneSlot({ slotLimit, knobs });
    void gate.run('ns/a', PROFILE, TARGET);
    await until(() => finish.has('ns/a'));
    await gate.run('ns/b', PROFILE, TARGET);
    clock.advance(60_000);
    await gate.run('ns/b', PROFILE, TARGET);
    expect(alarms(lines)).toHaveLength(1);
    expect(alarms(lines)[0]?.msg).toMatch(advice);
    expect(alarms(lines)[0]).toMatchObject({ concurrency: knobs.concurrency ?? 'none' });
  });

  test('denied by the fleet, then a slot: its lateness is measured from the first denial; nothing queued here', async () => {
    const { gate, slots, metrics, clock } = gateWith({ slotLimit: 1 });
    slots.hold(SLOT_KEY, 'other/0', T0 + 15_000);
    await expect(gate.run(KEY, PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    clock.advance(16_000);
    await expect(gate.run(KEY, PROFILE, TARGET)).resolves.toMatchObject({ kind: 'answered' });
    expect(metrics.lateness).toEqual([16]);
    expect(metrics.queuedChecks).toBe(0);
    expect(metrics.capacityAlarms).toBe(0);
  });

  test('a pass that asks for no check (the hold is no longer due one) ends the lateness unmeasured', async () => {
    const { gate, finish, clock, metrics } = oneSlot();
    const a = gate.run('ns/a', PROFILE, TARGET);
    await until(() => finish.has('ns/a'));
    await expect(gate.run('ns/c', PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    gate.passEnded('ns/c');
    // Its next pass decides something else (a pause window began, say): no check asked.
    gate.passEnded('ns/c');
    clock.advance(60_000);
    finish.get('ns/a')?.(checkAnswer({ exitCode: 3 }));
    await a;
    gate.passEnded('ns/a');
    expect(gate.heldJobsTracked).toBe(1); // c was handed the place, kept for it HAND_ON_MS
    clock.advance(HAND_ON_MS + 1);
    expect(gate.queuedChecks).toBe(0);
    // c comes back later: it starts with no lateness carried from before.
    void gate.run('ns/c', PROFILE, TARGET);
    await until(() => finish.has('ns/c'));
    expect(metrics.lateness).toEqual([0, 0]);
  });
});

describe('SlottedCheckGate.cancel', () => {
  const killed = checkAnswer({ exitCode: null, signal: 'SIGTERM', durationMs: 40 });

  test('while the check runs: it is aborted, the run says cancelled, nothing is counted, the slot is given back', async () => {
    const started = deferred<CheckRunCall>();
    const runner = new FakeCheckRunner((c) => {
      started.resolve(c);
      return answerWhenAborted(c.signal, killed);
    });
    const { gate, slots, metrics } = gateWith({ runner });

    const run = gate.run(KEY, PROFILE, TARGET);
    const call = await started.promise;
    gate.cancel('team-a/someone-else');
    expect(call.signal.aborted).toBe(false);
    gate.cancel(KEY);
    expect(call.signal.aborted).toBe(true);

    await expect(run).resolves.toEqual({ kind: 'cancelled' });
    expect(metrics.checks).toEqual([]);
    expect(slots.callsOf('release')).toHaveLength(1);
    expect(slots.holders(SLOT_KEY)).toEqual([]);
  });

  test('with nothing running, or after the run: nothing happens, and the next run is not cancelled', async () => {
    const { gate, runner } = gateWith();
    gate.cancel(KEY);
    await expect(gate.run(KEY, PROFILE, TARGET)).resolves.toMatchObject({ kind: 'answered' });
    gate.cancel(KEY);
    await expect(gate.run(KEY, PROFILE, TARGET)).resolves.toMatchObject({ kind: 'answered' });
    expect(runner.calls.map((c) => c.signal.aborted)).toEqual([false, false]);
  });
});

describe('SlottedCheckGate: nothing is kept for a HeldJob that goes', () => {
  test('its denial count is forgotten when it is cancelled: a HeldJob of the same name starts again from none', async () => {
    const { gate, slots, metrics } = gateWith();
    fill(slots, 2);
    for (let i = 0; i < 2; i++) await expect(gate.run(KEY, PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    gate.cancel(KEY); // deleted
    for (let i = 0; i < 2; i++) await expect(gate.run(KEY, PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    expect(metrics.capacityAlarms).toBe(0);
    expect(gate.heldJobsTracked).toBe(1);
  });

  test('a thousand HeldJobs denied and then deleted: nothing is kept for any of them', async () => {
    const { gate, slots } = gateWith();
    fill(slots, 2);
    const keys = Array.from({ length: 1000 }, (_, i) => `team-a/held-${i}`);
    for (const key of keys) await expect(gate.run(key, PROFILE, TARGET)).resolves.toEqual({ kind: 'denied' });
    expect(gate.heldJobsTracked).toBe(1000);
    for (const key of keys) gate.cancel(key);
    expect(gate.heldJobsTracked).toBe(0);
  });

  test('cancelled while its slot is being asked for: denied, and the denial is not kept', async () => {
    const { gate, slots, metrics } = gateWith();
    fill(slots, 2);
    const asked = deferred();
    slots.acquireWaitsFor = asked.promise;
    const run = gate.run(KEY, PROFILE, TARGET);
    await Promise.resolve();
    gate.cancel(KEY);
    asked.resolve();
    await expect(run).resolves.toEqual({ kind: 'cancelled' });
    expect(gate.heldJobsTracked).toBe(0);
    expect(metrics.capacityAlarms).toBe(0);
  });

  test('cancelled while its slot is being asked for: granted, the check never starts and the slot is given back', async () => {
    const { gate, slots, runner, metrics } = gateWith();
    const asked = deferred();
    slots.acquireWaitsFor = asked.promise;
    const run = gate.run(KEY, PROFILE, TARGET);
    await Promise.resolve();
    gate.cancel(KEY);
    asked.resolve();
    await expect(run).resolves.toEqual({ kind: 'cancelled' });
    expect(runner.calls).toEqual([]);
    expect(metrics.checks).toEqual([]);
    expect(slots.callsOf('release')).toEqual([{ op: 'release', keys: [SLOT_KEY, nsKey('team-a')], token: TOKEN }]);
    expect(slots.holders(SLOT_KEY)).toEqual([]);
    expect(gate.heldJobsTracked).toBe(0);
  });
});

describe('SlottedCheckGate: the slot is always given back', () => {
  test('when the runner throws: the error goes on, the slot is released, a later cancel finds nothing', async () => {
    const boom = new Error('runner bug');
    const { gate, slots, metrics } = gateWith({
      runner: new FakeCheckRunner(() => {
        throw boom;
      }),
    });

    await expect(gate.run(KEY, PROFILE, TARGET)).rejects.toBe(boom);
    expect(slots.callsOf('release')).toEqual([{ op: 'release', keys: [SLOT_KEY, nsKey('team-a')], token: TOKEN }]);
    expect(slots.holders(SLOT_KEY)).toEqual([]);
    expect(metrics.checks).toEqual([]);
    expect(() => gate.cancel(KEY)).not.toThrow();
  });

  test('when the release itself fails: the answer stands and the failure is logged (the lease lapses by itself)', async () => {
    const { gate, slots, lines } = gateWith();
    slots.failing.release = new Error('connection reset');

    await expect(gate.run(KEY, PROFILE, TARGET)).resolves.toMatchObject({ kind: 'answered', result: { verdict: CheckVerdict.Go } });
    expect(lines).toContainEqual(
      expect.objectContaining({ level: LogLevel.warn, msg: 'Failed to release check slot; its lease expires by itself' }),
    );
  });
});
