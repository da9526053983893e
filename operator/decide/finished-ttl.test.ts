import { describe, expect, test } from '@jest/globals';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { SUPERSEDE_WINDOW_MS } from '../../api/supersede-window.js';
import { FINALIZER, Phase, RefusalToken } from '../../api/vocabulary.js';
import type { Action } from './actions.js';
import { decide } from './decide.js';
import { finishedAtOf, retentionOf, type Retention } from './finished-ttl.js';
import type { Observed } from './observed.js';
import { viewOf } from './view.js';

const T0 = Date.parse('2026-09-01T08:00:00Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const WEEK = 7 * 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();
const finishedCondition = (at: number, status: 'True' | 'False' = 'True') => ({
  type: 'Finished',
  status,
  reason: 'Succeeded',
  message: 'done',
  lastTransitionTime: iso(at),
});

describe('finishedAtOf', () => {
  test.each<[string, HeldJobStatus, number | undefined]>([
    ['finishedAt', { phase: Phase.Succeeded, finishedAt: iso(T0) }, T0],
    ['finishedAt wins over the condition', { finishedAt: iso(T0), conditions: [finishedCondition(T0 - HOUR)] }, T0],
    ['no finishedAt: when Finished turned True', { phase: Phase.Refused, conditions: [finishedCondition(T0 - HOUR)] }, T0 - HOUR],
    ['a Finished condition that is not True says nothing', { conditions: [finishedCondition(T0, 'False')] }, undefined],
    ['an unreadable finishedAt, no condition', { finishedAt: 'yesterday' }, undefined],
    ['nothing', { phase: Phase.Failed }, undefined],
  ])('%s', (_n, status, expected) => {
    expect(finishedAtOf(status)).toBe(expected);
  });
});

describe('retentionOf: when a finished HeldJob goes', () => {
  const done = (over: HeldJobStatus = {}): HeldJobStatus => ({ phase: Phase.Succeeded, finishedAt: iso(T0), ...over });
  test.each<[string, HeldJobStatus, boolean, number, Retention]>([
    ['ttl 0 keeps it', done(), true, 0, { kind: 'keep' }],
    ['seven days after it finished', done(), false, WEEK, { kind: 'deleteAt', at: T0 + WEEK }],
    ['refused (never launched): ttl from its refusal', done({ phase: Phase.Refused }), true, MIN, { kind: 'deleteAt', at: T0 + MIN }],
    [
      'a Refused one without finishedAt: from the Finished condition',
      { phase: Phase.Refused, reason: RefusalToken.Superseded, conditions: [finishedCondition(T0)] },
      true,
      HOUR,
      { kind: 'deleteAt', at: T0 + HOUR },
    ],
    ['nothing says when it ended', { phase: Phase.Failed }, true, HOUR, { kind: 'unknownEnd' }],
    [
      'waited and launched: never before the supersede window after its launch',
      done({ launchedAt: iso(T0 - MIN) }),
      true,
      MIN,
      { kind: 'deleteAt', at: T0 - MIN + SUPERSEDE_WINDOW_MS },
    ],
    [
      'waited and launched, a ttl past the window: the ttl',
      done({ launchedAt: iso(T0 - MIN) }),
      true,
      HOUR,
      { kind: 'deleteAt', at: T0 + HOUR },
    ],
    [
      'no conditions (supersedes nothing): the ttl alone, even right after launch',
      done({ launchedAt: iso(T0 - MIN) }),
      false,
      MIN,
      { kind: 'deleteAt', at: T0 + MIN },
    ],
    [
      'an unreadable launchedAt: the window from its end',
      done({ launchedAt: 'soon' }),
      true,
      MIN,
      { kind: 'deleteAt', at: T0 + SUPERSEDE_WINDOW_MS },
    ],
  ])('%s', (_n, status, waited, ttl, expected) => {
    expect(retentionOf(status, waited, ttl)).toEqual(expected);
  });
});

describe('decide: a terminal HeldJob and its time to live', () => {
  const CONFIG = { afterMaxMs: 30 * 86_400_000, intervalMs: 60_000, maxMs: 86_400_000, maxChecks: 96, maxFaults: 5, pauseWindows: [] };
  function observed(status: HeldJobStatus, ttl: number, over: { waitFor?: object[]; finalizers?: string[] } = {}): Observed {
    const heldJob: Observed['heldJob'] = {
      metadata: {
        name: 'web-7-deploy',
        namespace: 'team-a',
        uid: 'uid-1',
        creationTimestamp: iso(T0 - HOUR),
        ...(over.finalizers ? { finalizers: over.finalizers } : {}),
      },
      spec: {
        target: 'acme/web#7',
        trigger: 'deploy',
        ...(over.waitFor ? { waitFor: over.waitFor } : {}),
        job: { template: { spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Never' } } },
      },
      status,
    };
    return {
      heldJob,
      view: viewOf(heldJob),
      job: undefined,
      config: { ...CONFIG, finishedTtlMs: ttl },
      profiles: { state: 'ok', profiles: new Map() },
      triggers: { state: 'missing' },
    };
  }
  const succeeded: HeldJobStatus = { phase: Phase.Succeeded, finishedAt: iso(T0), launchedAt: iso(T0 - MIN) };
  const after = [{ after: iso(T0 - HOUR) }];

  test.each<[string, Observed, number, Action[]]>([
    ['ttl 0: nothing, ever', observed(succeeded, 0), T0 + 365 * 24 * HOUR, []],
    ['before its time: a wake at that instant', observed(succeeded, HOUR), T0 + MIN, [{ type: 'wakeAt', at: T0 + HOUR }]],
    ['at its time: deleted', observed(succeeded, HOUR), T0 + HOUR, [{ type: 'deleteHeldJob', finishedTtlMs: HOUR }]],
    ['past its time (a restart later): deleted', observed(succeeded, HOUR), T0 + WEEK, [{ type: 'deleteHeldJob', finishedTtlMs: HOUR }]],
    [
      'waited: a ttl under the supersede window waits for the window',
      observed(succeeded, MIN, { waitFor: after }),
      T0 + MIN,
      [{ type: 'wakeAt', at: T0 - MIN + SUPERSEDE_WINDOW_MS }],
    ],
    [
      'with the finalizer: taken off first, then deleted',
      observed(succeeded, HOUR, { finalizers: [FINALIZER] }),
      T0 + HOUR,
      [
        { type: 'setFinalizers', finalizers: [] },
        { type: 'deleteHeldJob', finishedTtlMs: HOUR },
      ],
    ],
    [
      'refused without finishedAt or condition: the end stamped now',
      observed({ phase: Phase.Refused, reason: RefusalToken.Expired }, HOUR),
      T0,
      [{ type: 'updateStatus', status: { phase: Phase.Refused, reason: RefusalToken.Expired, finishedAt: iso(T0) } }],
    ],
  ])('%s', (_n, o, now, expected) => {
    expect(decide(o, now)).toEqual(expected);
  });
});
