import { describe, expect, test } from '@jest/globals';
import { WorkQueue } from './work-queue.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('WorkQueue', () => {
  test.each<[string, string[], string[]]>([
    ['records wait while any start waits, whatever the order added', ['r1', 's1', 'r2', 's2'], ['s1', 's2', 'r1', 'r2']],
    ['records alone run in the order added', ['r1', 'r2'], ['r1', 'r2']],
    ['starts alone run in the order added', ['s2', 's1'], ['s2', 's1']],
  ])('two lanes: %s', async (_n, added, order) => {
    const ran: string[] = [];
    const q = new WorkQueue(
      async (key) => {
        ran.push(key);
      },
      { workers: 1, retryBaseMs: 10, retryMaxMs: 100, laneOf: (key) => (key.startsWith('r') ? 'record' : 'start') },
      () => {},
    );
    // One worker, held busy while the keys are added, so the lanes decide the order.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const blocker = new WorkQueue(
      async () => gate,
      { workers: 1, retryBaseMs: 10, retryMaxMs: 100 },
      () => {},
    );
    blocker.add('x');
    for (const key of added) q.add(key);
    expect(q.length).toBeLessThanOrEqual(added.length);
    release();
    await q.whenIdle();
    await blocker.whenIdle();
    // The first key added starts at once (a free worker); the lanes order the rest.
    expect(ran.slice(1)).toEqual(order.filter((k) => k !== ran[0]));
    expect(new Set(ran)).toEqual(new Set(added));
  });

  test('a key queued again while it runs goes to the lane it is in by then', async () => {
    const ran: string[] = [];
    let lane: 'start' | 'record' = 'start';
    let first = true;
    const q: WorkQueue = new WorkQueue(
      async (key) => {
        ran.push(key);
        if (key === 'k' && first) {
          first = false;
          // The pass created a Job: its record is queued in the record lane, behind the starts.
          lane = 'record';
          q.add('k');
          q.add('s1');
          q.add('s2');
        }
      },
      { workers: 1, retryBaseMs: 10, retryMaxMs: 100, laneOf: (key) => (key === 'k' ? lane : 'start') },
      () => {},
    );
    q.add('k');
    await q.whenIdle();
    expect(ran).toEqual(['k', 's1', 's2', 'k']);
  });

  test('passes that do no I/O and put their key back never starve a timer: each pass starts on a turn of its own', async () => {
    // The check gate's spin of 2026-12-04 ran passes on promise callbacks alone: no timer, so no
    // Lease renewal, no log line and no /metrics for as long as it lasted.
    const GUARD = 1_000;
    let passes = 0;
    let passesWhenTimerRan: number | undefined;
    const q: WorkQueue = new WorkQueue(
      async (key) => {
        if (++passes >= GUARD) return q.stop();
        q.add(key);
      },
      { workers: 4, retryBaseMs: 10, retryMaxMs: 100 },
      () => {},
    );
    setTimeout(() => (passesWhenTimerRan = passes), 0);
    q.add('k');
    await q.whenIdle();
    // A timer of 0 ms is due after a millisecond: the passes of that millisecond (about 150 on a
    // warm process) run first; starved, it would run only after all of them.
    expect(passesWhenTimerRan).toBeLessThan(GUARD / 2);
  });

  test('never runs one key twice at once, and coalesces adds made while it runs', async () => {
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = new WorkQueue(
      async () => {
        running++;
        runs++;
        maxRunning = Math.max(maxRunning, running);
        if (runs === 1) await gate;
        running--;
      },
      { workers: 4, retryBaseMs: 10, retryMaxMs: 100 },
      () => {},
    );
    q.add('k');
    await tick();
    q.add('k');
    q.add('k');
    q.add('k');
    await tick();
    expect(maxRunning).toBe(1);
    release();
    await q.whenIdle();
    expect(runs).toBe(2);
  });

  test.each([
    { name: 'a key not queued goes first', queuedBefore: ['a', 'b'], first: 'k', order: ['k', 'a', 'b'] },
    { name: 'a key queued further back moves to the front', queuedBefore: ['a', 'b', 'k'], first: 'k', order: ['k', 'a', 'b'] },
    { name: 'a key already first stays first, once', queuedBefore: ['k', 'a'], first: 'k', order: ['k', 'a'] },
  ])('addFirst: $name', async ({ queuedBefore, first, order }) => {
    const ran: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const q = new WorkQueue(
      async (key) => {
        if (key === 'busy') return held;
        ran.push(key);
      },
      { workers: 1, retryBaseMs: 10, retryMaxMs: 100 },
      () => {},
    );
    q.add('busy');
    for (const k of queuedBefore) q.add(k);
    q.addFirst(first);
    release();
    await q.whenIdle();
    expect(ran).toEqual(order);
  });

  test('addFirst on a key while it runs: its next pass comes before the keys queued meanwhile', async () => {
    const ran: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const q = new WorkQueue(
      async (key) => {
        ran.push(key);
        if (key === 'k' && ran.length === 1) await held;
      },
      { workers: 1, retryBaseMs: 10, retryMaxMs: 100 },
      () => {},
    );
    q.add('k');
    await tick();
    q.add('a');
    q.addFirst('k');
    release();
    await q.whenIdle();
    expect(ran).toEqual(['k', 'k', 'a']);
  });

  test('a failing key is retried with backoff and reported', async () => {
    const errors: number[] = [];
    let calls = 0;
    const q = new WorkQueue(
      async () => {
        calls++;
        if (calls < 3) throw new Error('apiserver unavailable');
      },
      { workers: 1, retryBaseMs: 5, retryMaxMs: 50 },
      (_k, _e, retry) => errors.push(retry),
    );
    q.add('k');
    const deadline = Date.now() + 2000;
    while (calls < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(calls).toBe(3);
    expect(errors).toEqual([5, 10]);
    q.stop();
  });

  test('different keys run side by side up to the worker count', async () => {
    let running = 0;
    let maxRunning = 0;
    const q = new WorkQueue(
      async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await new Promise((r) => setTimeout(r, 10));
        running--;
      },
      { workers: 3, retryBaseMs: 5, retryMaxMs: 50 },
      () => {},
    );
    for (let i = 0; i < 10; i++) q.add(`k${i}`);
    await new Promise((r) => setTimeout(r, 1));
    await q.whenIdle();
    expect(maxRunning).toBe(3);
  });
});
