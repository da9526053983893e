import { describe, expect, test } from '@jest/globals';
import type { HeldJobObject, HeldJobStatus } from '../api/heldjob-schema.js';
import { heldRows, renderPanel, rowData, type HeldRow } from './held-panel.js';

const NOW = Date.parse('2026-09-01T12:00:00Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const MIN = 60_000;

function hj(
  name: string,
  spec: Record<string, unknown>,
  status?: HeldJobStatus,
  extra: Partial<HeldJobObject['metadata']> = {},
): HeldJobObject {
  return {
    metadata: { name, namespace: 'team-a', uid: `uid-${name}`, ...extra },
    spec: { trigger: 'deploy', job: { template: {} }, ...spec },
    ...(status ? { status } : {}),
  };
}

const held = (name: string, target: string, label: string, waitedMs: number) =>
  hj(name, { target, waitFor: [{ profile: 'jira' }] }, { phase: 'Held', waitLabel: label, heldSince: ago(waitedMs) });

/** Held with the Waiting condition the operator writes: `reason`, True or False. */
const waitingBecause = (name: string, target: string, reason: string, waitedMs: number, status: 'True' | 'False' = 'True') =>
  hj(
    name,
    { target, waitFor: [{ profile: 'jira' }] },
    {
      phase: 'Held',
      waitLabel: 'jira',
      heldSince: ago(waitedMs),
      conditions: [{ type: 'Waiting', status, reason, message: 'm', lastTransitionTime: ago(MIN) }],
    },
  );

describe('heldRows: what counts as waiting', () => {
  test('Held and Pending count; running, finished, refused and cancelling ones do not', () => {
    const rows = heldRows(
      [
        held('a', 'acme/web#7', 'jira', 10 * MIN),
        hj('queued', { target: 'acme/web#8', waitFor: [{ profile: 'ci' }] }, { phase: 'Pending', waitLabel: 'ci' }),
        hj('fresh', { target: 'acme/web#9', waitFor: [{ after: '2026-09-02T09:00:00+02:00' }] }),
        hj('run', { target: 'acme/web#10' }, { phase: 'Running', heldSince: ago(MIN) }),
        hj('done', { target: 'acme/web#11' }, { phase: 'Succeeded' }),
        hj('refused', { target: 'acme/web#12' }, { phase: 'Refused', reason: 'wait-expired' }),
        {
          ...held('going', 'acme/web#13', 'jira', 5 * MIN),
          metadata: { name: 'going', namespace: 'team-a', uid: 'u', deletionTimestamp: ago(1000) },
        },
      ],
      NOW,
    );
    expect(rows.map((r) => [r.name, r.phase])).toEqual([
      ['a', 'Held'],
      ['fresh', 'Pending'],
      ['queued', 'Pending'],
    ]);
  });

  test.each<[string, HeldJobObject, string]>([
    ['no Waiting condition', held('a', 'acme/web#7', 'jira', MIN), 'watching'],
    ['Waiting NotYet', waitingBecause('a', 'acme/web#7', 'NotYet', MIN), 'watching'],
    ['Waiting CouldNotTell', waitingBecause('a', 'acme/web#7', 'CouldNotTell', MIN), 'watching'],
    ['Waiting ScopeQueued', waitingBecause('a', 'acme/web#7', 'ScopeQueued', MIN), 'scope-queued'],
    ['ScopeQueued, but not True', waitingBecause('a', 'acme/web#7', 'ScopeQueued', MIN, 'False'), 'watching'],
    ['Pending', hj('p', { target: 'acme/web#8' }, { phase: 'Pending' }), 'pending'],
    ['no status', hj('p', { target: 'acme/web#8' }), 'pending'],
  ])('what it waits on: %s → %s', (_n, item, state) => {
    expect(heldRows([item], NOW)[0]?.state).toBe(state);
  });

  test('longest held first; the waited time counts from heldSince, not creation', () => {
    const rows = heldRows(
      [
        held('b', 'acme/web#31', 'jira', 41 * MIN),
        held('a', 'acme/web#7', 'after 2026-09-01T09:00Z + jira', 134 * MIN),
        held('c', 'acme/api#5', 'ci', 8 * MIN),
      ],
      NOW,
    );
    expect(rows.map((r) => [r.target, r.waitedSeconds])).toEqual([
      ['acme/web#7', 134 * 60],
      ['acme/web#31', 41 * 60],
      ['acme/api#5', 8 * 60],
    ]);
  });

  test('without a status label the label is built from spec.waitFor, in UTC', () => {
    const [row] = heldRows(
      [hj('x', { target: 'acme/web#7', waitFor: [{ after: '2026-09-02T09:00:00+02:00' }, { profile: 'jira' }] })],
      NOW,
    );
    expect(row?.conditions).toBe('after 2026-09-02T07:00Z + jira');
  });

  test('a target that is not an id-only target never reaches a row; nor do control characters in a label', () => {
    const [row] = heldRows([held('x', 'Fix the login page (#7)', 'jira\u001b]0;owned\u0007', MIN)], NOW);
    expect(row?.target).toBeUndefined();
    expect(row?.conditions).toBe('jira?]0;owned?');
    expect(renderPanel(heldRows([held('x', 'Fix the login page', 'jira', MIN)], NOW))[1]).toBe(
      '  ○ (unreadable target) · jira · waited 1m',
    );
  });
});

describe('renderPanel', () => {
  const rows = (n: number): HeldRow[] =>
    heldRows(
      Array.from({ length: n }, (_, i) =>
        held(`hj-${i}`, `acme/web#${i + 1}`, i % 2 ? 'ci' : 'after 2026-09-01T09:00Z + jira', (n - i) * 37 * MIN),
      ),
      NOW,
    );

  test('nothing waiting and nothing pending: the section is hidden', () => {
    expect(renderPanel([])).toEqual([]);
    expect(renderPanel([], { all: true })).toEqual([]);
    expect(renderPanel([], { keys: 'h view' })).toEqual([]);
  });

  test('the live panel adds its key to the first line', () => {
    expect(renderPanel(rows(4), { keys: 'h view' })).toEqual([
      'held · 4 waiting · h view',
      '  ○ acme/web#1 · after 2026-09-01T09:00Z + jira · waited 2h28m',
      '  ○ acme/web#2 · ci · waited 1h51m',
      '  ○ acme/web#3 · after 2026-09-01T09:00Z + jira · waited 1h14m',
      '  ↓ 1 more',
    ]);
  });

  const pending = (name: string, target: string) =>
    hj(name, { target, waitFor: [{ profile: 'ci' }] }, { phase: 'Pending', waitLabel: 'ci' });

  test.each<[string, HeldJobObject[], string[]]>([
    [
      'only pending: shown, counted apart, none waiting',
      [pending('p', 'acme/web#8')],
      ['held · 0 waiting · 1 pending', '  ○ acme/web#8 · ci · queued, not held yet'],
    ],
    [
      'waiting and pending: counted apart, pending listed after the waiting',
      [
        pending('p', 'acme/web#8'),
        held('a', 'acme/web#7', 'jira', 5 * MIN),
        hj('fresh', { target: 'acme/web#9', waitFor: [{ profile: 'ci' }] }),
      ],
      [
        'held · 1 waiting · 2 pending',
        '  ○ acme/web#7 · jira · waited 5m',
        '  ○ acme/web#9 · ci · queued, not held yet',
        '  ○ acme/web#8 · ci · queued, not held yet',
      ],
    ],
    [
      'four waiting and one pending: three rows, the rest counted',
      [1, 2, 3, 4].map((i) => held(`h${i}`, `acme/web#${i}`, 'jira', (10 - i) * MIN)).concat(pending('p', 'acme/web#9')),
      [
        'held · 4 waiting · 1 pending',
        '  ○ acme/web#1 · jira · waited 9m',
        '  ○ acme/web#2 · jira · waited 8m',
        '  ○ acme/web#3 · jira · waited 7m',
        '  ↓ 2 more',
      ],
    ],
    [
      'queued for a scope slot: counted apart from the waiting ones, in the order of their hold',
      [
        pending('p', 'acme/web#8'),
        waitingBecause('s', 'acme/web#5', 'ScopeQueued', 50 * MIN),
        held('a', 'acme/web#7', 'jira', 5 * MIN),
        waitingBecause('t', 'acme/web#6', 'ScopeQueued', 80 * MIN),
      ],
      [
        'held · 1 waiting · 2 queued for a scope slot · 1 pending',
        '  ○ acme/web#6 · jira · cleared, queued for a scope slot · waited 1h20m',
        '  ○ acme/web#5 · jira · cleared, queued for a scope slot · waited 50m',
        '  ○ acme/web#7 · jira · waited 5m',
        '  ↓ 1 more',
      ],
    ],
    [
      'only queued for a scope slot: none waiting on conditions',
      [waitingBecause('s', 'acme/web#5', 'ScopeQueued', 2 * MIN)],
      ['held · 0 waiting · 1 queued for a scope slot', '  ○ acme/web#5 · jira · cleared, queued for a scope slot · waited 2m'],
    ],
    [
      'running and finished only: hidden',
      [hj('run', { target: 'acme/web#10' }, { phase: 'Running' }), hj('done', { target: 'acme/web#11' }, { phase: 'Succeeded' })],
      [],
    ],
  ])('%s', (_n, items, lines) => {
    expect(renderPanel(heldRows(items, NOW))).toEqual(lines);
  });

  test('two waiting: both rows, no "more"', () => {
    expect(renderPanel(rows(2))).toEqual([
      'held · 2 waiting',
      '  ○ acme/web#1 · after 2026-09-01T09:00Z + jira · waited 1h14m',
      '  ○ acme/web#2 · ci · waited 37m',
    ]);
  });

  test('five waiting: three rows and a count of the rest; --all shows every row', () => {
    expect(renderPanel(rows(5))).toEqual([
      'held · 5 waiting',
      '  ○ acme/web#1 · after 2026-09-01T09:00Z + jira · waited 3h5m',
      '  ○ acme/web#2 · ci · waited 2h28m',
      '  ○ acme/web#3 · after 2026-09-01T09:00Z + jira · waited 1h51m',
      '  ↓ 2 more',
    ]);
    const all = renderPanel(rows(5), { all: true });
    expect(all).toHaveLength(6);
    expect(all.at(-1)).toBe('  ○ acme/web#5 · after 2026-09-01T09:00Z + jira · waited 37m');
  });

  test('when it releases and gives up: in the data, and in the whole list (--all), not in the three-row panel', () => {
    const inAnHour = new Date(NOW + 60 * MIN).toISOString();
    const inADay = new Date(NOW + 24 * 60 * MIN).toISOString();
    const items = [
      hj(
        'w',
        { target: 'acme/web#7', waitFor: [{ profile: 'jira' }] },
        {
          phase: 'Held',
          waitLabel: 'after 2026-09-01T09:00Z + jira',
          heldSince: ago(5 * MIN),
          releaseAt: inAnHour,
          givesUpAt: inADay,
          nextCheckAt: inAnHour,
        },
      ),
    ];
    const rows = heldRows(items, NOW);
    expect(rowData(rows[0] as HeldRow)).toMatchObject({ releaseAt: inAnHour, givesUpAt: inADay, nextCheckAt: inAnHour });
    expect(renderPanel(rows)[1]).toBe('  ○ acme/web#7 · after 2026-09-01T09:00Z + jira · waited 5m');
    expect(renderPanel(rows, { all: true })[1]).toBe(
      '  ○ acme/web#7 · after 2026-09-01T09:00Z + jira · waited 5m · releases in 1h · gives up in 1d',
    );
    // A garbled instant reads as none, never as text.
    const garbled = heldRows([hj('g', { target: 'acme/web#8' }, { phase: 'Held', heldSince: ago(MIN), givesUpAt: 'soon\nrm -rf' })], NOW);
    expect(rowData(garbled[0] as HeldRow).givesUpAt).toBeNull();
  });

  test('a queued one says it is not held yet instead of a waited time', () => {
    const [, line] = renderPanel(
      heldRows([hj('q', { target: 'acme/web#8', waitFor: [{ profile: 'ci' }] }, { phase: 'Pending', waitLabel: 'ci' })], NOW),
    );
    expect(line).toBe('  ○ acme/web#8 · ci · queued, not held yet');
  });

  test('as data: namespace and name, every key present', () => {
    const [row] = rows(1);
    expect(rowData(row as HeldRow)).toEqual({
      namespace: 'team-a',
      name: 'hj-0',
      target: 'acme/web#1',
      conditions: 'after 2026-09-01T09:00Z + jira',
      phase: 'Held',
      state: 'watching',
      heldSince: ago(37 * MIN),
      waitedSeconds: 37 * 60,
      releaseAt: null,
      givesUpAt: null,
      nextCheckAt: null,
    });
    const [pending] = heldRows([hj('q', { target: 'acme/web#8' })], NOW);
    expect(rowData(pending as HeldRow)).toMatchObject({
      heldSince: null,
      waitedSeconds: 0,
      phase: 'Pending',
      state: 'pending',
      conditions: '-',
    });
  });
});
