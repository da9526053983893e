// Builders for forge deliveries, signed as GitHub and GitLab sign them.
import { createHash, createHmac, randomUUID } from 'node:crypto';

export const GITHUB_SECRET = 'test-github-secret';
export const GITLAB_TOKEN = 'test-gitlab-token';
/** Author-typed text planted in every payload; it must never reach a HeldJob or a log line. */
export const AUTHOR_TEXT = 'PLEASE-DO-NOT-COPY-this-title-or-body';

/** A delivery id of the forge's shape (a UUID) made from a readable name, the same for the same name. */
export function deliveryUuid(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * An update time no other payload built here has: two events a forge sends differ at least
 * there, so two deliveries built here never share a body (the receiver drops a body it has seen).
 */
let stamps = 0;
function updatedAt(): string {
  return new Date(Date.UTC(2026, 0, 1) + ++stamps * 1000 + Math.floor(Math.random() * 1e9) * 1000).toISOString();
}

export interface Delivery {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

export function githubLabeled(opts: { repo?: string; number?: number; label: string; pull?: boolean; deliveryId?: string }): Delivery {
  const number = opts.number ?? 7;
  const item = { number, title: AUTHOR_TEXT, body: AUTHOR_TEXT, user: { login: 'someone' }, updated_at: updatedAt() };
  const payload = {
    action: 'labeled',
    label: { name: opts.label },
    repository: { full_name: opts.repo ?? 'acme/web', description: AUTHOR_TEXT },
    ...(opts.pull ? { pull_request: item } : { issue: item }),
  };
  return githubDelivery(opts.pull ? 'pull_request' : 'issues', payload, opts.deliveryId);
}

export function githubDelivery(event: string, payload: unknown, deliveryId: string = randomUUID()): Delivery {
  const body = Buffer.from(JSON.stringify(payload));
  return {
    path: '/webhooks/github',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': deliveryId,
      'x-hub-signature-256': `sha256=${createHmac('sha256', GITHUB_SECRET).update(body).digest('hex')}`,
    },
    body,
  };
}

export function gitlabMergeRequestLabeled(opts: { project?: string; iid?: number; label: string; deliveryId?: string }): Delivery {
  const payload = {
    object_kind: 'merge_request',
    project: { path_with_namespace: opts.project ?? 'group/sub/repo' },
    object_attributes: { iid: opts.iid ?? 12, title: AUTHOR_TEXT, description: AUTHOR_TEXT, updated_at: updatedAt() },
    changes: { labels: { previous: [{ title: 'other' }], current: [{ title: 'other' }, { title: opts.label }] } },
  };
  const body = Buffer.from(JSON.stringify(payload));
  return {
    path: '/webhooks/gitlab',
    headers: {
      'content-type': 'application/json',
      'x-gitlab-event': 'Merge Request Hook',
      'x-gitlab-event-uuid': opts.deliveryId ?? randomUUID(),
      'x-gitlab-token': GITLAB_TOKEN,
    },
    body,
  };
}

/** X-Hub-Signature-256 of `body` under `secret`. */
export function githubSignature(body: Buffer, secret: string = GITHUB_SECRET): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** The same GitHub delivery, signed with another secret. */
export function signedWith(d: Delivery, secret: string): Delivery {
  return { ...d, headers: { ...d.headers, 'x-hub-signature-256': githubSignature(d.body, secret) } };
}

export async function post(baseUrl: string, d: Delivery): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl}${d.path}`, { method: 'POST', headers: d.headers, body: d.body });
  const text = await res.text();
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { raw: text };
  }
  return { status: res.status, json };
}

/** What a receiver answered for one trigger of a delivery (its JSON `results`). */
export interface TriggerResult {
  readonly trigger: string;
  readonly outcome: string;
  readonly heldJob: string;
  readonly token?: string;
  readonly recordedEarlier?: boolean;
}

/** The per-trigger results of a receiver's answer. */
export function resultsOf(r: { json: Record<string, unknown> }): TriggerResult[] {
  return (r.json['results'] as TriggerResult[] | undefined) ?? [];
}
