// What the receiver decides about a webhook request from its headers alone, before it reads
// a byte of the body: whether it is signed in the forge's exact grammar, whether its delivery
// id has the forge's shape, whether its declared length fits, and whether there is room for
// it. Pure: the caller passes in the counts it keeps.
import { readDeliveryId } from '../forges/delivery-id.js';
import type { Forge } from '../forges/event.js';
import { RECEIVER_FORGES } from '../forges/index.js';
import { DeliveryOutcome } from '../metrics.js';
import { scopeOf, type SecretScope, type WebhookSecret } from '../webhook-secrets.js';

/** The largest body the receiver reads. */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface AdmissionInput {
  readonly forge: Forge;
  /** Every copy of every header (IncomingMessage.headersDistinct). */
  readonly headers: Readonly<Record<string, readonly string[] | undefined>>;
  /** Every secret (or token) of each forge that may authenticate a delivery, with its scope; none refuses that forge's. */
  readonly secrets: Readonly<Record<Forge, readonly WebhookSecret[]>>;
  /** Connections open now, this request's own included. */
  readonly openConnections: number;
  readonly maxConnections: number;
  /** Body bytes received and held by requests being read or handled now. */
  readonly inflightBodyBytes: number;
  readonly maxInflightBodyBytes: number;
}

export type Admission =
  | {
      readonly kind: 'admit';
      /**
       * The raw body's authentication, before it is parsed: what the secrets that authenticated
       * it speak for, or undefined when none did (GitHub's HMAC is checked here; a forge that
       * sends its secret in a header was checked already, and its scope comes back whatever the body).
       */
      readonly authenticate: (body: Buffer) => SecretScope | undefined;
      /** The delivery id, when the forge sent one. */
      readonly deliveryId: string | undefined;
    }
  | {
      readonly kind: 'refuse';
      readonly status: 400 | 401 | 413 | 503;
      readonly outcome: DeliveryOutcome;
      readonly error: string;
    };

const refuse = (status: 400 | 401 | 413 | 503, outcome: DeliveryOutcome, error: string): Admission => ({
  kind: 'refuse',
  status,
  outcome,
  error,
});

export function admit(a: AdmissionInput): Admission {
  if (a.openConnections > a.maxConnections) return refuse(503, DeliveryOutcome.Busy, 'too many connections');
  const secrets = a.secrets[a.forge];
  if (secrets.length === 0) return refuse(401, DeliveryOutcome.Unauthorized, `no ${a.forge} webhook secret is configured`);
  // Each secret on its own, every one of them (constant time per secret, and the same work
  // whichever matched), so the scope of the ones that matched is known.
  const module = RECEIVER_FORGES[a.forge];
  const checks = secrets.map((s) => ({ s, check: module.checkHeaders(a.headers, [s.secret]) }));
  const passed = checks.filter((c) => c.check.ok);
  if (passed.length === 0) return refuse(401, DeliveryOutcome.Unauthorized, 'bad or missing signature');
  const authenticate = (body: Buffer) => {
    const matched: WebhookSecret[] = [];
    for (const { s, check } of passed) {
      if (check.ok && (check.verifyBody === undefined || check.verifyBody(body))) matched.push(s);
    }
    return scopeOf(matched);
  };
  const id = readDeliveryId(a.forge, a.headers);
  if (id.kind === 'malformed') return refuse(400, DeliveryOutcome.Malformed, id.problem);
  const lengths = a.headers['content-length'];
  const declared = lengths?.length === 1 ? Number(lengths[0]) : undefined;
  if (declared !== undefined && !(declared <= MAX_BODY_BYTES)) return refuse(413, DeliveryOutcome.TooLarge, 'body over 1 MiB');
  // What is declared is only a forecast: the bytes are counted as they arrive (the caller
  // refuses a body that would pass the cap), so a sender that declares 1 MiB and trickles
  // holds only what it has sent.
  if (a.inflightBodyBytes + (declared ?? 0) > a.maxInflightBodyBytes) return refuse(503, DeliveryOutcome.Busy, 'too many bodies in flight');
  return { kind: 'admit', authenticate, deliveryId: id.kind === 'ok' ? id.id : undefined };
}
