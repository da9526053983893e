import { describe, expect, test } from '@jest/globals';
import { parse } from 'yaml';
import { heldOutputLines, HeldOutput, nextCheckText } from './held-output.js';
import { rowData, RowState, type HeldRow } from './held-panel.js';

const NOW = Date.parse('2026-09-01T12:00:00Z');
const rows: HeldRow[] = [
  {
    namespace: 'team-a',
    name: 'web-7',
    uid: 'u1',
    target: 'acme/web#7',
    conditions: 'jira',
    phase: 'Held',
    state: RowState.Watching,
    heldSince: '2026-09-01T09:46:00.000Z',
    waitedSeconds: 2 * 3600 + 14 * 60,
    nextCheckAt: '2026-09-01T12:04:00.000Z',
  },
  {
    namespace: 'b',
    name: 'api-5',
    uid: 'u2',
    target: undefined,
    conditions: 'after',
    phase: 'Pending',
    state: RowState.Pending,
    heldSince: undefined,
    waitedSeconds: 0,
  },
];

describe('held -o', () => {
  test.each<[HeldOutput, string[]]>([
    [
      HeldOutput.Wide,
      [
        'NAMESPACE   NAME    TARGET       STATE      WAITED   NEXT CHECK',
        'team-a      web-7   acme/web#7   watching   2h14m    in 4m',
        'b           api-5   -            pending    -        -',
      ],
    ],
    [HeldOutput.Name, ['heldjob.waitgate.dev/web-7', 'heldjob.waitgate.dev/api-5']],
  ])('%s', (format, lines) => {
    expect(heldOutputLines(format, rows, NOW)).toEqual(lines);
  });

  test('yaml holds the same rows as json', () => {
    const [text] = heldOutputLines(HeldOutput.Yaml, rows, NOW);
    expect(parse(text as string)).toEqual(JSON.parse(JSON.stringify(rows.map(rowData))));
  });

  test('wide with nothing waiting is the header alone', () => {
    expect(heldOutputLines(HeldOutput.Wide, [], NOW)).toEqual(['NAMESPACE   NAME   TARGET   STATE   WAITED   NEXT CHECK']);
  });

  test.each<[string | undefined, string]>([
    [undefined, '-'],
    ['garbled', '-'],
    ['2026-09-01T11:00:00Z', 'due'],
    ['2026-09-01T12:00:30Z', 'in 30s'],
  ])('next check %s reads %s', (at, text) => {
    expect(nextCheckText(at, NOW)).toBe(text);
  });
});
