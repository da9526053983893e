import { describe, expect, test } from '@jest/globals';
import { formatDuration, formatSpan, oneLine, parseDuration, plural } from './format.js';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe('formatDuration: honest, rounded down, two units at most', () => {
  test.each([
    [0, '0s'],
    [999, '0s'],
    [45 * s, '45s'],
    [59_999, '59s'],
    [m, '1m'],
    [8 * m + 59 * s, '8m'],
    [41 * m, '41m'],
    [h, '1h'],
    [2 * h + 14 * m + 59 * s, '2h14m'],
    [23 * h + 59 * m, '23h59m'],
    [d, '1d'],
    [d + 6 * h + 30 * m, '1d6h'],
    [30 * d, '30d'],
    [-5 * s, '0s'],
    [Number.NaN, '0s'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('formatSpan keeps seconds under an hour', () => {
  test.each([
    [12, '12ms'],
    [1000, '1s'],
    [1020, '1s'],
    [1500, '1.5s'],
    [286_800, '4m46s'],
    [4 * m, '4m'],
    [19 * h + 43 * m + 10 * s, '19h43m'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatSpan(ms)).toBe(text);
  });
});

describe('parseDuration', () => {
  test.each([
    ['30s', 30_000],
    ['500ms', 500],
    ['2m', 120_000],
    ['1m30s', 90_000],
    ['1h', 3_600_000],
    ['90', 90_000],
    ['0.5', 500],
    ['1.5s', 1500],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
  test.each([[''], ['soon'], ['-1s'], ['1d'], ['s'], ['10 s']])('%j does not read', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

test('oneLine neutralises control characters and cuts long text', () => {
  expect(oneLine('jira\u001b[31m + ci\nnext')).toBe('jira?[31m + ci?next');
  expect(oneLine('x'.repeat(300), 10)).toBe(`${'x'.repeat(9)}…`);
});

test('plural', () => {
  expect(plural(1, 'trigger')).toBe('1 trigger');
  expect(plural(0, 'trigger')).toBe('0 triggers');
});
