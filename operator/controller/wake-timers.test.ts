import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { WakeTimers, MAX_TIMER_MS } from './wake-timers.js';

afterEach(() => {
  jest.useRealTimers();
});

describe('WakeTimers', () => {
  test('wakes once at the instant, not before', () => {
    jest.useFakeTimers({ now: 0 });
    const woke: string[] = [];
    const w = new WakeTimers({ now: () => Date.now() }, (k) => woke.push(k));
    w.schedule('a', 5000);
    jest.advanceTimersByTime(4999);
    expect(woke).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(woke).toEqual(['a']);
    jest.advanceTimersByTime(60_000);
    expect(woke).toEqual(['a']);
    expect(w.size).toBe(0);
  });

  test('an instant 30 days out is reached in steps that fit setTimeout', () => {
    jest.useFakeTimers({ now: 0 });
    const woke: number[] = [];
    const w = new WakeTimers({ now: () => Date.now() }, () => woke.push(Date.now()));
    const thirtyDays = 30 * 86_400_000;
    expect(thirtyDays).toBeGreaterThan(MAX_TIMER_MS);
    w.schedule('a', thirtyDays);
    jest.advanceTimersByTime(MAX_TIMER_MS);
    expect(woke).toEqual([]);
    jest.advanceTimersByTime(thirtyDays - MAX_TIMER_MS);
    expect(woke).toEqual([thirtyDays]);
  });

  test('rescheduling replaces, cancel removes', () => {
    jest.useFakeTimers({ now: 0 });
    const woke: string[] = [];
    const w = new WakeTimers({ now: () => Date.now() }, (k) => woke.push(k));
    w.schedule('a', 1000);
    w.schedule('a', 3000);
    w.schedule('b', 2000);
    w.cancel('b');
    jest.advanceTimersByTime(2500);
    expect(woke).toEqual([]);
    jest.advanceTimersByTime(500);
    expect(woke).toEqual(['a']);
  });

  test('an instant already past wakes at once', () => {
    jest.useFakeTimers({ now: 10_000 });
    const woke: string[] = [];
    const w = new WakeTimers({ now: () => Date.now() }, (k) => woke.push(k));
    w.schedule('late', 1);
    jest.advanceTimersByTime(0);
    expect(woke).toEqual(['late']);
  });
});
