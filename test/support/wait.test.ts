// staysTrue on a clock of its own: what counts as watching a window, and what does not.
import { describe, expect, test } from '@jest/globals';
import { staysTrue, type WaitClock } from './wait.js';

const T0 = Date.parse('2026-09-01T08:00:00Z');

/** A clock that moves only when slept on, or when a probe says how long it took. */
function fakeClock(): WaitClock & { t: number } {
  const c = {
    t: T0,
    now: () => c.t,
    sleep: (ms: number) => {
      c.t += ms;
      return Promise.resolve();
    },
  };
  return c;
}

/** A probe whose n-th call takes durations[n] ms (the last one repeats) and answers answers[n]. */
function probeOf(clock: { t: number }, durations: readonly number[], answers: readonly boolean[] = [true]) {
  let n = 0;
  const calls: number[] = [];
  const probe = () => {
    calls.push(clock.t);
    clock.t += durations[Math.min(n, durations.length - 1)] ?? 0;
    const ok = answers[Math.min(n, answers.length - 1)] ?? true;
    n++;
    return Promise.resolve(ok);
  };
  return { probe, calls };
}

describe('staysTrue', () => {
  test.each<[string, number, readonly number[], readonly boolean[], RegExp | undefined]>([
    ['true all along, quick probes: holds', 2_000, [10], [true], undefined],
    ['false inside the window: fails', 2_000, [10], [true, true, false], /expected the thing to hold until/],
    ['the first probe returns after the window, true: fails (it watched nothing)', 2_000, [2_500], [true], /after the window ended/],
    ['the first probe returns after the window, false: fails as late', 2_000, [2_500], [false], /after the window ended/],
    ['a later probe that started inside the window runs past the end, true: holds', 2_000, [10, 10, 10, 1_900], [true], undefined],
    [
      'a later probe that started inside the window runs past the end, false: fails',
      2_000,
      [10, 10, 10, 1_900],
      [true, true, true, false],
      /expected the thing to hold until/,
    ],
    ['a slow probe whose answer came inside the window, then no room for another: holds', 2_000, [900], [true], undefined],
  ])('%s', async (_name, windowMs, durations, answers, failure) => {
    const clock = fakeClock();
    const { probe } = probeOf(clock, durations, answers);
    const run = staysTrue('the thing', probe, T0 + windowMs, clock);
    if (failure) await expect(run).rejects.toThrow(failure);
    else await expect(run).resolves.toBeUndefined();
  });

  test('a window already over fails before any probe', async () => {
    const clock = fakeClock();
    const { probe, calls } = probeOf(clock, [10]);
    await expect(staysTrue('the thing', probe, T0, clock)).rejects.toThrow(/before the first probe/);
    expect(calls).toEqual([]);
  });

  test('watches the window to its end: on a clock that keeps pace the last probe ends within twice its time of the end, never after it', async () => {
    const clock = fakeClock();
    const { probe, calls } = probeOf(clock, [30]);
    await staysTrue('the thing', probe, T0 + 2_000, clock);
    const last = calls[calls.length - 1] as number;
    expect(last + 30).toBeLessThanOrEqual(T0 + 2_000);
    expect(T0 + 2_000 - (last + 30)).toBeLessThanOrEqual(60);
    expect(calls.length).toBeGreaterThan(5);
  });

  test('a probe that throws fails the claim with its error', async () => {
    const clock = fakeClock();
    await expect(staysTrue('the thing', () => Promise.reject(new Error('boom')), T0 + 1_000, clock)).rejects.toThrow('boom');
  });
});
