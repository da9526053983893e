// Azure DevOps service hooks (Web Hooks consumer): pull requests created or updated with labels
// (Azure's tags on a pull request), and work items created or updated with tags. A pull request
// is `project/repository!id`; a work item, which belongs to a project and to no repository, is
// `project/project#id`: the project's own repository, the one Azure names after the project.
// Azure sends no delivery id header: the event's id in the body stands in, else the body's hash.
import { z } from 'zod';
import { isUuid } from '../../api/delivery-id.js';
import { targetProblem } from '../../api/target.js';
import { TargetKind } from '../../api/vocabulary.js';
import { bodyHashOf, Forge, type ParsedEvent } from './event.js';
import { commitIdOf, getJson, namesOf } from './forge-api.js';
import type { ForgeApi, ReceiverForgeModule } from './forge-module.js';
import { verifyAzureCredentials } from './signature.js';

/** The names a target can carry; an Azure project or repository named otherwise (a space) cannot be one. */
const NAME = z.string().regex(/^[A-Za-z0-9_.-]+$/);
const COMMIT = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/i);

const envelope = z.object({ eventType: z.string(), id: z.string().optional() });

const pullRequest = z.object({
  resource: z.object({
    pullRequestId: z.number().int().positive(),
    repository: z.object({ name: NAME, project: z.object({ name: NAME }) }),
    labels: z.array(z.object({ name: z.string(), active: z.boolean().optional() })).optional(),
    lastMergeSourceCommit: z.object({ commitId: COMMIT }).optional(),
  }),
});

const project = z.object({ 'System.TeamProject': NAME });
/** workitem.updated: the update, with each changed field's old and new value, and the revision it made. */
const workItemUpdated = z.object({
  resource: z.object({
    fields: z.record(z.string(), z.unknown()).optional(),
    revision: z.object({ id: z.number().int().positive(), fields: project }),
  }),
});
/** workitem.created: the work item itself. */
const workItemCreated = z.object({
  resource: z.object({ id: z.number().int().positive(), fields: project.extend({ 'System.Tags': z.string().optional() }) }),
});
const tagChange = z.object({ oldValue: z.string().optional(), newValue: z.string().optional() });

/** Azure writes a work item's tags as one string, `a; b; c`. */
const tagsOf = (s: string | undefined) =>
  (s ?? '')
    .split(';')
    .map((t) => t.trim())
    .filter((t) => t !== '');

function firstIssue(r: { error: z.ZodError }): string {
  return r.error.issues[0]?.path.join('.') ?? '';
}

/** Turns a verified Azure DevOps delivery into an event. `payload` is already JSON-parsed. */
export function parseAzure(deliveryId: string | undefined, body: Buffer, payload: unknown): ParsedEvent {
  const env = envelope.safeParse(payload);
  if (!env.success) return { kind: 'malformed', problem: 'not an Azure DevOps service hook payload: no eventType' };
  const eventName = env.data.eventType;
  let target: string;
  let kind: TargetKind;
  let added: string[];
  let revision: string | undefined;
  let wholeSet = false;
  switch (eventName) {
    case 'git.pullrequest.created':
    case 'git.pullrequest.updated': {
      const r = pullRequest.safeParse(payload);
      if (!r.success) return { kind: 'malformed', problem: `not an Azure DevOps ${eventName} payload: ${firstIssue(r)}` };
      const pr = r.data.resource;
      // An update says nothing of what changed: the active labels are all sent, and which were
      // added is told against those seen last (#30: a push or a vote adds none, and fires nothing).
      added = (pr.labels ?? []).filter((l) => l.active !== false).map((l) => l.name);
      wholeSet = eventName === 'git.pullrequest.updated';
      target = `${pr.repository.project.name}/${pr.repository.name}!${pr.pullRequestId}`;
      kind = TargetKind.MergeRequest;
      revision = pr.lastMergeSourceCommit?.commitId.toLowerCase();
      break;
    }
    case 'workitem.updated': {
      const r = workItemUpdated.safeParse(payload);
      if (!r.success) return { kind: 'malformed', problem: `not an Azure DevOps ${eventName} payload: ${firstIssue(r)}` };
      const change = tagChange.safeParse(r.data.resource.fields?.['System.Tags']);
      const before = new Set(tagsOf(change.success ? change.data.oldValue : undefined));
      added = change.success ? tagsOf(change.data.newValue).filter((t) => !before.has(t)) : [];
      const p = r.data.resource.revision.fields['System.TeamProject'];
      target = `${p}/${p}#${r.data.resource.revision.id}`;
      kind = TargetKind.Issue;
      break;
    }
    case 'workitem.created': {
      const r = workItemCreated.safeParse(payload);
      if (!r.success) return { kind: 'malformed', problem: `not an Azure DevOps ${eventName} payload: ${firstIssue(r)}` };
      added = tagsOf(r.data.resource.fields['System.Tags']);
      const p = r.data.resource.fields['System.TeamProject'];
      target = `${p}/${p}#${r.data.resource.id}`;
      kind = TargetKind.Issue;
      break;
    }
    default:
      return { kind: 'unhandled', eventName };
  }
  if (added.length === 0) return { kind: 'unhandled', eventName: `${eventName} without labels` };
  const problem = targetProblem(target);
  if (problem) return { kind: 'malformed', problem };
  const bodyHash = bodyHashOf(body);
  const eventId = env.data.id !== undefined && isUuid(env.data.id.toLowerCase()) ? env.data.id.toLowerCase() : undefined;
  return {
    kind: 'label',
    event: {
      forge: Forge.Azure,
      deliveryId: deliveryId || eventId || bodyHash,
      bodyHash,
      target,
      kind,
      addedLabels: added,
      ...(wholeSet ? { labelsAreWholeSet: true as const } : {}),
      ...(revision ? { revision } : {}),
    },
  };
}

