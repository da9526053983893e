// What a refusal record says about the deliveries it counts. The receiver keeps one record per
// trigger, target and refusal token (a HeldJob that never runs), and counts every refusal of
// that kind on it instead of writing a record per delivery: a label toggled a thousand times
// costs one small object, not a thousand copies of the Job. The record holds ids and times
// only, in annotations: how many, when first and last, the last delivery, and the latest few
// deliveries so that one of them delivered again is known as already counted. Pure.
import { epochOf, iso } from './time.js';
import { Annotations } from './vocabulary.js';

/**
 * How many of the latest deliveries a record names. A delivery further back, delivered again
 * once its dedup keys in Valkey are gone (10 minutes for its id, a day for its body), is
 * counted again: the count can then exceed the deliveries by the redeliveries of old ones.
 */
export const RECENT_DELIVERIES_KEPT = 16;

export interface RefusalTally {
  /** Refusals counted on the record, the first included. */
  readonly count: number;
  readonly firstSeenMs: number;
  readonly lastSeenMs: number;
  /** The forge's id of the last delivery counted. */
  readonly lastDelivery: string;
  /** `<forge>/<delivery id>` of the latest deliveries counted, oldest first, at most RECENT_DELIVERIES_KEPT. */
  readonly recent: readonly string[];
}

/** How a record names a delivery among its recent ones: ids are a forge's own, so the forge goes with them. */
export function deliveryKey(forge: string, deliveryId: string): string {
  return `${forge}/${deliveryId}`;
}

/** The tally of a record its first refusal creates. */
export function firstRefusal(forge: string, deliveryId: string, nowMs: number): RefusalTally {
  return { count: 1, firstSeenMs: nowMs, lastSeenMs: nowMs, lastDelivery: deliveryId, recent: [deliveryKey(forge, deliveryId)] };
}

/** Whether the record has counted this delivery already (an earlier handling of it). */
export function hasCounted(tally: RefusalTally, forge: string, deliveryId: string): boolean {
  return tally.recent.includes(deliveryKey(forge, deliveryId));
}

/** The tally with one more refusal, of this delivery at `nowMs`. */
export function countRefusal(tally: RefusalTally, forge: string, deliveryId: string, nowMs: number): RefusalTally {
  const key = deliveryKey(forge, deliveryId);
  return {
    count: tally.count + 1,
    firstSeenMs: Math.min(tally.firstSeenMs, nowMs),
    lastSeenMs: Math.max(tally.lastSeenMs, nowMs),
    lastDelivery: deliveryId,
    recent: [...tally.recent.filter((k) => k !== key), key].slice(-RECENT_DELIVERIES_KEPT),
  };
}

/** The annotations that carry a tally. */
export function tallyAnnotations(tally: RefusalTally): Record<string, string> {
  return {
    [Annotations.refusalCount]: String(tally.count),
    [Annotations.refusalFirstSeen]: iso(tally.firstSeenMs),
    [Annotations.refusalLastSeen]: iso(tally.lastSeenMs),
    [Annotations.refusalLastDelivery]: tally.lastDelivery,
    [Annotations.refusalDeliveries]: tally.recent.join(' '),
  };
}

/**
 * The tally a record's annotations carry. A record written before refusals were counted (one
 * per delivery), or whose annotations someone edited, still reads: it counts as one refusal of
 * the delivery its `waitgate.dev/delivery` annotation names, seen when it was created.
 */
export function readTally(
  annotations: Readonly<Record<string, string>> | undefined,
  forge: string | undefined,
  createdAt: string | Date | undefined,
): RefusalTally {
  const a = annotations ?? {};
  const count = Number(a[Annotations.refusalCount]);
  const created = epochOf(createdAt);
  const firstSeenMs = epochOf(a[Annotations.refusalFirstSeen]) ?? created ?? 0;
  const lastSeenMs = epochOf(a[Annotations.refusalLastSeen]) ?? Math.max(firstSeenMs, created ?? 0);
  const first = a[Annotations.delivery];
  const listed = (a[Annotations.refusalDeliveries] ?? '').split(' ').filter((k) => k.includes('/'));
  const recent = listed.length > 0 ? listed : first && forge ? [deliveryKey(forge, first)] : [];
  return {
    count: Number.isSafeInteger(count) && count > 0 ? count : 1,
    firstSeenMs,
    lastSeenMs,
    lastDelivery: a[Annotations.refusalLastDelivery] ?? first ?? '',
    recent: recent.slice(-RECENT_DELIVERIES_KEPT),
  };
}
