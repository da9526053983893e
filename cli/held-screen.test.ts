import { describe, expect, test } from '@jest/globals';
import type { HeldRow } from './held-panel.js';
import {
  cut,
  decodeKeys,
  initialState,
  Key,
  press,
  renderScreen,
  View,
  withLink,
  withNote,
  withRows,
  wrap,
  type ScreenState,
} from './held-screen.js';

const MIN = 60;
const row = (i: number, waitedMin: number, over: Partial<HeldRow> = {}): HeldRow => ({
  namespace: 'team-a',
  name: `hj-${i}`,
  uid: `uid-${i}`,
  target: `acme/web#${i}`,
  conditions: 'jira',
  phase: 'Held',
  state: 'watching',
  heldSince: '2026-09-01T09:00:00.000Z',
  waitedSeconds: waitedMin * MIN,
  ...over,
});
const four = [row(1, 134), row(2, 41), row(3, 8), row(4, 2)];
const BIG = { width: 200, height: 40 };
const live = (rows: readonly HeldRow[]) => withLink(withRows(initialState('team-a'), rows), { state: 'live' });

/** Presses the keys in order; the effects they had, in order. */
function keys(state: ScreenState, ...ks: Key[]): { state: ScreenState; effects: string[] } {
  const effects: string[] = [];
  let s = state;
  for (const k of ks) {
    const step = press(s, k);
    s = step.state;
    if (step.effect) effects.push(step.effect.kind === 'cancel' ? `cancel ${step.effect.row.uid}` : step.effect.kind);
  }
  return { state: s, effects };
}

