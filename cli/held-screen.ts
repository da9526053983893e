// The live held panel, `waitgate held --watch`, as a pure state machine: the state, what a key
// does to it, and the frame it draws from it. The terminal and the watch of HeldJobs around it
// are cli/held-watch.ts, which carries out the effects (quit, cancel) and feeds back the rows,
// the watch's health and the cancel's outcome.
//
// Two views. The panel is the held section as `waitgate held` prints it, with `h view` on its
// first line, and hidden entirely when nothing waits. `h` opens the held view: every row, one
// under a cursor (↑/↓ or k/j); `x` asks in the frame whether to cancel that row's hold, and
// only `y` does; any other key leaves it be. `h` or Esc goes back; `q` or Ctrl-C quits.
import { assertNever } from '../api/vocabulary.js';
import { panelHeader, renderPanel, rowText, type HeldRow } from './held-panel.js';
import type { ScreenSize } from './terminal.js';

export const View = { Panel: 'panel', List: 'list' } as const;
export type View = (typeof View)[keyof typeof View];

/** The keys the screen knows; everything else is Other. */
export const Key = {
  Up: 'up',
  Down: 'down',
  /** h: open the held view, or go back from it. */
  View: 'h',
  /** x: ask to cancel the row under the cursor. */
  Cancel: 'x',
  Yes: 'y',
  No: 'n',
  Quit: 'q',
  Escape: 'escape',
  /** Ctrl-C. */
  Interrupt: 'interrupt',
  Other: 'other',
} as const;
export type Key = (typeof Key)[keyof typeof Key];

/** The watch of HeldJobs: listing at first, then live; reconnecting after it broke. */
export type Link =
  { readonly state: 'listing' } | { readonly state: 'live' } | { readonly state: 'reconnecting'; readonly problem: string };

export interface ScreenState {
  /** What waits now, longest-held first (heldRows). */
  readonly rows: readonly HeldRow[];
  readonly view: View;
  /** The uid of the row under the cursor in the held view. */
  readonly cursor: string | undefined;
  /** The uid of the row the y/n question is about, while it is asked. */
  readonly asking: string | undefined;
  /** The last thing said (a cancel's outcome, a key that does nothing here); cleared by the next key. */
  readonly note: string | undefined;
  readonly link: Link;
  /** The namespace watched; undefined for every namespace. */
  readonly namespace: string | undefined;
}

export type Effect = { readonly kind: 'quit' } | { readonly kind: 'cancel'; readonly row: HeldRow };

export interface Step {
  readonly state: ScreenState;
  readonly effect?: Effect;
}

export function initialState(namespace: string | undefined): ScreenState {
  return { rows: [], view: View.Panel, cursor: undefined, asking: undefined, note: undefined, link: { state: 'listing' }, namespace };
}

/** The row's name for people: its target, and where it is. */
export function rowRef(r: HeldRow): string {
  return `${r.target ?? '(unreadable target)'} (${r.namespace}/${r.name})`;
}

/**
 * New rows from the watch. The cursor stays on its hold, or, when that one went, on the row
 * that took its place; a question about a hold that stopped waiting is dropped, and said so.
 */
export function withRows(state: ScreenState, rows: readonly HeldRow[]): ScreenState {
  const at = state.rows.findIndex((r) => r.uid === state.cursor);
  const cursor = rows.some((r) => r.uid === state.cursor) ? state.cursor : rows[Math.min(Math.max(at, 0), rows.length - 1)]?.uid;
  if (state.asking !== undefined && !rows.some((r) => r.uid === state.asking)) {
    const asked = state.rows.find((r) => r.uid === state.asking);
    const note = `${asked ? rowRef(asked) : 'that hold'} stopped waiting before the answer; nothing was cancelled`;
    return { ...state, rows, cursor, asking: undefined, note };
  }
  return { ...state, rows, cursor };
}

export function withLink(state: ScreenState, link: Link): ScreenState {
  return { ...state, link };
}

export function withNote(state: ScreenState, note: string): ScreenState {
  return { ...state, note };
}

/** What a key does. Ctrl-C always quits; while a question is asked only y cancels, anything else declines. */
export function press(state: ScreenState, key: Key): Step {
  if (key === Key.Interrupt) return { state, effect: { kind: 'quit' } };
  const s: ScreenState = { ...state, note: undefined };
  if (state.asking !== undefined) {
    const row = state.rows.find((r) => r.uid === state.asking);
    if (key === Key.Yes && row)
      return { state: { ...s, asking: undefined, note: `cancelling ${rowRef(row)}…` }, effect: { kind: 'cancel', row } };
    return { state: { ...s, asking: undefined, note: row ? `not cancelled: ${rowRef(row)}` : undefined } };
  }
  if (key === Key.Quit) return { state: s, effect: { kind: 'quit' } };
  switch (state.view) {
    case View.Panel:
      if (key === Key.View) return { state: { ...s, view: View.List, cursor: s.cursor ?? s.rows[0]?.uid } };
      if (key === Key.Cancel) return { state: { ...s, note: 'h opens the held view; x there cancels the row under the cursor' } };
      return { state: s };
    case View.List:
      return { state: inList(s, key) };
    default:
      return assertNever(state.view);
  }
}

