import { describe, expect, test } from '@jest/globals';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { FINALIZER, HoldOutcome, Phase } from '../../api/vocabulary.js';
import { holdEndOf, holdEndOfGone, type HoldSide } from './hold-end.js';

const T0 = Date.parse('2026-09-01T08:00:00Z');
const NOW = T0 + 90_000;
const iso = (ms: number) => new Date(ms).toISOString();
const held: HeldJobStatus = { phase: Phase.Held, heldSince: iso(T0), waitingSince: iso(T0) };
const side = (status: HeldJobStatus | undefined, over: { finalizer?: boolean; deleting?: boolean } = {}): HoldSide => ({
  metadata: { ...(over.finalizer ? { finalizers: [FINALIZER] } : {}), ...(over.deleting ? { deletionTimestamp: iso(T0) } : {}) },
  ...(status ? { status } : {}),
});
const launched: HeldJobStatus = { ...held, phase: Phase.Running, launchedAt: iso(NOW) };

describe('holdEndOf: the one write that ends a hold', () => {
  test.each<[string, HoldSide, HoldSide, HoldOutcome | undefined]>([
    ['Held to Running: launched', side(held), side(launched), HoldOutcome.Launched],
    ['Held to Refused', side(held), side({ ...held, phase: Phase.Refused, reason: 'wait-expired' }), HoldOutcome.Refused],
    ['Held to Failed before a launch', side(held), side({ ...held, phase: Phase.Failed }), HoldOutcome.Failed],
    [
      'Held to Succeeded with its launch in the same write (adopted after a restart): launched',
      side(held),
      side({ ...launched, phase: Phase.Succeeded }),
      HoldOutcome.Launched,
    ],
    [
      'deleted while held, the finalizer removed: cancelled',
      side(held, { finalizer: true, deleting: true }),
      side(held, { deleting: true }),
      HoldOutcome.Cancelled,
    ],
    ['Held to Held (a check recorded): nothing', side(held), side({ ...held, checks: 1 }), undefined],
    ['the finalizer put on: nothing', side(held), side(held, { finalizer: true }), undefined],
    ['Running to Succeeded: ended already at the launch', side(launched), side({ ...launched, phase: Phase.Succeeded }), undefined],
    ['Running to Failed: ended already at the launch', side(launched), side({ ...launched, phase: Phase.Failed }), undefined],
    [
      'a launch taken back to Held (launchedAt kept) and recorded again: not a second end',
      side({ ...held, launchedAt: iso(T0) }),
      side({ ...launched, launchedAt: iso(T0) }),
      undefined,
    ],
    [
      'Refused, rewritten (a restart rereads it): nothing',
      side({ ...held, phase: Phase.Refused }),
      side({ ...held, phase: Phase.Refused, message: 'x' }),
      undefined,
    ],
    ['never held (no heldSince): no hold to measure', side({ phase: Phase.Pending }), side({ phase: Phase.Refused }), undefined],
    [
      'a launched hold deleted, its finalizer removed: nothing',
      side(launched, { finalizer: true, deleting: true }),
      side(launched, { deleting: true }),
      undefined,
    ],
  ])('%s', (_name, before, after, outcome) => {
    const end = holdEndOf(before, after, NOW);
    expect(end?.outcome).toBe(outcome);
    if (outcome) expect(end?.seconds).toBe(90);
  });

  test('a clock behind heldSince measures 0, never a negative duration', () => {
    expect(holdEndOf(side(held), side(launched), T0 - 5_000)?.seconds).toBe(0);
  });
});

describe('holdEndOfGone: a HeldJob the informer saw deleted', () => {
  test.each<[string, HoldSide, HoldOutcome | undefined]>([
    ['held, no finalizer (waiting on an instant only): cancelled', side(held), HoldOutcome.Cancelled],
    ['held, with the finalizer: counted at its removal, not here', side(held, { finalizer: true }), undefined],
    ['launched: ended at the launch', side(launched), undefined],
    ['Refused: ended at the refusal', side({ ...held, phase: Phase.Refused }), undefined],
    ['never held', side({ phase: Phase.Pending }), undefined],
    ['deleted under the finalizer, which is off now: counted at its removal', side(held, { deleting: true }), undefined],
  ])('%s', (_name, lastSeen, outcome) => {
    expect(holdEndOfGone(lastSeen, NOW)?.outcome).toBe(outcome);
  });
});
