import { describe, expect, test } from '@jest/globals';
import { EventReason, EventType } from '../../api/vocabulary.js';
import { heldJob } from '../../test/support/builders.js';
import { captureLog } from '../../test/support/fakes.js';
import type { EventSpec } from '../decide/actions.js';
import type { HeldJob } from './ports.js';
import { overcommitEvent, ScopeOvercommitReporter } from './scope-overcommit.js';
import { Semaphore, type KeptPlace } from './scope-places.js';

const NOW = 1_750_000_000_000;
const first = { ...(heldJob({ name: 'first' }) as unknown as HeldJob) };
first.metadata = { ...first.metadata, namespace: 'team-a', uid: 'uid-first' };

function reporter() {
  const { log, lines } = captureLog();
  const events: { name: string; event: EventSpec }[] = [];
  const counts = { overcommitted: 0, overLimits: [] as number[] };
  const r = new ScopeOvercommitReporter({
    limits: { all: 4, scope: 1 },
    heldJobOf: (h) => (h === 'uid-first' ? first : undefined),
    events: {
      recordEvent: async (hj, event) => {
        events.push({ name: hj.metadata.name, event });
      },
    },
    metrics: { overcommitted: () => counts.overcommitted++, overLimits: (n) => counts.overLimits.push(n) },
    log,
    now: () => NOW,
  });
  return { r, events, counts, lines };
}

const lostOver: KeptPlace = { scopeKey: 'acme/web', holder: 'uid-first', kept: false, holders: { all: 2, scope: 2 } };

describe('ScopeOvercommitReporter', () => {
  test('a place lost and taken back over the limit: a Warning Event on its HeldJob, a log line, the counter, the gauge', async () => {
    const { r, events, counts, lines } = reporter();
    r.report([lostOver], true);
    await Promise.resolve();

    expect(events).toEqual([{ name: 'first', event: overcommitEvent({ ...lostOver, semaphore: Semaphore.Scope, holders: 2, limit: 1 }) }]);
    expect(events[0]?.event).toMatchObject({ type: EventType.Warning, reason: EventReason.ScopeOvercommitted });
    expect(events[0]?.event.message).toContain('scope acme/web');
    expect(counts).toEqual({ overcommitted: 1, overLimits: [1] });
    expect(lines.find((l) => l.msg.startsWith('Found a running Job whose scope place was lost'))).toMatchObject({
      heldjob: 'team-a/first',
      scope: 'acme/web',
      holders: 2,
      limit: 1,
    });
  });

  test.each<[string, KeptPlace[], boolean, number, number[]]>([
    ['all kept, within limits: the gauge says 0', [{ ...lostOver, kept: true, holders: { all: 1, scope: 1 } }], true, 0, [0]],
    ['a partial keep (one launch) sets no gauge', [lostOver], false, 1, []],
    ['kept but over (reported before): the gauge only', [{ ...lostOver, kept: true }], true, 0, [1]],
  ])('%s', async (_name, places, complete, overcommitted, overLimits) => {
    const { r, counts } = reporter();
    r.report(places, complete);
    await Promise.resolve();
    expect(counts).toEqual({ overcommitted, overLimits });
  });

  test('a holder the cache lacks: logged and counted, no Event', async () => {
    const { r, events, counts } = reporter();
    r.report([{ ...lostOver, holder: 'uid-gone' }], true);
    await Promise.resolve();
    expect(events).toEqual([]);
    expect(counts.overcommitted).toBe(1);
  });
});
