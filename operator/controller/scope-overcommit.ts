// Says so when a running Job's scope place was lost and came back over its limit: a Warning
// Event on the HeldJob, a log line and a metric for each, and a gauge of the semaphores over
// their limits at the last complete sweep. The decision is overcommitsOf (scope-places.ts).
import type { Logger } from 'pino';
import { EventReason, EventType } from '../../api/vocabulary.js';
import type { EventSpec } from '../decide/actions.js';
import type { HeldJob } from './ports.js';
import { overcommitsOf, Semaphore, type KeptPlace, type Overcommit, type ScopeLimits } from './scope-places.js';

export interface OvercommitMetrics {
  /** A lost place came back over its limit. */
  overcommitted(): void;
  /** How many semaphores the last complete sweep found over their limits. */
  overLimits(n: number): void;
}

export interface OvercommitDeps {
  readonly limits: ScopeLimits;
  /** The HeldJob of a holder (its uid), from the informer's cache. */
  readonly heldJobOf: (holder: string) => HeldJob | undefined;
  readonly events: { recordEvent(heldJob: HeldJob, event: EventSpec, now: number): Promise<void> };
  readonly metrics: OvercommitMetrics;
  readonly log: Logger;
  readonly now: () => number;
}

/** The Event a running hold gets when its place came back over a limit. */
export function overcommitEvent(o: Overcommit): EventSpec {
  const what = o.semaphore === Semaphore.Scope ? `scope ${o.scopeKey}` : 'the overall concurrency';
  return {
    type: EventType.Warning,
    reason: EventReason.ScopeOvercommitted,
    message:
      `this Job's place in ${what} was lost in Valkey and taken back over the limit: ${o.holders} Jobs hold places, ` +
      `the limit is ${o.limit}; no new Job launches there until it is back under the limit`,
  };
}

export class ScopeOvercommitReporter {
  constructor(private readonly deps: OvercommitDeps) {}

  /** For ValkeyScopeSlots' onKept. Never throws: an Event that cannot be written is logged. */
  report(places: readonly KeptPlace[], complete: boolean): void {
    const { deps } = this;
    const { lost, over } = overcommitsOf(places, deps.limits);
    if (complete) deps.metrics.overLimits(over);
    for (const o of lost) {
      deps.metrics.overcommitted();
      const hj = deps.heldJobOf(o.holder);
      const heldjob = hj ? `${hj.metadata.namespace}/${hj.metadata.name}` : undefined;
      deps.log.warn(
        { heldjob, holder: o.holder, scope: o.scopeKey, semaphore: o.semaphore, holders: o.holders, limit: o.limit },
        'Found a running Job whose scope place was lost and taken back over the limit',
      );
      if (hj) {
        void deps.events.recordEvent(hj, overcommitEvent(o), deps.now()).catch((err: unknown) => {
          deps.log.warn({ heldjob, err }, 'Failed to record the ScopeOvercommitted Event');
        });
      }
    }
  }
}
