import { describe, expect, test } from '@jest/globals';
import { seriesIn } from './metrics-text.js';

const TEXT = [
  '# HELP nodejs_heap_size_used_bytes Process heap size used from Node.js in bytes.',
  '# TYPE nodejs_heap_size_used_bytes gauge',
  'nodejs_heap_size_used_bytes 1048576',
  'nodejs_heap_space_size_total_bytes{space="code"} 2097152',
  'nodejs_heap_space_size_total_bytes{space="old"} 9',
  'waitgate_wakes_armed_total 0',
].join('\n');

describe('seriesIn: one series of a scrape', () => {
  test.each<[string, string, number | undefined]>([
    ['a bare series', 'nodejs_heap_size_used_bytes', 1_048_576],
    ['a series with labels, exactly as exposed', 'nodejs_heap_space_size_total_bytes{space="code"}', 2_097_152],
    ['zero is a value, not missing', 'waitgate_wakes_armed_total', 0],
    ['a name that only prefixes another is not it', 'nodejs_heap_size', undefined],
    ['a series not exposed', 'waitgate_missing', undefined],
    ['the HELP line is not the value', 'nodejs_heap_space_size_total_bytes', undefined],
  ])('%s', (_name, series, value) => {
    expect(seriesIn(TEXT, series)).toBe(value);
  });
});
