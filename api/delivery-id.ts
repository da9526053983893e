// The shape of a delivery id, wherever one is read back from a HeldJob: a forge's UUID
// (GitHub's X-GitHub-Delivery, GitLab's X-Gitlab-Event-UUID and Idempotency-Key, an Azure
// event's id), lowercased, or the SHA-256 of the signed body in hex when the forge sent none
// (receiver/forges/delivery-id.ts). The annotation that carries it can be written by hand, and
// it reaches a Job's environment (WAITGATE_DELIVERY), so nothing else is believed.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BODY_HASH = /^[0-9a-f]{64}$/;

/** A UUID as the receiver records one: lowercase. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

export function isDeliveryId(value: string): boolean {
  return UUID.test(value) || BODY_HASH.test(value);
}

/** The value when it is a delivery id, else undefined (absent, or in no shape a forge gives). */
export function deliveryIdOrUndefined(value: string | undefined): string | undefined {
  return value !== undefined && isDeliveryId(value) ? value : undefined;
}
