import { expect, test } from '@jest/globals';
import { Phase } from '../../api/vocabulary.js';
import { heldJob } from '../../test/support/builders.js';
import type { HeldJob } from './ports.js';
import { endedHolders, runningHolders } from './scope-renewal.js';

const held = (name: string, target: string, phase: Phase | undefined, finishedAt?: string): HeldJob => {
  const base = heldJob({ name, target }) as unknown as HeldJob;
  return {
    ...base,
    metadata: { ...base.metadata, namespace: 'team-a', uid: `uid-${name}` },
    ...(phase ? { status: { phase, ...(finishedAt ? { finishedAt } : {}) } } : {}),
  };
};

test('runningHolders: one place per running HeldJob, its uid the holder, its repository the scope', () => {
  expect(
    runningHolders([
      held('web-1', 'acme/web#1', Phase.Running),
      held('web-2', 'acme/web#2', Phase.Pending),
      held('api-3', 'acme/api#3', Phase.Running),
      held('new-4', 'acme/web#4', undefined),
    ]),
  ).toEqual([
    { scopeKey: 'acme/web', holder: 'uid-web-1' },
    { scopeKey: 'acme/api', holder: 'uid-api-3' },
  ]);
});

test('endedHolders: holds that ended within the window give their places back again; older, running or unended ones do not', () => {
  const now = Date.parse('2026-12-03T10:00:00Z');
  expect(
    endedHolders(
      [
        held('done-1', 'acme/web#1', Phase.Succeeded, '2026-12-03T09:59:00Z'),
        held('old-2', 'acme/web#2', Phase.Succeeded, '2026-12-03T09:50:00Z'),
        held('run-3', 'acme/web#3', Phase.Running),
        held('fail-4', 'acme/api#4', Phase.Failed, '2026-12-03T09:58:30Z'),
        held('nofin-5', 'acme/api#5', Phase.Refused),
      ],
      now,
      120_000,
    ),
  ).toEqual([
    { scopeKey: 'acme/web', holder: 'uid-done-1' },
    { scopeKey: 'acme/api', holder: 'uid-fail-4' },
  ]);
});

test('a running hold keeps its place whatever its spec says now: the scope recorded at its launch, or the target as far as it reads', () => {
  const edited = (name: string, spec: Record<string, unknown>, scope?: string): HeldJob => ({
    ...held(name, 'acme/web#1', Phase.Running),
    spec,
    status: { phase: Phase.Running, ...(scope ? { scope } : {}) },
  });
  const job = { template: {} };
  expect(
    runningHolders([
      edited('note-1', { target: 'acme/web#1', trigger: 'd', job, note: 'x' }, 'acme/web'),
      edited('moved-2', { target: 'acme/api#2', trigger: 'd', job }, 'acme/web'),
      edited('legacy-3', { target: 'acme/ops#3', trigger: 'd', job, note: 'x' }),
      edited('unknowable-4', { trigger: 'd', job, note: 'x' }),
    ]),
  ).toEqual([
    { scopeKey: 'acme/web', holder: 'uid-note-1' },
    { scopeKey: 'acme/web', holder: 'uid-moved-2' },
    { scopeKey: 'acme/ops', holder: 'uid-legacy-3' },
  ]);
});
