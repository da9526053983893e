import { describe, expect, test } from '@jest/globals';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { Phase } from '../../api/vocabulary.js';
import type { LaunchOutcome } from './actions.js';
import { afterLaunch, isTransient, LAUNCH_RETRY_MS } from './launch.js';
import { viewOf } from './view.js';

const T0 = Date.parse('2026-09-01T09:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const heldJob = {
  metadata: { name: 'web-7-deploy', namespace: 'team-a', uid: 'uid-1' },
  spec: { target: 'acme/web#7', trigger: 'deploy', job: { template: {} } },
};
const view = viewOf(heldJob);
if (!view.ok) throw new Error(view.problem);
const ready: HeldJobStatus = { phase: Phase.Held, heldSince: iso(T0 - 60_000), waitingSince: iso(T0 - 60_000) };
const queued: HeldJobStatus = {
  ...ready,
  conditions: [
    {
      type: 'Waiting',
      status: 'True',
      reason: 'ScopeQueued',
      message: 'every condition cleared; waiting for a scope slot',
      lastTransitionTime: iso(T0),
    },
  ],
};

describe('afterLaunch', () => {
  test.each<[string, HeldJobStatus, LaunchOutcome, string[], Phase | undefined]>([
    ['created: the marker, then Running', ready, { kind: 'created' }, ['leaveMarker', 'updateStatus'], Phase.Running],
    [
      'existed (launched before a crash): the same, no second Job',
      ready,
      { kind: 'existed' },
      ['leaveMarker', 'updateStatus'],
      Phase.Running,
    ],
    ['scope full, first time: queued in status, look again', ready, { kind: 'scopeFull' }, ['updateStatus', 'wakeAt'], Phase.Held],
    ['scope full, already queued: no write, look again', queued, { kind: 'scopeFull' }, ['wakeAt'], undefined],
    ['scope slots unavailable: as full', ready, { kind: 'scopeUnavailable' }, ['updateStatus', 'wakeAt'], Phase.Held],
    [
      'create failed: the slot back, tried again',
      ready,
      { kind: 'createFailed', code: 500, message: 'boom' },
      ['releaseScope', 'wakeAt'],
      undefined,
    ],
    ['the name taken by another: the slot back, tried again', ready, { kind: 'nameTaken' }, ['releaseScope', 'wakeAt'], undefined],
  ])('%s', (_n, status, outcome, types, phase) => {
    const actions = afterLaunch(view, status, outcome, T0);
    expect(actions.map((a) => a.type)).toEqual(types);
    const write = actions.find((a) => a.type === 'updateStatus');
    expect(write?.type === 'updateStatus' ? write.status.phase : undefined).toBe(phase);
  });

  test('Running stops WAITED: waitingSince goes, waitedSeconds is recorded', () => {
    const write = afterLaunch(view, ready, { kind: 'created' }, T0).find((a) => a.type === 'updateStatus');
    expect(write?.type === 'updateStatus' ? write.status : undefined).toMatchObject({ waitedSeconds: 60, launchedAt: iso(T0) });
    expect(write?.type === 'updateStatus' ? write.status.waitingSince : 'x').toBeUndefined();
  });

  test('a failed create is tried again after LAUNCH_RETRY_MS', () => {
    expect(afterLaunch(view, ready, { kind: 'createFailed', code: undefined, message: 'no answer' }, T0)).toContainEqual({
      type: 'wakeAt',
      at: T0 + LAUNCH_RETRY_MS,
    });
  });
});

describe('isTransient', () => {
  test.each<[number | undefined, boolean]>([
    [undefined, true],
    [408, true],
    [429, true],
    [500, true],
    [503, true],
    [400, false],
    [403, false],
    [409, false],
    [422, false],
  ])('%s: %s', (code, transient) => {
    expect(isTransient(code)).toBe(transient);
  });
});
