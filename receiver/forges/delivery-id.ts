// Delivery ids, accepted only in the shape each forge gives them. The id names the dedup key
// and goes into an annotation and the logs, so nothing else may pass.
import { isUuid } from '../../api/delivery-id.js';
import type { Forge } from './event.js';
import { RECEIVER_FORGES } from './index.js';

// GitHub's X-GitHub-Delivery and GitLab's X-Gitlab-Event-UUID and Idempotency-Key are all
// UUIDs; api/delivery-id.ts holds the shape, which the operator checks again on the way out.

export type DeliveryIdReading =
  /** Absent: the body's hash stands in for it. */
  { readonly kind: 'absent' } | { readonly kind: 'ok'; readonly id: string } | { readonly kind: 'malformed'; readonly problem: string };

/**
 * The delivery id of a request, from the headers its forge puts it in (receiver/forges/index.ts) (every copy of each, as headersDistinct
 * gives them): one copy, a UUID, lowercased so one delivery has one key.
 */
export function readDeliveryId(forge: Forge, headers: Readonly<Record<string, readonly string[] | undefined>>): DeliveryIdReading {
  for (const name of RECEIVER_FORGES[forge].deliveryIdHeaders) {
    const values = headers[name];
    if (values === undefined) continue;
    if (values.length !== 1) return { kind: 'malformed', problem: `${name} sent more than once` };
    const v = (values[0] ?? '').toLowerCase();
    if (!isUuid(v)) return { kind: 'malformed', problem: `${name} is not a UUID` };
    return { kind: 'ok', id: v };
  }
  return { kind: 'absent' };
}