function inList(s: ScreenState, key: Key): ScreenState {
  const at = s.rows.findIndex((r) => r.uid === s.cursor);
  switch (key) {
    case Key.Up:
      return { ...s, cursor: s.rows[Math.max(at - 1, 0)]?.uid };
    case Key.Down:
      return { ...s, cursor: s.rows[Math.min(at + 1, s.rows.length - 1)]?.uid };
    case Key.Cancel:
      return at < 0 ? { ...s, note: 'nothing to cancel' } : { ...s, asking: s.cursor };
    case Key.View:
    case Key.Escape:
      return { ...s, view: View.Panel };
    case Key.Yes:
    case Key.No:
    case Key.Quit:
    case Key.Interrupt:
    case Key.Other:
      return s;
    default:
      return assertNever(key);
  }
}

/** The frame: the section (or the held view), the question or the note, and a footer with the keys. */
export function renderScreen(state: ScreenState, size: ScreenSize): string[] {
  // The question and the note are sentences to read whole: wrapped, not cut.
  const said = [...(state.asking !== undefined ? [question(state)] : []), ...(state.note !== undefined ? [state.note] : [])];
  const bottom = [...said.flatMap((text) => wrap(text, size.width)), footer(state)];
  const room = Math.max(1, size.height - bottom.length - 1);
  const body = state.view === View.Panel ? renderPanel(state.rows, { keys: 'h view' }) : listLines(state, room);
  const lines = [...body, ...(body.length > 0 ? [''] : []), ...bottom];
  const fitted = lines.length > size.height ? [...lines.slice(0, Math.max(0, size.height - 1)), lines[lines.length - 1] as string] : lines;
  return fitted.map((l) => cut(l, size.width));
}

/** The held view: a header, and as many rows as fit, the cursor's always among them. */
function listLines(state: ScreenState, room: number): string[] {
  const { rows } = state;
  if (rows.length === 0) return ['held · nothing waits'];
  const header = panelHeader(rows);
  const at = Math.max(
    0,
    rows.findIndex((r) => r.uid === (state.asking ?? state.cursor)),
  );
  const fit = Math.max(1, room - 1);
  if (rows.length <= fit) return [header, ...rows.map((r, i) => marked(r, i === at))];
  // Not all fit: a window around the cursor, with a line above and below saying how many are hidden.
  const shown = Math.max(1, fit - 2);
  const first = Math.min(Math.max(0, at - Math.floor(shown / 2)), rows.length - shown);
  const window = rows.slice(first, first + shown);
  return [
    header,
    `  ↑ ${first} above`,
    ...window.map((r, i) => marked(r, first + i === at)),
    `  ↓ ${rows.length - first - window.length} more`,
  ];
}

function marked(r: HeldRow, selected: boolean): string {
  return `${selected ? '›' : ' '} ${rowText(r, { when: true })}`;
}

function question(state: ScreenState): string {
  const row = state.rows.find((r) => r.uid === state.asking);
  return row ? `cancel ${rowRef(row)}? it has not run, and nothing will start · y/n` : '';
}

function footer(state: ScreenState): string {
  const where = state.namespace === undefined ? 'every namespace' : state.namespace;
  const link =
    state.link.state === 'live' ? 'live' : state.link.state === 'listing' ? 'listing…' : `watch lost (${state.link.problem}), reconnecting`;
  const keys =
    state.asking !== undefined
      ? 'y cancel · any other key keeps it'
      : state.view === View.List
        ? '↑/↓ move · x cancel · h back · q quit'
        : 'q quit';
  return `HeldJobs in ${where} · ${link} · ${keys}`;
}

/** Words onto lines of at most `width` characters; a word longer than a line is cut. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line === '' ? word : `${line} ${word}`;
    if ([...next].length <= width || line === '') line = next;
    else {
      lines.push(line);
      line = word;
    }
  }
  lines.push(line);
  return lines.map((l) => cut(l, width));
}

/** At most `width` characters (code points), the last one `…` when cut. */
export function cut(line: string, width: number): string {
  const chars = [...line];
  if (chars.length <= width) return line;
  return width <= 0 ? '' : `${chars.slice(0, width - 1).join('')}…`;
}

/** The keys in a chunk of terminal input (arrow keys in both cursor modes). */
export function decodeKeys(data: string): Key[] {
  const keys: Key[] = [];
  let i = 0;
  while (i < data.length) {
    const rest = data.slice(i);
    // An escape sequence is one key: an arrow (either cursor mode) or something else (PgUp, F5).
    // eslint-disable-next-line no-control-regex
    const seq = /^\u001b(?:[[O]([A-D])|\[[0-9;]*[~A-Za-z])/.exec(rest);
    if (seq) {
      keys.push(seq[1] === 'A' ? Key.Up : seq[1] === 'B' ? Key.Down : Key.Other);
      i += seq[0].length;
      continue;
    }
    const ch = rest[0] as string;
    i += 1;
    keys.push(SINGLE[ch.toLowerCase()] ?? (ch === '\u0003' ? Key.Interrupt : ch === '\u001b' ? Key.Escape : Key.Other));
  }
  return keys;
}

const SINGLE: Readonly<Record<string, Key>> = { h: Key.View, x: Key.Cancel, y: Key.Yes, n: Key.No, q: Key.Quit, k: Key.Up, j: Key.Down };
