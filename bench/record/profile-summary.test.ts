import { describe, expect, test } from '@jest/globals';
import { placeOf, summarize } from './profile-summary.js';

describe('placeOf', () => {
  test.each([
    ['file:///w/node_modules/@kubernetes/client-node/dist/gen/x.js', 'f', 'npm:@kubernetes/client-node'],
    ['file:///w/node_modules/undici/lib/core.js', 'f', 'npm:undici'],
    ['node:internal/streams/readable', 'f', 'node:internal'],
    ['file:///w/dist/operator/controller/reconciler.js', 'f', 'waitgate:operator'],
    ['', '(garbage collector)', '(garbage collector)'],
    ['', 'JSONParse', '(native)'],
  ])('%s %s → %s', (url, fn, place) => expect(placeOf(url, fn)).toBe(place));
});

describe('summarize', () => {
  test('self time from the samples, ranked, as shares of all samples', () => {
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });
    const s = summarize({
      startTime: 0,
      endTime: 4_000_000,
      nodes: [
        { id: 1, callFrame: frame('(root)', '') },
        { id: 2, callFrame: frame('request', 'file:///w/node_modules/undici/a.js') },
        { id: 3, callFrame: frame('reconcile', 'file:///w/dist/operator/r.js') },
        { id: 4, callFrame: frame('(garbage collector)', '') },
      ],
      samples: [2, 2, 3, 4],
    });
    expect(s.totalMs).toBe(4000);
    expect(s.byPlace).toEqual([
      { place: 'npm:undici', share: 0.5 },
      { place: 'waitgate:operator', share: 0.25 },
      { place: '(garbage collector)', share: 0.25 },
    ]);
    expect(s.byFunction[0]).toEqual({ fn: 'request npm:undici:1', share: 0.5 });
  });
});
