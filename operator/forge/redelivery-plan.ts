// Which of a GitHub hook's recent deliveries to ask for again: pure. GitHub never retries a
// delivery by itself; a delivery that failed (5xx from the receiver, or no answer: status 0)
// is asked for again while it is within GitHub's redelivery window, unless an attempt with the
// same guid (the same event) has since been answered. A 4xx is the receiver's own answer
// (a bad signature, an unknown event): asking again would get the same.

/** GitHub redelivers deliveries of the past three days only. */
export const REDELIVERY_WINDOW_MS = 3 * 24 * 60 * 60_000;

/** A delivery as GitHub lists it (the fields this reads). */
export interface HookDelivery {
  readonly id: number;
  readonly guid: string;
  readonly deliveredAt: string;
  readonly redelivery: boolean;
  /** The receiver's answer; 0 when none came (a timeout, a refused connection). */
  readonly statusCode: number;
}

export const isFailedDelivery = (d: HookDelivery): boolean => d.statusCode === 0 || d.statusCode >= 500;

/**
 * The delivery ids to redeliver: for each event (guid) none of whose attempts was answered,
 * its latest attempt, if the event was first delivered within the window; newest first, at
 * most `limit`.
 */
export function deliveriesToRedeliver(deliveries: readonly HookDelivery[], now: number, limit: number): number[] {
  const byGuid = new Map<string, HookDelivery[]>();
  for (const d of deliveries) byGuid.set(d.guid, [...(byGuid.get(d.guid) ?? []), d]);
  const picks: { id: number; at: number }[] = [];
  for (const attempts of byGuid.values()) {
    if (!attempts.every(isFailedDelivery)) continue;
    const times = attempts.map((d) => Date.parse(d.deliveredAt));
    if (times.some((t) => Number.isNaN(t))) continue;
    const first = Math.min(...times);
    if (now - first > REDELIVERY_WINDOW_MS) continue;
    const latest = attempts[times.indexOf(Math.max(...times))] as HookDelivery;
    picks.push({ id: latest.id, at: Math.max(...times) });
  }
  return picks
    .sort((a, b) => b.at - a.at)
    .slice(0, Math.max(0, limit))
    .map((p) => p.id);
}