/** The REST API's version every call names. */
const API_VERSION = '7.1';

/** Basic credentials of a personal access token: an empty user name and the token. */
export function azureAuthorization(token: string): string {
  return `Basic ${Buffer.from(`:${token}`).toString('base64')}`;
}

/** The head of a repository's default branch: the repository names its branch, the branch's ref its commit. */
async function defaultBranchHead(api: ForgeApi, repository: string): Promise<string> {
  const [projectName = '', repoName = ''] = repository.split('/');
  const repoUrl = `${api.url.replace(/\/+$/, '')}/${encodeURIComponent(projectName)}/_apis/git/repositories/${encodeURIComponent(repoName)}`;
  const headers = { authorization: azureAuthorization(api.token) };
  const repo = (await getJson('read repository', `${repoUrl}?api-version=${API_VERSION}`, headers, api.timeoutMs)) as {
    defaultBranch?: unknown;
  };
  if (typeof repo.defaultBranch !== 'string' || !repo.defaultBranch.startsWith('refs/heads/')) {
    throw new Error('read repository: no default branch');
  }
  const filter = encodeURIComponent(repo.defaultBranch.slice('refs/'.length));
  const refs = (await getJson(
    'read default branch',
    `${repoUrl}/refs?filter=${filter}&api-version=${API_VERSION}`,
    headers,
    api.timeoutMs,
  )) as {
    value?: { name?: unknown; objectId?: unknown }[];
  };
  // The filter is a prefix: `heads/main` finds `heads/main-old` too.
  return commitIdOf('read default branch', refs.value?.find((r) => r.name === repo.defaultBranch)?.objectId);
}

/** The tags on a work item (`#`) or the active labels on a pull request (`!`) now. */
async function currentLabels(api: ForgeApi, t: { repository: string; separator: '#' | '!'; number: string }): Promise<readonly string[]> {
  const [projectName = '', repoName = ''] = t.repository.split('/');
  const root = `${api.url.replace(/\/+$/, '')}/${encodeURIComponent(projectName)}/_apis`;
  const headers = { authorization: azureAuthorization(api.token) };
  if (t.separator === '#') {
    const item = (await getJson(
      'read tags',
      `${root}/wit/workitems/${t.number}?fields=System.Tags&api-version=${API_VERSION}`,
      headers,
      api.timeoutMs,
    )) as { fields?: Record<string, unknown> };
    const tags = item.fields?.['System.Tags'];
    if (tags !== undefined && typeof tags !== 'string') throw new Error('read tags: the answer carries no tags');
    return tagsOf(tags);
  }
  const got = (await getJson(
    'read labels',
    `${root}/git/repositories/${encodeURIComponent(repoName)}/pullRequests/${t.number}/labels?api-version=${API_VERSION}`,
    headers,
    api.timeoutMs,
  )) as { value?: unknown };
  if (!Array.isArray(got.value)) throw new Error('read labels: the answer carries no labels');
  return namesOf(
    'read labels',
    (got.value as { active?: unknown }[]).filter((l) => l.active !== false),
  );
}

export const azureForge: ReceiverForgeModule = {
  route: '/webhooks/azure',
  deliveryIdHeaders: [],
  checkHeaders: (headers, secrets) => (verifyAzureCredentials(secrets, headers) ? { ok: true } : { ok: false }),
  parse: ({ deliveryId, body, payload }) => parseAzure(deliveryId, body, payload),
  defaultBranchHead,
  currentLabels,
};
