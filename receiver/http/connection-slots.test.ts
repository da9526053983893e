import { describe, expect, test } from '@jest/globals';
import { ConnectionSlots } from './connection-slots.js';

class Conn {
  destroyed = false;
  constructor(readonly name: string) {}
  destroy(): void {
    this.destroyed = true;
  }
}

type Step = ['open' | 'head' | 'idle' | 'close', string];

/** Runs the steps on a cap of `max`; returns which connections were closed for room, in order, and the count left open. */
function run(max: number, steps: Step[]): { closedForRoom: string[]; size: number } {
  const slots = new ConnectionSlots<Conn>(max);
  const conns = new Map<string, Conn>();
  const closedForRoom: string[] = [];
  for (const [op, name] of steps) {
    const c = conns.get(name) ?? new Conn(name);
    conns.set(name, c);
    if (op === 'open') {
      const made = slots.opened(c);
      if (made) {
        expect(made.destroyed).toBe(true);
        closedForRoom.push(made.name);
      }
    } else if (op === 'head') slots.headReceived(c);
    else if (op === 'idle') slots.idle(c);
    else slots.closed(c);
  }
  return { closedForRoom, size: slots.size };
}

describe('ConnectionSlots: at the cap, the oldest connection still in its head makes room', () => {
  test.each<[string, number, Step[], { closedForRoom: string[]; size: number }]>([
    [
      'under the cap: nothing closed',
      3,
      [
        ['open', 'a'],
        ['open', 'b'],
        ['open', 'c'],
      ],
      { closedForRoom: [], size: 3 },
    ],
    [
      'three stalled in their heads, a fourth arrives: the oldest stalled one goes',
      3,
      [
        ['open', 'a'],
        ['open', 'b'],
        ['open', 'c'],
        ['open', 'd'],
      ],
      { closedForRoom: ['a'], size: 3 },
    ],
    [
      'a connection past its head is never closed for room; the oldest still in its head is',
      3,
      [
        ['open', 'a'],
        ['head', 'a'],
        ['open', 'b'],
        ['open', 'c'],
        ['open', 'd'],
      ],
      { closedForRoom: ['b'], size: 3 },
    ],
    [
      'every other connection past its head: nothing to close, the newcomer is over the cap (503 at admission)',
      2,
      [
        ['open', 'a'],
        ['head', 'a'],
        ['open', 'b'],
        ['head', 'b'],
        ['open', 'c'],
      ],
      { closedForRoom: [], size: 3 },
    ],
    [
      'the newcomer is never the one closed, even when it is the only one in its head',
      1,
      [
        ['open', 'a'],
        ['head', 'a'],
        ['open', 'b'],
        ['open', 'c'],
      ],
      { closedForRoom: ['b'], size: 2 },
    ],
    [
      'a kept-alive connection waiting for its next head counts as the newest in its head',
      3,
      [
        ['open', 'a'],
        ['head', 'a'],
        ['open', 'b'],
        ['open', 'c'],
        ['idle', 'a'],
        ['open', 'd'],
        ['open', 'e'],
      ],
      { closedForRoom: ['b', 'c'], size: 3 },
    ],
    [
      'a closed connection frees its slot and is never closed again',
      2,
      [
        ['open', 'a'],
        ['open', 'b'],
        ['close', 'a'],
        ['open', 'c'],
        ['idle', 'a'],
        ['open', 'd'],
      ],
      { closedForRoom: ['b'], size: 2 },
    ],
    [
      'a flood of stalls: each newcomer closes the oldest, the cap holds',
      2,
      [
        ['open', 'a'],
        ['open', 'b'],
        ['open', 'c'],
        ['open', 'd'],
        ['open', 'e'],
      ],
      { closedForRoom: ['a', 'b', 'c'], size: 2 },
    ],
  ])('%s', (_name, max, steps, expected) => {
    expect(run(max, steps)).toEqual(expected);
  });
});
