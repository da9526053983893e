// The receiver's HTTP surface: two webhook routes, health, readiness and metrics.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { DeliveryResult } from '../delivery/deliver.js';
import { UnavailableError } from '../delivery/deliver.js';
import { Forge, type LabelEvent, type ParsedEvent } from '../forges/event.js';
import { parseGithub } from '../forges/github.js';
import { parseGitlab } from '../forges/gitlab.js';
import { verifyGithubSignature, verifyGitlabToken } from '../forges/signature.js';
import { DeliveryOutcome, type ReceiverMetrics } from '../metrics.js';
import { readBody } from './read-body.js';

export interface ServerDeps {
  readonly githubSecret: string | undefined;
  readonly gitlabToken: string | undefined;
  readonly deliver: (event: LabelEvent) => Promise<DeliveryResult>;
  readonly ready: () => Promise<boolean>;
  readonly metrics: ReceiverMetrics;
  readonly log: Logger;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function createReceiverServer(deps: ServerDeps): Server {
  const { metrics, log } = deps;

  async function webhook(forge: Forge, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const count = (outcome: DeliveryOutcome) => metrics.deliveries.inc({ forge, outcome });
    const secret = forge === Forge.GitHub ? deps.githubSecret : deps.gitlabToken;
    if (!secret) {
      count(DeliveryOutcome.Unauthorized);
      return send(res, 401, { error: `no ${forge} webhook secret is configured` });
    }
    const body = await readBody(req);
    if (body === 'too-large') {
      count(DeliveryOutcome.TooLarge);
      return send(res, 413, { error: 'body over 1 MiB' });
    }
    // Authenticate the raw bytes before reading a single field.
    const authentic =
      forge === Forge.GitHub
        ? verifyGithubSignature(secret, body, header(req, 'x-hub-signature-256'))
        : verifyGitlabToken(secret, header(req, 'x-gitlab-token'));
    if (!authentic) {
      count(DeliveryOutcome.Unauthorized);
      log.warn({ forge }, 'Refused delivery with a bad or missing signature');
      return send(res, 401, { error: 'bad or missing signature' });
    }
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      count(DeliveryOutcome.Malformed);
      return send(res, 400, { error: 'body is not JSON' });
    }
    const parsed: ParsedEvent =
      forge === Forge.GitHub
        ? parseGithub(header(req, 'x-github-event'), header(req, 'x-github-delivery'), body, payload)
        : parseGitlab(header(req, 'x-gitlab-event'), header(req, 'x-gitlab-event-uuid') ?? header(req, 'idempotency-key'), body, payload);
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
          if (r.recordedEarlier) {
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

  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const route = async () => {
      if (path === '/healthz') return send(res, 200, { status: 'ok' });
      if (path === '/readyz') {
        const ok = await deps.ready().catch(() => false);
        return send(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not ready' });
      }
      if (path === '/metrics') {
        const text = await metrics.registry.metrics();
        res.writeHead(200, { 'content-type': metrics.registry.contentType });
        return res.end(text);
      }
      const forge = path === '/webhooks/github' ? Forge.GitHub : path === '/webhooks/gitlab' ? Forge.GitLab : undefined;
      if (!forge) return send(res, 404, { error: 'not found' });
      if (req.method !== 'POST') return send(res, 405, { error: 'POST only' });
      return webhook(forge, req, res);
    };
    route().catch((err: unknown) => {
      log.error({ err }, 'Failed request');
      if (!res.headersSent) send(res, 500, { error: 'internal error' });
    });
  });
}
