// The receiver's HTTP surface. The public webhook port has a webhook route per forge
// (receiver/forges/index.ts) and /healthz; /metrics and /readyz are on a port of their own (createMetricsServer), so the
// internet never reaches them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { ReceiverLimits } from '../config.js';
import type { DeliveryResult } from '../delivery/deliver.js';
import { UnavailableError } from '../delivery/deliver.js';
import type { Forge, LabelEvent, ParsedEvent } from '../forges/event.js';
import { forgeOfRoute, RECEIVER_FORGES } from '../forges/index.js';
import { DeliveryOutcome, type ReceiverMetrics } from '../metrics.js';
import { admit, MAX_BODY_BYTES } from './admission.js';
import { ConnectionSlots } from './connection-slots.js';
import { readBody } from './read-body.js';
import { targetParts } from '../../api/target.js';
import { scopeAllows, type SecretScope, type WebhookSecret } from '../webhook-secrets.js';

export interface ServerDeps {
  /** Every secret (or token) of each forge that may authenticate a delivery, with its scope; none refuses that forge's. */
  readonly secrets: Readonly<Record<Forge, readonly WebhookSecret[]>>;
  readonly limits: ReceiverLimits;
  readonly deliver: (event: LabelEvent) => Promise<DeliveryResult>;
  readonly metrics: ReceiverMetrics;
  readonly log: Logger;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Answers and closes the connection, reading no more of the body: the bytes a sender still
 * has to send are never read into memory.
 */
function sendAndClose(res: ServerResponse, status: number, body: unknown): void {
  res.shouldKeepAlive = false;
  res.setHeader('connection', 'close');
  send(res, status, body);
}

/** Node's own timeouts are checked this often; a second keeps the configured ones honest. */
const CHECK_INTERVAL_MS = 1000;

export function createReceiverServer(deps: ServerDeps): Server {
  const { metrics, log, limits } = deps;
  const connections = new ConnectionSlots<Socket>(limits.maxConnections);
  let inflightBodyBytes = 0;

  async function webhook(forge: Forge, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const count = (outcome: DeliveryOutcome) => metrics.deliveries.inc({ forge, outcome });
    // Everything that can be told from the headers is told before a byte of the body is read.
    const admission = admit({
      forge,
      headers: req.headersDistinct,
      secrets: deps.secrets,
      openConnections: connections.size,
      maxConnections: limits.maxConnections,
      inflightBodyBytes,
      maxInflightBodyBytes: limits.maxInflightBodyBytes,
    });
    if (admission.kind === 'refuse') {
      count(admission.outcome);
      if (admission.status === 401) log.debug({ forge }, 'Refused delivery with a bad or missing signature');
      if (admission.status === 503) res.setHeader('retry-after', '10');
      return sendAndClose(res, admission.status, { error: admission.error });
    }
    // The body's bytes count against the in-flight cap as they arrive, until it is handled.
    let held = 0;
    const take = (bytes: number) => {
      if (inflightBodyBytes + bytes > limits.maxInflightBodyBytes) return false;
      inflightBodyBytes += bytes;
      held += bytes;
      return true;
    };
    try {
      const body = await readBody(req, MAX_BODY_BYTES, take);
      if (body === 'aborted') return;
      if (body === 'too-large') {
        count(DeliveryOutcome.TooLarge);
        return sendAndClose(res, 413, { error: 'body over 1 MiB' });
      }
      if (body === 'busy') {
        count(DeliveryOutcome.Busy);
        res.setHeader('retry-after', '10');
        return sendAndClose(res, 503, { error: 'too many bodies in flight' });
      }
      // Authenticate the raw bytes before reading a single field.
      const scope = admission.authenticate(body);
      if (scope === undefined) {
        count(DeliveryOutcome.Unauthorized);
        log.warn({ forge }, 'Refused delivery with a bad signature');
        return send(res, 401, { error: 'bad or missing signature' });
      }
      return await handle(forge, req, res, body, admission.deliveryId, scope, count);
    } finally {
      inflightBodyBytes -= held;
    }
  }

  async function handle(
    forge: Forge,
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    deliveryId: string | undefined,
    scope: SecretScope,
    count: (outcome: DeliveryOutcome) => void,
  ): Promise<void> {
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      count(DeliveryOutcome.Malformed);
      return send(res, 400, { error: 'body is not JSON' });
    }
    const parsed: ParsedEvent = RECEIVER_FORGES[forge].parse({ headers: req.headersDistinct, deliveryId, body, payload });
    if (parsed.kind === 'malformed') {
      count(DeliveryOutcome.Malformed);
      return send(res, 400, { error: parsed.problem });
    }
    if (parsed.kind === 'unhandled') {
      count(DeliveryOutcome.Unhandled);
      return send(res, 202, { outcome: 'unhandled' });
    }
    const event = parsed.event;
    const dlog = log.child({ forge, delivery: event.deliveryId, target: event.target });
    const repository = targetParts(event.target)?.repository;
    if (!scopeAllows(scope, forge, repository)) {
      // The secret is another repository's: whoever holds it does not speak for this one (#30).
      count(DeliveryOutcome.RepositoryNotAllowed);
      dlog.warn({ repository }, 'Refused delivery naming a repository its secret does not speak for');
      return send(res, 401, { error: 'the secret that signed this delivery does not speak for its repository' });
    }
    let result: DeliveryResult;
    try {
      result = await deps.deliver(event);
    } catch (err) {
      if (err instanceof UnavailableError) {
        count(DeliveryOutcome.Unavailable);
        dlog.warn({ err }, 'Deferred delivery to a redelivery');
        res.setHeader('retry-after', '10');
        return send(res, 503, { error: err.message });
      }
      count(DeliveryOutcome.Error);
      dlog.error({ err }, 'Failed delivery');
      return send(res, 500, { error: 'internal error' });
    }
    switch (result.outcome) {
      case 'ignored':
        count(DeliveryOutcome.Ignored);
        dlog.debug('Ignored delivery: no trigger matched');
        return send(res, 202, { outcome: 'ignored' });
      case 'duplicate':
        count(DeliveryOutcome.Duplicate);
        dlog.info('Dropped duplicate delivery');
        return send(res, 200, { outcome: 'duplicate' });
      case 'handled':
        for (const r of result.results) {
          if (r.outcome === 'once-spent') {
            // A once trigger that already fired for this target: nothing created, and said so.
            count(DeliveryOutcome.OnceSpent);
            dlog.info({ trigger: r.trigger, spentBy: r.spentBy }, 'Found once trigger already fired for this target');
          } else if (r.outcome === 'unconfirmed') {
            count(DeliveryOutcome.LabelUnconfirmed);
            dlog.warn({ trigger: r.trigger }, 'Refused delivery: the forge does not show its label on the target');
          } else if (r.recordedEarlier) {
            // Counted when it was first handled; this is the same delivery again.
            count(DeliveryOutcome.Duplicate);
            dlog.info(
              { trigger: r.trigger, heldjob: r.heldJob, outcome: r.outcome },
              'Found HeldJob of an earlier handling of this delivery',
            );
          } else if (r.outcome === 'held') {
            count(DeliveryOutcome.Held);
            dlog.info({ trigger: r.trigger, heldjob: r.heldJob }, 'Created HeldJob');
          } else {
            count(DeliveryOutcome.Refused);
            metrics.refusals.inc({ token: r.token });
            dlog.info({ trigger: r.trigger, heldjob: r.heldJob, reason: r.token }, 'Refused delivery');
          }
        }
        return send(res, 202, { outcome: 'handled', results: result.results });
    }
  }

