// Delivery ids, accepted only in the shape each forge gives them. The id names the dedup key
// and goes into an annotation and the logs, so nothing else may pass.
import { Forge } from './event.js';

/** GitHub's X-GitHub-Delivery and GitLab's X-Gitlab-Event-UUID and Idempotency-Key are all UUIDs. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The headers that carry a forge's delivery id, in the order they are read. */
export const DELIVERY_ID_HEADERS = {
  [Forge.GitHub]: ['x-github-delivery'],
  [Forge.GitLab]: ['x-gitlab-event-uuid', 'idempotency-key'],
} as const satisfies Record<Forge, readonly string[]>;

export type DeliveryIdReading =
  /** Absent: the body's hash stands in for it. */
  { readonly kind: 'absent' } | { readonly kind: 'ok'; readonly id: string } | { readonly kind: 'malformed'; readonly problem: string };

/**
 * The delivery id of a request, from its headers (every copy of each, as headersDistinct
 * gives them): one copy, a UUID, lowercased so one delivery has one key.
 */
export function readDeliveryId(forge: Forge, headers: Readonly<Record<string, readonly string[] | undefined>>): DeliveryIdReading {
  for (const name of DELIVERY_ID_HEADERS[forge]) {
    const values = headers[name];
    if (values === undefined) continue;
    if (values.length !== 1) return { kind: 'malformed', problem: `${name} sent more than once` };
    const v = values[0] ?? '';
    if (!UUID.test(v)) return { kind: 'malformed', problem: `${name} is not a UUID` };
    return { kind: 'ok', id: v.toLowerCase() };
  }
  return { kind: 'absent' };
}
