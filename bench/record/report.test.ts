import { describe, expect, test } from '@jest/globals';
import type { Costs } from './costs.js';
import { Better, judge, notesOf, percentile, renderJson, renderMarkdown, type Row } from './report.js';

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

const costs = (per: string, writes: number, cpuS: number): Costs => ({
  per,
  units: 100,
  windowS: 10,
  requests: [{ what: 'create jobs', perUnit: writes, meanMs: 5 }],
  cpuS: { apiserver: cpuS },
  machine: { cores: 2, busyS: 10 },
});

describe('costs and bounds beside a row', () => {
  const herd = (figure: number) =>
    row({
      what: 'herd',
      figure,
      unit: 'launches/s',
      against: { label: 'raw writes', value: 100 },
      better: Better.Higher,
      target: 0.8,
      costs: costs('launch', 4, 4),
      peerCosts: costs('launch', 2, 1),
    });

  test("a missed row names its bound from its counts and its peer's", () => {
    const j = judge(herd(30));
    expect(j.met).toBe(false);
    expect(j.bound).toContain("4.00 writes a launch against the peer's 2.00: were the writes the bound, the ratio would be 0.50");
    expect(j.bound).toContain('were the CPU the bound, the ratio would be 0.25');
  });

  test('a met row, or one without costs, has none', () => {
    expect(judge(herd(90)).bound).toBeUndefined();
    expect(judge(row({ figure: 300, against: { label: 'limit', value: 256 } })).bound).toBeUndefined();
  });

  test("the notes: the row's own, then its costs, the peer's and the bound under it", () => {
    const lines = notesOf(judge({ ...herd(30), note: 'p99 9 ms' }));
    expect(lines[0]).toBe('- **herd**: p99 9 ms');
    const prefixes = [
      '  - requests per launch ',
      '  - CPU s over 10.0 s: ',
      '  - the peer: requests per launch ',
      '  - the peer: CPU s over ',
      "  - **bound**: from this run's counts: ",
    ];
    expect(lines.slice(1).map((l, i) => l.startsWith(prefixes[i] ?? '?'))).toEqual(prefixes.map(() => true));
    expect(notesOf(judge(row({ what: 'bare' })))).toEqual([]);
    expect(notesOf(judge(row({ what: 'costs only', costs: costs('hold', 1, 1) })))[0]).toBe('- **costs only**');
  });

  test('the JSON keeps the costs and the bound beside the figures', () => {
    const json = JSON.parse(renderJson({ date: 'd', commit: 'c', machine: 'm', durationS: 1, rows: [judge(herd(30))] })) as {
      rows: { costs: Costs; peerCosts: Costs; bound: string; ratio: number }[];
    };
    expect(json.rows[0]?.costs.requests?.[0]).toEqual({ what: 'create jobs', perUnit: 4, meanMs: 5 });
    expect(json.rows[0]?.peerCosts.cpuS).toEqual({ apiserver: 1 });
    expect(json.rows[0]?.bound).toMatch(/^from this run's counts/);
    expect(json.rows[0]?.ratio).toBeCloseTo(0.3);
  });
});
