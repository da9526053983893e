import { describe, expect, test } from '@jest/globals';
import { bindingProblem, heldJobSpecOf, madeByReceiver, sameJson } from './trigger-binding.js';
import type { HeldJobSpec } from './heldjob-schema.js';
import type { Trigger } from './triggers/types.js';
import { FailureReason, Labels, MADE_BY_RECEIVER } from './vocabulary.js';

const JOB = { template: { spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Never' } } };
const mine: Trigger = {
  name: 'mine',
  on: { type: 'label', any: ['go'] },
  run: { kind: 'github', flow: 'f', waitFor: [{ profile: 'ci' }], job: JOB },
};
const meta = (forge = 'github') => ({
  metadata: { name: 'h', namespace: 'team-a', uid: 'u', labels: { [Labels.forge]: forge, [Labels.madeBy]: MADE_BY_RECEIVER } },
});
const rendered = (t: Trigger, revision?: string) => heldJobSpecOf(t, 'acme/web#7', revision) as HeldJobSpec;
const REV = 'a'.repeat(40);

describe('bindingProblem', () => {
  test.each<[string, HeldJobSpec, Trigger | undefined, string | undefined, string | undefined]>([
    ['as the receiver renders it: bound', rendered(mine), mine, 'github', undefined],
    [
      'keys in another order: bound',
      { job: JOB, waitFor: [{ profile: 'ci' }], trigger: 'mine', target: 'acme/web#7' },
      mine,
      'github',
      undefined,
    ],
    ['no such trigger', { ...rendered(mine), trigger: 'ghost' }, undefined, 'github', FailureReason.TriggerUndeclared],
    ['a trigger of another forge', rendered(mine), mine, 'gitlab', FailureReason.TriggerUndeclared],
    [
      'a repository the trigger does not fire for',
      rendered(mine),
      { ...mine, on: { ...mine.on, repositories: ['beta/*'] } },
      'github',
      FailureReason.TriggerUndeclared,
    ],
    [
      'a privileged container instead of the template',
      {
        ...rendered(mine),
        job: {
          template: { spec: { containers: [{ name: 'c', image: 'x', securityContext: { privileged: true } }], restartPolicy: 'Never' } },
        },
      },
      mine,
      'github',
      FailureReason.JobNotTrigger,
    ],
    ['its waits dropped', { target: 'acme/web#7', trigger: 'mine', job: JOB }, mine, 'github', FailureReason.JobNotTrigger],
    ['a revision the trigger does not pin', rendered(mine, REV), mine, 'github', FailureReason.JobNotTrigger],
    [
      'a pinning trigger, no revision',
      rendered(mine),
      { ...mine, run: { ...mine.run, pinRevision: true } },
      'github',
      FailureReason.JobNotTrigger,
    ],
    ['a pinning trigger, its revision', rendered(mine, REV), { ...mine, run: { ...mine.run, pinRevision: true } }, 'github', undefined],
    [
      'replicas rendered into the Job',
      rendered({ ...mine, run: { ...mine.run, replicas: 3 } }),
      { ...mine, run: { ...mine.run, replicas: 3 } },
      'github',
      undefined,
    ],
  ])('%s', (_n, spec, declared, forge, reason) => {
    expect(bindingProblem(meta(forge), spec, declared)?.reason).toBe(reason);
  });
});

describe('madeByReceiver and sameJson', () => {
  test('only the label says the receiver made it', () => {
    expect(madeByReceiver(meta())).toBe(true);
    expect(madeByReceiver({ metadata: { name: 'h', namespace: 'n', uid: 'u', labels: { [Labels.madeBy]: 'someone' } } })).toBe(false);
    expect(madeByReceiver({ metadata: { name: 'h', namespace: 'n', uid: 'u' } })).toBe(false);
  });
  test.each<[unknown, unknown, boolean]>([
    [{ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 }, true],
    [{ a: [1, 2] }, { a: [2, 1] }, false],
    [{ a: 1 }, { a: 1, b: null }, false],
    [{ a: 1, b: undefined }, { a: 1 }, true],
  ])('%j vs %j', (a, b, same) => {
    expect(sameJson(a, b)).toBe(same);
  });
});
