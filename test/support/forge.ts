// Builders for forge deliveries, signed as GitHub and GitLab sign them, and authenticated as an
// Azure DevOps service hook is (basic credentials); Azure's payloads keep the shape of the
// samples in Microsoft's service hook events reference.
import { createHash, createHmac, randomUUID } from 'node:crypto';

export const GITHUB_SECRET = 'test-github-secret';
export const GITLAB_TOKEN = 'test-gitlab-token';
export const AZURE_SECRET = 'test-azure-secret';
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

/** An Azure DevOps service hook's basic credentials: a user name of the subscription's choosing and the secret. */
export function azureBasic(secret: string = AZURE_SECRET, user = 'waitgate'): string {
  return `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;
}

function azureDelivery(payload: unknown, auth: Record<string, string> = { authorization: azureBasic() }): Delivery {
  return { path: '/webhooks/azure', headers: { 'content-type': 'application/json', ...auth }, body: Buffer.from(JSON.stringify(payload)) };
}

/** A commit id made from a readable name. */
export function commitOf(name: string): string {
  return createHash('sha1').update(name).digest('hex');
}

/**
 * git.pullrequest.created or .updated for `project/repo!id`, carrying `labels` (Azure's pull
 * request tags), as Microsoft's sample has it with its labels added.
 */
export function azurePullRequest(opts: {
  project?: string;
  repo?: string;
  id?: number;
  labels: string[];
  event?: 'git.pullrequest.created' | 'git.pullrequest.updated';
  eventId?: string;
  head?: string;
  auth?: Record<string, string>;
}): Delivery {
  const project = opts.project ?? 'Fabrikam';
  const repo = opts.repo ?? 'Fabrikam';
  const id = opts.id ?? 1;
  const org = 'https://dev.azure.com/fabrikam/DefaultCollection';
  const repoUrl = `${org}/_apis/repos/git/repositories/4bc14d40-c903-45e2-872e-0462c7748079`;
  const payload = {
    subscriptionId: '00000000-0000-0000-0000-000000000000',
    notificationId: 1,
    id: opts.eventId ?? randomUUID(),
    eventType: opts.event ?? 'git.pullrequest.updated',
    publisherId: 'tfs',
    message: { text: `Jamal Hartnett updated ${AUTHOR_TEXT}`, html: AUTHOR_TEXT, markdown: AUTHOR_TEXT },
    detailedMessage: { text: AUTHOR_TEXT, html: AUTHOR_TEXT, markdown: AUTHOR_TEXT },
    resource: {
      repository: {
        id: '4bc14d40-c903-45e2-872e-0462c7748079',
        name: repo,
        url: repoUrl,
        project: { id: '6ce954b1-ce1f-45d1-b94d-e6bf2464ba2c', name: project, url: `${org}/_apis/projects/6ce954b1`, state: 'wellFormed' },
        defaultBranch: 'refs/heads/master',
        remoteUrl: `${org}/_git/${repo}`,
      },
      pullRequestId: id,
      status: 'active',
      createdBy: { id: '54d125f7-69f7-4191-904f-c5b96b6261c8', displayName: 'Jamal Hartnett', uniqueName: 'someone@example.com' },
      creationDate: updatedAt(),
      title: AUTHOR_TEXT,
      description: AUTHOR_TEXT,
      sourceRefName: 'refs/heads/mytopic',
      targetRefName: 'refs/heads/master',
      mergeStatus: 'succeeded',
      mergeId: 'a10bb228-6ba6-4362-abd7-49ea21333dbd',
      lastMergeSourceCommit: { commitId: opts.head ?? commitOf(`${project}/${repo}!${id}`), url: `${repoUrl}/commits/x` },
      lastMergeTargetCommit: { commitId: commitOf('target'), url: `${repoUrl}/commits/y` },
      reviewers: [],
      labels: opts.labels.map((name, i) => ({ id: `0000000${i}-0000-0000-0000-000000000000`, name, active: true })),
      url: `${repoUrl}/pullRequests/${id}`,
    },
    resourceVersion: '1.0',
    resourceContainers: {
      collection: { id: 'c12d0eb8-e382-443b-9f9c-c52cba5014c2' },
      account: { id: 'f844ec47-a9db-4511-8281-8b63f4eaf94e' },
    },
    createdDate: updatedAt(),
  };
  return azureDelivery(payload, opts.auth);
}

/** workitem.updated for work item `id` of `project`, its System.Tags changed from `before` to `after`, as Microsoft's sample has it. */
export function azureWorkItemTagged(opts: {
  project?: string;
  id?: number;
  before?: string[];
  after: string[];
  eventId?: string;
  auth?: Record<string, string>;
}): Delivery {
  const project = opts.project ?? 'FabrikamCloud';
  const id = opts.id ?? 5;
  const org = 'https://dev.azure.com/fabrikam-fiber-inc/DefaultCollection';
  const payload = {
    id: opts.eventId ?? randomUUID(),
    eventType: 'workitem.updated',
    publisherId: 'tfs',
    scope: 'all',
    message: { text: `Bug #${id} (${AUTHOR_TEXT}) updated by Jamal Hartnett.`, html: AUTHOR_TEXT, markdown: AUTHOR_TEXT },
    detailedMessage: { text: AUTHOR_TEXT, html: AUTHOR_TEXT, markdown: AUTHOR_TEXT },
    resource: {
      id: 2,
      workItemId: id,
      rev: 2,
      revisedBy: null,
      revisedDate: '0001-01-01T00:00:00',
      fields: {
        'System.Rev': { oldValue: '1', newValue: '2' },
        'System.ChangedDate': { oldValue: '2014-07-15T16:48:44.663Z', newValue: updatedAt() },
        'System.Tags': { ...(opts.before ? { oldValue: opts.before.join('; ') } : {}), newValue: opts.after.join('; ') },
      },
      url: `${org}/_apis/wit/workItems/${id}/updates/2`,
      revision: {
        id,
        rev: 2,
        fields: {
          'System.AreaPath': project,
          'System.TeamProject': project,
          'System.WorkItemType': 'Bug',
          'System.State': 'New',
          'System.Title': AUTHOR_TEXT,
          'System.Tags': opts.after.join('; '),
        },
        url: `${org}/_apis/wit/workItems/${id}/revisions/2`,
      },
    },
    resourceVersion: '1.0',
    resourceContainers: {
      collection: { id: 'c12d0eb8-e382-443b-9f9c-c52cba5014c2' },
      account: { id: 'f844ec47-a9db-4511-8281-8b63f4eaf94e' },
    },
    createdDate: updatedAt(),
  };
  return azureDelivery(payload, opts.auth);
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
