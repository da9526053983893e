import { describe, expect, test } from '@jest/globals';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { Phase } from '../../api/vocabulary.js';
import { labelEvent, siblingHeldJob } from '../../test/support/fakes-receiver.js';
import { decideBounded } from './concurrency.js';

const gen = (n: number, status?: HeldJobObject['status'], annotations: Record<string, string> = {}) =>
  siblingHeldJob(`web-7-notify-${n}`, {
    trigger: 'notify',
    ...(status ? { status } : {}),
    annotations: { 'waitgate.dev/hold-generation': String(n), 'waitgate.dev/delivery': `other-${n}`, ...annotations },
  });
const running = (n: number) => gen(n, { phase: Phase.Running, jobName: `job-${n}`, launchedAt: '2026-09-01T08:00:00Z' });
const pending = (n: number) => gen(n, { phase: Phase.Pending });
const done = (n: number) => gen(n, { phase: Phase.Succeeded, jobName: `job-${n}`, launchedAt: '2026-09-01T07:00:00Z' });

const queued = (n: number) =>
  gen(n, {
    phase: Phase.Held,
    jobName: `job-${n}`,
    conditions: [{ type: 'Waiting', status: 'True', reason: 'ScopeQueued', message: 'm', lastTransitionTime: '2026-09-01T08:00:00Z' }],
  });
const names = (d: ReturnType<typeof decideBounded>) =>
  d.kind === 'superseded' ? undefined : (d.supersedes ?? []).map((h) => h.metadata.name);

describe('decideBounded: one running, one pending, the newest pending wins (#30, finding 4)', () => {
  test.each<[string, HeldJobObject[], number | undefined, object, string[] | undefined]>([
    ['nothing live: the first generation', [], undefined, { kind: 'hold', generation: 1 }, []],
    ['Valkey remembers generation 4, none live: the fifth', [], 4, { kind: 'hold', generation: 5 }, []],
    ['one finished: the next', [done(1)], 1, { kind: 'hold', generation: 2 }, []],
    ['one running: the next is the pending one', [running(1)], 1, { kind: 'hold', generation: 2 }, []],
    [
      'one not yet looked at by the operator (no status): the next supersedes it',
      [gen(1)],
      1,
      { kind: 'hold', generation: 2 },
      ['web-7-notify-1'],
    ],
    ['one pending: the next supersedes it', [pending(1)], 1, { kind: 'hold', generation: 2 }, ['web-7-notify-1']],
    [
      'one queued for its scope place (its Job named in status): still pending, superseded',
      [running(1), queued(2)],
      2,
      { kind: 'hold', generation: 3 },
      ['web-7-notify-2'],
    ],
    [
      'one running and one pending: the pending one superseded',
      [running(1), pending(2)],
      2,
      { kind: 'hold', generation: 3 },
      ['web-7-notify-2'],
    ],
    [
      'one already marked superseded is not live: the newest pending is the one superseded',
      [running(1), gen(2, { phase: Phase.Pending }, { 'waitgate.dev/superseded-by': 'web-7-notify-3' }), pending(3)],
      3,
      { kind: 'hold', generation: 4 },
      ['web-7-notify-3'],
    ],
    [
      'three superseded holds not yet ended (no operator about): counted, nothing more made',
      [
        ...[1, 2, 3].map((n) => gen(n, { phase: Phase.Pending }, { 'waitgate.dev/superseded-by': `web-7-notify-${String(n + 1)}` })),
        pending(4),
      ],
      4,
      { kind: 'superseded', by: 'web-7-notify-4' },
      undefined,
    ],
    ['two running (no scope limit queued the second): counted', [running(1), running(2)], 2, { kind: 'superseded' }, undefined],
    ['a finished one and a running one: the next', [done(1), running(2)], 2, { kind: 'hold', generation: 3 }, []],
    [
      'a refusal record is never a hold',
      [gen(0, { phase: Phase.Refused }, { 'waitgate.dev/refusal': 'wait-superseded' })],
      0,
      { kind: 'hold', generation: 1 },
      [],
    ],
    [
      'its own hold, from an earlier handling of this delivery: its answer',
      [gen(1, { phase: Phase.Pending }, { 'waitgate.dev/delivery': 'd-1' })],
      1,
      { kind: 'recorded', recorded: { outcome: 'held', heldJob: 'web-7-notify-1' } },
      [],
    ],
    [
      'its own hold, and an older pending one an earlier handling did not get to mark: marked now',
      [pending(1), gen(2, { phase: Phase.Pending }, { 'waitgate.dev/delivery': 'd-1' })],
      2,
      { kind: 'recorded', recorded: { outcome: 'held', heldJob: 'web-7-notify-2' } },
      ['web-7-notify-1'],
    ],
  ])('%s', (_n, live, generation, decision, supersedes) => {
    const d = decideBounded(labelEvent(), 'notify', live, { generation });
    expect(d).toMatchObject(decision);
    expect(names(d)).toEqual(supersedes);
  });
});