  const server = createServer(
    {
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: CHECK_INTERVAL_MS,
    },
    (req, res) => {
      connections.headReceived(req.socket);
      res.once('finish', () => {
        if (res.shouldKeepAlive) connections.idle(req.socket);
      });
      const path = (req.url ?? '/').split('?')[0];
      const route = async () => {
        if (path === '/healthz') return send(res, 200, { status: 'ok' });
        const forge = forgeOfRoute(path ?? '');
        if (!forge) return sendAndClose(res, 404, { error: 'not found' });
        if (req.method !== 'POST') return sendAndClose(res, 405, { error: 'POST only' });
        return webhook(forge, req, res);
      };
      route().catch((err: unknown) => {
        log.error({ err }, 'Failed request');
        if (!res.headersSent) sendAndClose(res, 500, { error: 'internal error' });
      });
    },
  );
  server.on('connection', (socket: Socket) => {
    socket.once('close', () => connections.closed(socket));
    // At the cap, the oldest connection still in its head makes room (connection-slots.ts).
    if (connections.opened(socket)) metrics.connectionsClosedForRoom.inc();
  });
  // Node's own answer to a request it cannot parse or that ran out of time stands: 400, 431
  // for headers too large, 408 for a timeout, and the connection closed.
  return server;
}

export interface MetricsServerDeps {
  readonly ready: () => Promise<boolean>;
  readonly metrics: ReceiverMetrics;
}

/** /metrics, /readyz and /healthz, for Prometheus and the kubelet: never the forges' port. */
export function createMetricsServer(deps: MetricsServerDeps): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const route = async () => {
      if (path === '/healthz') return send(res, 200, { status: 'ok' });
      if (path === '/readyz') {
        const ok = await deps.ready().catch(() => false);
        return send(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not ready' });
      }
      if (path === '/metrics') {
        const text = await deps.metrics.registry.metrics();
        res.writeHead(200, { 'content-type': deps.metrics.registry.contentType });
        return res.end(text);
      }
      return send(res, 404, { error: 'not found' });
    };
    route().catch(() => {
      if (!res.headersSent) send(res, 500, { error: 'internal error' });
    });
  });
}