describe('the frame', () => {
  test.each<[string, ScreenState, string[]]>([
    [
      'the panel: three rows, the rest counted, h view on the first line',
      live(four),
      [
        'held · 4 waiting · h view',
        '  ○ acme/web#1 · jira · waited 2h14m',
        '  ○ acme/web#2 · jira · waited 41m',
        '  ○ acme/web#3 · jira · waited 8m',
        '  ↓ 1 more',
        '',
        'HeldJobs in team-a · live · q quit',
      ],
    ],
    ['nothing waits: the section is hidden, only the footer', live([]), ['HeldJobs in team-a · live · q quit']],
    ['before the first list', initialState(undefined), ['HeldJobs in every namespace · listing… · q quit']],
    [
      'the watch broke: the footer says so, the rows stay',
      withLink(live([row(1, 5)]), { state: 'reconnecting', problem: 'connect ECONNREFUSED 127.0.0.1:36402' }),
      [
        'held · 1 waiting · h view',
        '  ○ acme/web#1 · jira · waited 5m',
        '',
        'HeldJobs in team-a · watch lost (connect ECONNREFUSED 127.0.0.1:36402), reconnecting · q quit',
      ],
    ],
    [
      'the held view: every row, the cursor on the first',
      keys(live(four), Key.View).state,
      [
        'held · 4 waiting',
        '› ○ acme/web#1 · jira · waited 2h14m',
        '  ○ acme/web#2 · jira · waited 41m',
        '  ○ acme/web#3 · jira · waited 8m',
        '  ○ acme/web#4 · jira · waited 2m',
        '',
        'HeldJobs in team-a · live · ↑/↓ move · x cancel · h back · q quit',
      ],
    ],
    [
      'x asks in the frame, about the row under the cursor',
      keys(live(four), Key.View, Key.Down, Key.Cancel).state,
      [
        'held · 4 waiting',
        '  ○ acme/web#1 · jira · waited 2h14m',
        '› ○ acme/web#2 · jira · waited 41m',
        '  ○ acme/web#3 · jira · waited 8m',
        '  ○ acme/web#4 · jira · waited 2m',
        '',
        'cancel acme/web#2 (team-a/hj-2)? it has not run, and nothing will start · y/n',
        'HeldJobs in team-a · live · y cancel · any other key keeps it',
      ],
    ],
    [
      'the held view with nothing left in it',
      keys(live([]), Key.View).state,
      ['held · nothing waits', '', 'HeldJobs in team-a · live · ↑/↓ move · x cancel · h back · q quit'],
    ],
    [
      'a note stands above the footer',
      withNote(live([]), 'Cancelling team-a/hj-1 (acme/web#1): it was held on its conditions and never ran; nothing will start.'),
      [
        'Cancelling team-a/hj-1 (acme/web#1): it was held on its conditions and never ran; nothing will start.',
        'HeldJobs in team-a · live · q quit',
      ],
    ],
  ])('%s', (_n, state, lines) => {
    expect(renderScreen(state, BIG)).toEqual(lines);
  });

  test('a short terminal: the held view shows a window around the cursor, and says what is hidden', () => {
    const many = Array.from({ length: 20 }, (_, i) => row(i + 1, 100 - i));
    const { state } = keys(live(many), Key.View, ...Array<Key>(12).fill(Key.Down));
    const lines = renderScreen(state, { width: 200, height: 10 });
    expect(lines).toHaveLength(10);
    expect(lines).toEqual([
      'held · 20 waiting',
      '  ↑ 10 above',
      '  ○ acme/web#11 · jira · waited 1h30m',
      '  ○ acme/web#12 · jira · waited 1h29m',
      '› ○ acme/web#13 · jira · waited 1h28m',
      '  ○ acme/web#14 · jira · waited 1h27m',
      '  ○ acme/web#15 · jira · waited 1h26m',
      '  ↓ 5 more',
      '',
      'HeldJobs in team-a · live · ↑/↓ move · x cancel · h back · q quit',
    ]);
    // At the end of the list the window stops at the last row.
    const end = renderScreen(keys(state, ...Array<Key>(30).fill(Key.Down)).state, { width: 200, height: 10 });
    expect(end.slice(1, 8)).toEqual([
      '  ↑ 15 above',
      '  ○ acme/web#16 · jira · waited 1h25m',
      '  ○ acme/web#17 · jira · waited 1h24m',
      '  ○ acme/web#18 · jira · waited 1h23m',
      '  ○ acme/web#19 · jira · waited 1h22m',
      '› ○ acme/web#20 · jira · waited 1h21m',
      '  ↓ 0 more',
    ]);
  });

  test('a narrow terminal: every line cut to the width, with …', () => {
    const lines = renderScreen(live(four), { width: 20, height: 40 });
    expect(lines[1]).toBe('  ○ acme/web#1 · ji…');
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(20);
  });

  test('a note or a question too long for the width is wrapped, not cut', () => {
    const note = 'Cancelling team-a/hj-1 (acme/web#1): it was held on its conditions and never ran; nothing will start.';
    const lines = renderScreen(withNote(live([]), note), { width: 40, height: 40 });
    expect(lines).toEqual([
      'Cancelling team-a/hj-1 (acme/web#1): it',
      'was held on its conditions and never',
      'ran; nothing will start.',
      'HeldJobs in team-a · live · q quit',
    ]);
  });

  test.each<[string, number, string[]]>([
    ['one two three', 7, ['one two', 'three']],
    ['one two', 20, ['one two']],
    ['averyveryverylongword x', 8, ['averyve…', 'x']],
    ['', 5, ['']],
  ])('wrap(%j, %d)', (text, width, out) => {
    expect(wrap(text, width)).toEqual(out);
  });

  test.each([
    ['abc', 5, 'abc'],
    ['abcdef', 5, 'abcd…'],
    ['○ ↓ ›', 3, '○ …'],
    ['abc', 0, ''],
  ])('cut(%j, %d) = %j', (line, width, out) => {
    expect(cut(line, width)).toBe(out);
  });
});

