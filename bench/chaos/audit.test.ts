import { describe, expect, test } from '@jest/globals';
import { audit, faultsDuringChecks, mostAtOnce, type Observations, type SeenHeldJob, type SeenJob } from './audit.js';
import { HoldKind, HoldSource, type PlannedHold } from './population.js';

const T = Date.parse('2026-12-03T10:00:00Z');
const s = (n: number) => T + n * 1000;

const plan: PlannedHold[] = [
  {
    name: 'c-0',
    source: HoldSource.Direct,
    kind: HoldKind.After,
    target: 'acme/r0#1',
    repo: 'acme/r0',
    afterAt: s(10),
    clearAt: undefined,
    runForS: 5,
  },
  {
    name: 'c-1',
    source: HoldSource.Direct,
    kind: HoldKind.Exec,
    target: 'acme/r0#2',
    repo: 'acme/r0',
    afterAt: undefined,
    clearAt: s(20),
    runForS: 5,
  },
];
const ok: SeenHeldJob[] = [
  { name: 'c-0', target: 'acme/r0#1', phase: 'Succeeded', reason: undefined, checks: 0 },
  { name: 'c-1', target: 'acme/r0#2', phase: 'Succeeded', reason: undefined, checks: 2 },
];
const okJobs: SeenJob[] = [
  { name: 'c-0-a', owner: 'c-0', createdAt: s(10), endedAt: s(16) },
  { name: 'c-1-a', owner: 'c-1', createdAt: s(20), endedAt: s(26) },
];
const base: Observations = {
  plan,
  heldJobs: ok,
  terminalPhasesSeen: new Map([
    ['c-0', new Set(['Succeeded'])],
    ['c-1', new Set(['Succeeded'])],
  ]),
  jobs: okJobs,
  checksRun: new Map([['acme/r0#2', [s(1), s(19)]]]),
  faultSpans: [],
  jobsDeleted: new Set(),
  slotHighs: { checkSlots: 1, all: 1, scope: 1, samples: 10 },
  limits: { checkSlots: 1, concurrency: 2, scope: 1 },
  redeliveries: { sent: 1, answered2xx: 1 },
};

