import { describe, expect, test } from '@jest/globals';
import {
  isWrite,
  parseApiserverRequests,
  perUnit,
  requestName,
  requestsBetween,
  totalOf,
  type RequestCounts,
} from './apiserver-requests.js';

/** One series line as the apiserver writes it (labels in its order). */
function series(metric: string, labels: Record<string, string>, value: number): string {
  const all = {
    code: '',
    component: 'apiserver',
    dry_run: '',
    group: '',
    resource: '',
    scope: 'resource',
    subresource: '',
    verb: '',
    version: 'v1',
    ...labels,
  };
  const text = Object.entries(all)
    .filter(([k, v]) => !(k === 'code' && v === '' && metric !== 'apiserver_request_total'))
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  return `${metric}{${text}} ${String(value)}`;
}

const total = (labels: Record<string, string>, n: number) => series('apiserver_request_total', { code: '200', ...labels }, n);
const timing = (labels: Record<string, string>, seconds: number, count: number) => [
  series('apiserver_request_duration_seconds_sum', labels, seconds),
  series('apiserver_request_duration_seconds_count', labels, count),
];

const heldStatus = { group: 'waitgate.dev', resource: 'heldjobs', subresource: 'status', verb: 'PUT' };
const jobCreate = { group: 'batch', resource: 'jobs', verb: 'POST' };
const jobDryRun = { group: 'batch', resource: 'jobs', verb: 'POST', dry_run: 'All' };

describe('requestName', () => {
  test.each([
    [{ verb: 'POST', resource: 'jobs' }, 'create jobs'],
    [{ verb: 'PUT', resource: 'heldjobs', subresource: 'status' }, 'update heldjobs/status'],
    [{ verb: 'PATCH', resource: 'heldjobs' }, 'patch heldjobs'],
    [{ verb: 'APPLY', resource: 'heldjobs' }, 'apply heldjobs'],
    [{ verb: 'LIST', resource: 'heldjobs' }, 'list heldjobs'],
    [{ verb: 'WATCH', resource: 'jobs' }, 'watch jobs'],
    [{ verb: 'DELETE', resource: 'pods' }, 'delete pods'],
    [{ verb: 'POST', resource: 'jobs', dry_run: 'All' }, 'create jobs (dry run)'],
    [{ verb: 'SOMETHINGNEW', resource: 'jobs' }, 'somethingnew jobs'],
    // Requests to no resource (/metrics, /healthz, discovery) are not a hold's.
    [{ verb: 'GET', resource: '', subresource: '/metrics' }, undefined],
  ])('%j is %s', (labels, name) => {
    expect(requestName(labels)).toBe(name);
  });
});

describe('isWrite', () => {
  test.each([
    ['create jobs', true],
    ['update heldjobs/status', true],
    ['patch heldjobs', true],
    ['delete pods', true],
    ['create jobs (dry run)', false],
    ['get heldjobs', false],
    ['list heldjobs', false],
    ['watch jobs', false],
  ])('%s: %s', (name, write) => {
    expect(isWrite(name)).toBe(write);
  });
});

describe('parseApiserverRequests', () => {
  const text = [
    '# HELP apiserver_request_total [STABLE] Counter of apiserver requests',
    '# TYPE apiserver_request_total counter',
    total(heldStatus, 30),
    series('apiserver_request_total', { code: '409', ...heldStatus }, 4),
    total(jobCreate, 10),
    total(jobDryRun, 10),
    total({ verb: 'GET', resource: '', subresource: '/metrics', component: '', version: '' }, 7),
    ...timing(heldStatus, 0.34, 34),
    ...timing(jobCreate, 0.25, 10),
    series('apiserver_request_duration_seconds_bucket', { ...jobCreate, le: '0.005' }, 3),
    'apiserver_request_total_not_this{verb="POST",resource="jobs"} 99',
    '',
  ].join('\n');

  test('tallies by verb and resource: counts, failed answers by code, the duration histogram', () => {
    const counts = parseApiserverRequests(text);
    expect(Object.fromEntries(counts)).toEqual({
      'update heldjobs/status': { count: 34, failed: { '409': 4 }, seconds: 0.34, timed: 34 },
      'create jobs': { count: 10, failed: {}, seconds: 0.25, timed: 10 },
      'create jobs (dry run)': { count: 10, failed: {}, seconds: 0, timed: 0 },
    });
  });

  test('an empty or foreign text is no requests', () => {
    expect(parseApiserverRequests('').size).toBe(0);
    expect(parseApiserverRequests('up 1\nprocess_cpu_seconds_total 3').size).toBe(0);
  });
});

const tally = (count: number, failed: Record<string, number> = {}, seconds = 0, timed = 0) => ({ count, failed, seconds, timed });

describe('requestsBetween', () => {
  test.each<[string, RequestCounts, RequestCounts, Record<string, ReturnType<typeof tally>>]>([
    [
      'the difference of each, new kinds whole, unchanged ones left out',
      new Map([
        ['update heldjobs/status', tally(10, { '409': 1 }, 0.25, 10)],
        ['list heldjobs', tally(5)],
      ]),
      new Map([
        ['update heldjobs/status', tally(30, { '409': 3 }, 0.5, 30)],
        ['list heldjobs', tally(5)],
        ['create jobs', tally(10, {}, 0.2, 10)],
      ]),
      {
        'update heldjobs/status': tally(20, { '409': 2 }, 0.25, 20),
        'create jobs': tally(10, {}, 0.2, 10),
      },
    ],
    [
      'a counter that went down (the apiserver restarted) counts from zero',
      new Map([['create jobs', tally(100, {}, 1, 100)]]),
      new Map([['create jobs', tally(7, {}, 0.07, 7)]]),
      { 'create jobs': tally(7, {}, 0.07, 7) },
    ],
    ['nothing served, nothing counted', new Map([['get jobs', tally(3)]]), new Map([['get jobs', tally(3)]]), {}],
  ])('%s', (_name, before, after, want) => {
    expect(Object.fromEntries(requestsBetween(before, after))).toEqual(want);
  });
});

describe('perUnit', () => {
  const served: RequestCounts = new Map([
    ['create jobs', tally(1000, {}, 12, 1000)],
    ['update heldjobs/status', tally(2000, { '409': 100 }, 20, 2000)],
    ['watch jobs', tally(3)],
    ['list heldjobs', tally(1)],
  ]);

  test('per unit, most first, WATCH left out, mean time and failures per unit where known', () => {
    expect(perUnit(served, 1000)).toEqual([
      { what: 'update heldjobs/status', perUnit: 2, meanMs: 10, failedPerUnit: { '409': 0.1 } },
      { what: 'create jobs', perUnit: 1, meanMs: 12 },
      { what: 'list heldjobs', perUnit: 0.001 },
    ]);
  });

  test('no units, no rates', () => {
    expect(perUnit(served, 0)).toEqual([]);
  });
});

describe('totalOf', () => {
  const served: RequestCounts = new Map([
    ['update heldjobs/status', tally(4)],
    ['list heldjobs', tally(1)],
    ['watch heldjobs', tally(2)],
    ['update leases', tally(50)],
  ]);
  test.each([
    [['heldjobs'], 'requests', 5],
    [['heldjobs'], 'watches', 2],
    [['heldjobs', 'leases'], 'requests', 55],
    [['jobs'], 'requests', 0],
  ] as const)('%j %s: %d', (resources, which, want) => {
    expect(totalOf(served, resources, which)).toBe(want);
  });
});
