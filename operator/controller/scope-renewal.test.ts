import { expect, test } from '@jest/globals';
import { Phase } from '../../api/vocabulary.js';
import { heldJob } from '../../test/support/builders.js';
import type { HeldJob } from './ports.js';
import { runningHolders } from './scope-renewal.js';

const held = (name: string, target: string, phase: Phase | undefined): HeldJob => {
  const base = heldJob({ name, target }) as unknown as HeldJob;
  return {
    ...base,
    metadata: { ...base.metadata, namespace: 'team-a', uid: `uid-${name}` },
    ...(phase ? { status: { phase } } : {}),
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
