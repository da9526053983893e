// What the receiver decides about a webhook request from its headers alone, before it reads
// a byte of the body: whether it is signed in the forge's exact grammar, whether its delivery
// id has the forge's shape, whether its declared length fits, and whether there is room for
// it. Pure: the caller passes in the counts it keeps.
import { readDeliveryId } from '../forges/delivery-id.js';
import { Forge } from '../forges/event.js';
import { githubSignatureDigest, verifyGitlabToken } from '../forges/signature.js';
import { DeliveryOutcome } from '../metrics.js';

/** The largest body the receiver reads. */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface AdmissionInput {
  readonly forge: Forge;
  /** Every copy of every header (IncomingMessage.headersDistinct). */
  readonly headers: Readonly<Record<string, readonly string[] | undefined>>;
  readonly githubSecrets: readonly string[];
  readonly gitlabTokens: readonly string[];
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
      /** GitHub: the digest the signature header carries, checked once the body is read. */
      readonly digest: Buffer | undefined;
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
  const github = a.forge === Forge.GitHub;
  if ((github ? a.githubSecrets : a.gitlabTokens).length === 0) {
    return refuse(401, DeliveryOutcome.Unauthorized, `no ${a.forge} webhook secret is configured`);
  }
  let digest: Buffer | undefined;
  if (github) {
    digest = githubSignatureDigest(a.headers['x-hub-signature-256']);
    if (!digest) return refuse(401, DeliveryOutcome.Unauthorized, 'bad or missing signature');
  } else if (!verifyGitlabToken(a.gitlabTokens, a.headers['x-gitlab-token'])) {
    return refuse(401, DeliveryOutcome.Unauthorized, 'bad or missing signature');
  }
  const id = readDeliveryId(a.forge, a.headers);
  if (id.kind === 'malformed') return refuse(400, DeliveryOutcome.Malformed, id.problem);
  const lengths = a.headers['content-length'];
  const declared = lengths?.length === 1 ? Number(lengths[0]) : undefined;
  if (declared !== undefined && !(declared <= MAX_BODY_BYTES)) return refuse(413, DeliveryOutcome.TooLarge, 'body over 1 MiB');
  // What is declared is only a forecast: the bytes are counted as they arrive (the caller
  // refuses a body that would pass the cap), so a sender that declares 1 MiB and trickles
  // holds only what it has sent.
  if (a.inflightBodyBytes + (declared ?? 0) > a.maxInflightBodyBytes) return refuse(503, DeliveryOutcome.Busy, 'too many bodies in flight');
  return { kind: 'admit', digest, deliveryId: id.kind === 'ok' ? id.id : undefined };
}
