import { describe, expect, test } from '@jest/globals';
import { Better, judge, percentile, renderJson, renderMarkdown, type Row } from './report.js';

const row = (over: Partial<Row>): Row => ({
  what: 'x',
  how: 'h',
  figure: 1,
  unit: 'MiB',
  against: { label: 'limit', value: 1 },
  better: Better.Lower,
  target: 1,
  ...over,
});

describe('judge', () => {
  test.each([
    ['under its limit', row({ figure: 200, against: { label: 'limit', value: 256 } }), 200 / 256, true],
    ['over its limit', row({ figure: 300, against: { label: 'limit', value: 256 } }), 300 / 256, false],
    ['at its limit', row({ figure: 256, against: { label: 'limit', value: 256 } }), 1, true],
    [
      'a rate at 0.9 of its peer',
      row({ figure: 90, against: { label: 'peer', value: 100 }, better: Better.Higher, target: 0.8 }),
      0.9,
      true,
    ],
    [
      'a rate at 0.5 of its peer',
      row({ figure: 50, against: { label: 'peer', value: 100 }, better: Better.Higher, target: 0.8 }),
      0.5,
      false,
    ],
    ['zero against a zero limit', row({ figure: 0, against: { label: 'limit', value: 0 } }), 0, true],
    ['one against a zero limit', row({ figure: 1, against: { label: 'limit', value: 0 } }), Infinity, false],
  ])('%s', (_n, r, ratio, met) => {
    const j = judge(r);
    expect(j.ratio).toBeCloseTo(ratio);
    expect(j.met).toBe(met);
  });
});

describe('percentile', () => {
  test.each([
    [[], 99, NaN],
    [[5], 50, 5],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50, 5],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99, 10],
    [[10, 1, 5], 0, 1],
  ])('%j p%d', (values, p, want) => {
    expect(percentile(values, p)).toEqual(want);
  });
});

test('the table names each figure, its peer, the ratio and whether it met the target', () => {
  const run = {
    date: '2026-12-03',
    commit: 'abc1234',
    machine: '2 cores',
    durationS: 600,
    rows: [judge(row({ what: 'held RSS', figure: 300, against: { label: 'limit', value: 256 }, note: 'the cache' }))],
  };
  const md = renderMarkdown(run);
  expect(md).toContain('| held RSS | 300 MiB | limit: 256 MiB | 1.17 | ≤ 1.00 | **no** | h |');
  expect(md).toContain('- **held RSS**: the cache');
  const json = JSON.parse(renderJson({ ...run, rows: [judge(row({ figure: 1, against: { label: 'l', value: 0 } }))] })) as {
    rows: { ratio: number | null }[];
  };
  expect(json.rows[0]?.ratio).toBeNull();
});