describe('audit', () => {
  test.each<[string, Partial<Observations>, RegExp | undefined]>([
    ['a clean run', {}, undefined],
    [
      'a hold edited mid-launch before its Job was made: Refused wait-unreadable, no Job',
      {
        edited: new Set(['c-1']),
        heldJobs: [ok[0] as SeenHeldJob, { ...(ok[1] as SeenHeldJob), phase: 'Refused', reason: 'wait-unreadable' }],
        jobs: [okJobs[0] as SeenJob],
      },
      undefined,
    ],
    [
      'a hold edited mid-launch, Refused though its Job was made',
      {
        edited: new Set(['c-1']),
        heldJobs: [ok[0] as SeenHeldJob, { ...(ok[1] as SeenHeldJob), phase: 'Refused', reason: 'wait-unreadable' }],
      },
      /c-1 \(acme\/r0#2\): ended Refused wait-unreadable/,
    ],
    [
      'a hold not edited that ends wait-unreadable',
      {
        heldJobs: [ok[0] as SeenHeldJob, { ...(ok[1] as SeenHeldJob), phase: 'Refused', reason: 'wait-unreadable' }],
        jobs: [okJobs[0] as SeenJob],
      },
      /c-1 \(acme\/r0#2\): ended Refused wait-unreadable/,
    ],
    [
      'a hold cancelled mid-launch: gone, its Job deleted before it completed',
      {
        heldJobs: [ok[0] as SeenHeldJob],
        cancelled: new Map([['acme/r0#2', { name: 'c-1', at: s(20) }]]),
        jobs: [okJobs[0] as SeenJob, { name: 'c-1-a', owner: 'c-1', createdAt: s(20), endedAt: s(21) }],
      },
      undefined,
    ],
    [
      'a hold cancelled mid-launch whose Job ran on to its end',
      {
        heldJobs: [ok[0] as SeenHeldJob],
        cancelled: new Map([['acme/r0#2', { name: 'c-1', at: s(20) }]]),
        jobs: [okJobs[0] as SeenJob, { name: 'c-1-a', owner: 'c-1', createdAt: s(20), endedAt: s(45), completedAt: s(45) }],
      },
      /c-1: cancelled, its Job c-1-a ran on and completed 25s later/,
    ],
    [
      'a hold cancelled mid-launch just after a leader kill: its Job ran on with no leader to stop it',
      {
        heldJobs: [ok[0] as SeenHeldJob],
        cancelled: new Map([['acme/r0#2', { name: 'c-1', at: s(20) }]]),
        faultSpans: [{ start: s(19), end: s(19) }],
        jobs: [okJobs[0] as SeenJob, { name: 'c-1-a', owner: 'c-1', createdAt: s(20), endedAt: s(45), completedAt: s(45) }],
      },
      undefined,
    ],
    [
      'a hold cancelled mid-launch whose Job is still there',
      {
        heldJobs: [ok[0] as SeenHeldJob],
        cancelled: new Map([['acme/r0#2', { name: 'c-1', at: s(20) }]]),
        jobs: [okJobs[0] as SeenJob, { name: 'c-1-a', owner: 'c-1', createdAt: s(20), endedAt: undefined, remained: true }],
      },
      /c-1: cancelled, its Job c-1-a still there at the end/,
    ],
    [
      'a hold cancelled mid-launch that is still there',
      { cancelled: new Map([['acme/r0#2', { name: 'c-1', at: s(20) }]]) },
      /acme\/r0#2: cancelled at .*, still a HeldJob at the end/,
    ],
    ['a hold with no HeldJob is lost', { heldJobs: [ok[0] as SeenHeldJob] }, /acme\/r0#2: no HeldJob \(lost\)/],
    [
      'two HeldJobs for one target (a redelivery made one)',
      { heldJobs: [...ok, { ...(ok[1] as SeenHeldJob), name: 'c-1b' }] },
      /2 HeldJobs/,
    ],
    [
      'still Running at the deadline is wedged',
      { heldJobs: [ok[0] as SeenHeldJob, { ...(ok[1] as SeenHeldJob), phase: 'Running' }] },
      /still Running/,
    ],
    ['two terminal phases seen', { terminalPhasesSeen: new Map([['c-0', new Set(['Succeeded', 'Failed'])]]) }, /ended more than once/],
    [
      'JobMissing without a deletion is a loss',
      { heldJobs: [ok[0] as SeenHeldJob, { ...(ok[1] as SeenHeldJob), phase: 'Failed', reason: 'JobMissing' }] },
      /ended Failed JobMissing/,
    ],
    [
      'JobMissing after the run deleted its Job is expected',
      {
        heldJobs: [ok[0] as SeenHeldJob, { ...(ok[1] as SeenHeldJob), phase: 'Failed', reason: 'JobMissing' }],
        jobsDeleted: new Set(['c-1']),
      },
      undefined,
    ],
    ['a second Job for a hold', { jobs: [...okJobs, { name: 'c-1-b', owner: 'c-1', createdAt: s(30), endedAt: s(35) }] }, /c-1: 2 Jobs/],
    [
      'a Job before its profile cleared',
      { jobs: [okJobs[0] as SeenJob, { name: 'c-1-a', owner: 'c-1', createdAt: s(19), endedAt: s(25) }] },
      /before its conditions cleared/,
    ],
    [
      'two Jobs of one scope (a repository, by hand) at once over a scope limit of 1',
      { jobs: [okJobs[0] as SeenJob, { ...(okJobs[1] as SeenJob), createdAt: s(12) }] },
      /one scope: 2 at once/,
    ],
    ['a check slot high over its limit', { slotHighs: { checkSlots: 2, all: 1, scope: 1, samples: 10 } }, /check slots held: 2/],
    ['two checks lost with no fault', { heldJobs: [ok[0] as SeenHeldJob, { ...(ok[1] as SeenHeldJob), checks: 0 }] }, /lost 2 checks/],
    [
      'one check lost per fault during a check is allowed',
      {
        heldJobs: [ok[0] as SeenHeldJob, { ...(ok[1] as SeenHeldJob), checks: 0 }],
        faultSpans: [
          { start: s(2), end: s(2) },
          { start: s(20), end: s(20) },
        ],
      },
      undefined,
    ],
    ['a redelivery never answered', { redeliveries: { sent: 2, answered2xx: 1 } }, /never answered 2xx/],
  ])('%s', (_name, over, violation) => {
    const v = audit({ ...base, ...over });
    if (violation) expect(v.violations.join('\n')).toMatch(violation);
    else expect(v.violations).toEqual([]);
  });
});

describe('mostAtOnce', () => {
  test.each<[string, { start: number; end: number | undefined }[], number]>([
    ['none', [], 0],
    [
      'one ending as the next starts does not overlap it (second precision)',
      [
        { start: 0, end: 10 },
        { start: 10, end: 20 },
      ],
      1,
    ],
    [
      'overlapping',
      [
        { start: 0, end: 10 },
        { start: 9, end: 20 },
      ],
      2,
    ],
    [
      'one still running',
      [
        { start: 0, end: undefined },
        { start: 50, end: 60 },
      ],
      2,
    ],
  ])('%s', (_n, intervals, most) => expect(mostAtOnce(intervals)).toBe(most));
});

test.each<[string, number[], { start: number; end: number }[], number]>([
  [
    'a kill counts when a check began at most 15 s before it',
    [s(0), s(100)],
    [s(5), s(50), s(114), s(116)].map((t) => ({ start: t, end: t })),
    2,
  ],
  ['a kill noted just before a check its dying process began counts', [s(10) + 50], [{ start: s(10), end: s(10) }], 1],
  ['a kill more than a second before the check does not', [s(10) + 1_500], [{ start: s(10), end: s(10) }], 0],
  ['an outage counts for a check begun during it, or before its leader stepped down', [s(30)], [{ start: s(10), end: s(25) }], 1],
  ['an outage long over does not', [s(60)], [{ start: s(10), end: s(25) }], 0],
])('faultsDuringChecks: %s', (_n, checks, faults, n) => {
  expect(faultsDuringChecks(checks, faults)).toBe(n);
});