describe('the keys', () => {
  test.each<[string, Key[], string[], Partial<ScreenState>]>([
    ['q quits', [Key.Quit], ['quit'], { view: View.Panel }],
    ['Ctrl-C quits', [Key.Interrupt], ['quit'], {}],
    ['Ctrl-C quits even while asking', [Key.View, Key.Cancel, Key.Interrupt], ['quit'], { asking: 'uid-1' }],
    ['h opens the held view on the first row, h goes back', [Key.View], [], { view: View.List, cursor: 'uid-1' }],
    ['h twice: back to the panel, the cursor kept', [Key.View, Key.Down, Key.View], [], { view: View.Panel, cursor: 'uid-2' }],
    ['Esc goes back too', [Key.View, Key.Escape], [], { view: View.Panel }],
    ['the cursor stops at both ends', [Key.View, Key.Up, Key.Down, Key.Down, Key.Down, Key.Down, Key.Down], [], { cursor: 'uid-4' }],
    ['x in the panel cancels nothing and says where it works', [Key.Cancel], [], { asking: undefined }],
    ['x asks about the row under the cursor', [Key.View, Key.Down, Key.Cancel], [], { asking: 'uid-2' }],
    ['y cancels that row, once', [Key.View, Key.Down, Key.Cancel, Key.Yes, Key.Yes], ['cancel uid-2'], { asking: undefined }],
    ['n keeps it', [Key.View, Key.Cancel, Key.No], [], { asking: undefined, note: 'not cancelled: acme/web#1 (team-a/hj-1)' }],
    ['any other key keeps it too: q does not quit from the question', [Key.View, Key.Cancel, Key.Quit], [], { view: View.List }],
    ['a key clears the last note', [Key.Cancel, Key.Down], [], { note: undefined }],
  ])('%s', (_n, ks, effects, expected) => {
    const r = keys(live(four), ...ks);
    expect(r.effects).toEqual(effects);
    expect(r.state).toMatchObject(expected);
  });

  test('y says what it is cancelling until the outcome arrives', () => {
    expect(keys(live(four), Key.View, Key.Cancel, Key.Yes).state.note).toBe('cancelling acme/web#1 (team-a/hj-1)…');
  });

  test('x with nothing in the held view asks nothing', () => {
    const r = keys(live([]), Key.View, Key.Cancel);
    expect(r.state).toMatchObject({ asking: undefined, note: 'nothing to cancel' });
  });
});

describe('new rows from the watch', () => {
  test('the cursor stays on its hold when rows come and go around it', () => {
    const s = keys(live(four), Key.View, Key.Down, Key.Down).state; // on uid-3
    const next = withRows(s, [row(9, 300), row(1, 135), row(3, 9), row(4, 3)]);
    expect(next.cursor).toBe('uid-3');
  });

  test('when its hold goes, the cursor takes the row that took its place, or the last', () => {
    const s = keys(live(four), Key.View, Key.Down).state; // on uid-2
    expect(withRows(s, [row(1, 1), row(3, 1), row(4, 1)]).cursor).toBe('uid-3');
    const last = keys(live(four), Key.View, Key.Down, Key.Down, Key.Down).state; // on uid-4
    expect(withRows(last, [row(1, 1), row(2, 1)]).cursor).toBe('uid-2');
    expect(withRows(last, []).cursor).toBeUndefined();
  });

  test('a question about a hold that stopped waiting is dropped, and said so; y then cancels nothing', () => {
    const asking = keys(live(four), Key.View, Key.Down, Key.Cancel).state;
    const next = withRows(asking, [row(1, 1), row(3, 1)]);
    expect(next).toMatchObject({
      asking: undefined,
      note: 'acme/web#2 (team-a/hj-2) stopped waiting before the answer; nothing was cancelled',
    });
    expect(keys(next, Key.Yes).effects).toEqual([]);
  });
});

describe('decodeKeys', () => {
  test.each<[string, string, Key[]]>([
    ['letters', 'hxynq', [Key.View, Key.Cancel, Key.Yes, Key.No, Key.Quit]],
    ['upper case reads the same', 'HXY', [Key.View, Key.Cancel, Key.Yes]],
    ['vi keys', 'kj', [Key.Up, Key.Down]],
    ['arrows, normal and application mode', '\u001b[A\u001b[B\u001bOA\u001bOB', [Key.Up, Key.Down, Key.Up, Key.Down]],
    ['left and right do nothing', '\u001b[C\u001b[D', [Key.Other, Key.Other]],
    ['Ctrl-C', '\u0003', [Key.Interrupt]],
    ['Esc alone', '\u001b', [Key.Escape]],
    ['other sequences are one key each', '\u001b[5~z', [Key.Other, Key.Other]],
    ['a chunk of several', 'hjx', [Key.View, Key.Down, Key.Cancel]],
  ])('%s', (_n, data, out) => {
    expect(decodeKeys(data)).toEqual(out);
  });
});
