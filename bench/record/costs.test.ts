import { describe, expect, test } from '@jest/globals';
import { apiserverMsPerUnit, boundOf, costLines, cpuMsPerUnit, writesPerUnit, type Costs } from './costs.js';

/** 1,000 launches over 10 s: 4 writes and a dry run each, 40 ms of CPU each. */
const launches: Costs = {
  per: 'launch',
  units: 1000,
  windowS: 10,
  requests: [
    { what: 'update heldjobs/status', perUnit: 2, meanMs: 10, failedPerUnit: { '409': 0.1 } },
    { what: 'create jobs', perUnit: 1, meanMs: 12 },
    { what: 'create jobs (dry run)', perUnit: 1, meanMs: 5 },
    { what: 'create events', perUnit: 1, meanMs: 4 },
    { what: 'get heldjobs', perUnit: 0.004 },
    { what: 'list pods', perUnit: 0.002 },
  ],
  cpuS: { operator: 10, apiserver: 25, etcd: 4, bench: 1 },
  machine: { cores: 2, busyS: 19 },
};

/** The plain loop's 1,000: a Job create and a status write each, 10 ms of CPU each. */
const raw: Costs = {
  per: 'launch',
  units: 1000,
  windowS: 4,
  requests: [
    { what: 'create jobs', perUnit: 1, meanMs: 8 },
    { what: 'update heldjobs/status', perUnit: 1, meanMs: 6 },
  ],
  cpuS: { bench: 2, apiserver: 7, etcd: 1 },
  machine: { cores: 2, busyS: 6 },
};

describe('per-unit sums', () => {
  test.each([
    ['writes (dry runs and reads apart)', writesPerUnit(launches), 4],
    ['CPU ms across the processes', cpuMsPerUnit(launches), 40],
    ['apiserver ms serving them', apiserverMsPerUnit(launches), 2 * 10 + 12 + 5 + 4],
    ['writes of the plain loop', writesPerUnit(raw), 2],
  ])('%s', (_name, got, want) => {
    expect(got).toBeCloseTo(want);
  });

  test("children's CPU counts; no units is no rate", () => {
    expect(cpuMsPerUnit({ ...raw, childrenCpuS: { bench: 10 } })).toBeCloseTo(20);
    expect(cpuMsPerUnit({ ...raw, units: 0 })).toBeNaN();
  });
});

describe('costLines', () => {
  test('the first three kinds named however few, the rest summed', () => {
    const idle: Costs = {
      ...launches,
      requests: [
        { what: 'update leases', perUnit: 0.004 },
        { what: 'get nodes', perUnit: 0.003 },
        { what: 'list pods', perUnit: 0.002 },
        { what: 'get pods', perUnit: 0.001 },
      ],
    };
    expect(costLines(idle)[0]).toBe(
      'requests per launch (mean apiserver time each): update leases 0.004, get nodes 0.003, list pods 0.002, others 0.001',
    );
  });

  test('requests per unit with mean times and failures, the small ones summed; CPU by process and the machine', () => {
    expect(costLines(launches)).toEqual([
      'requests per launch (mean apiserver time each): update heldjobs/status 2.00 (10 ms; 409: 0.10), create jobs 1.00 (12 ms), create jobs (dry run) 1.00 (5.0 ms), create events 1.00 (4.0 ms), others 0.006',
      'CPU s over 10.0 s: operator 10.0, apiserver 25.0, etcd 4.0, bench 1.0; the machine was busy 1.90 of its 2 cores',
    ]);
  });

  test("children's CPU beside their parent; no apiserver read, no requests line; none served, said so", () => {
    const slots: Costs = {
      per: 'pair',
      units: 100,
      windowS: 2,
      cpuS: { bench: 1.5, redis: 0.5 },
      childrenCpuS: { bench: 0.3 },
      machine: { cores: 2, busyS: 2 },
    };
    expect(costLines(slots)).toEqual([
      'CPU s over 2.0 s: bench 1.5 (+ 0.3 in its children), redis 0.5; the machine was busy 1.00 of its 2 cores',
    ]);
    expect(costLines({ ...slots, requests: [] })[0]).toBe('no apiserver requests in the window');
  });
});

describe('boundOf', () => {
  test("a rate beside its peer: the ratio at best, at the peer's cost per write and per CPU ms", () => {
    const b = boundOf(launches, raw, true);
    expect(b).toContain("4.00 writes a launch against the peer's 2.00: were the writes the bound, the ratio would be 0.50");
    expect(b).toContain(
      "40.0 ms of CPU a launch (apiserver 25.0, operator 10.0, etcd 4.00, bench 1.00) against the peer's 10.0 ms: were the CPU the bound, the ratio would be 0.25",
    );
    expect(b).toContain("at that CPU the machine's 2 cores could do at most 50 a second");
    expect(b).toContain("the apiserver's answers to one launch's requests took 41.0 ms together");
    expect(b).toContain('the busiest process was apiserver at 2.50 of a core, and the machine was busy 1.90 of its 2 cores');
  });

  test('a time beside its peer: ours over the peer at best', () => {
    expect(boundOf(launches, raw, false)).toContain('were the writes the bound, the ratio would be 2.00');
  });

  test('no peer: the counts alone', () => {
    const b = boundOf(launches, undefined, true);
    expect(b).toMatch(/^from this run's counts: 4\.00 writes a launch; 40\.0 ms of CPU a launch \(/);
    expect(b).not.toContain('the ratio would be');
  });
});
