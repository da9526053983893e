import { z } from 'zod';
import { targetProblem } from '../../api/target.js';
import { TargetKind } from '../../api/vocabulary.js';
import { bodyHashOf, Forge, type ParsedEvent } from './event.js';
import { commitIdOf, getJson } from './forge-api.js';
import type { ForgeApi, ReceiverForgeModule } from './forge-module.js';
import { verifyGitlabToken } from './signature.js';

const labelList = z.array(z.object({ title: z.string() })).optional();
const hook = z.object({
  object_kind: z.string(),
  project: z.object({ path_with_namespace: z.string().regex(/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/) }),
  object_attributes: z.object({
    iid: z.number().int().positive(),
    last_commit: z.object({ id: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/) }).optional(),
  }),
  changes: z.object({ labels: z.object({ previous: labelList, current: labelList }).optional() }).optional(),
});

/** Turns a verified GitLab delivery into an event. `payload` is already JSON-parsed. */
export function parseGitlab(eventName: string | undefined, deliveryId: string | undefined, body: Buffer, payload: unknown): ParsedEvent {
  const sep = eventName === 'Issue Hook' ? '#' : eventName === 'Merge Request Hook' ? '!' : undefined;
  if (!sep) return { kind: 'unhandled', eventName: eventName ?? '(none)' };
  const r = hook.safeParse(payload);
  if (!r.success) return { kind: 'malformed', problem: `not a GitLab ${eventName} payload: ${r.error.issues[0]?.path.join('.')}` };
  const p = r.data;
  const before = new Set((p.changes?.labels?.previous ?? []).map((l) => l.title));
  const added = (p.changes?.labels?.current ?? []).map((l) => l.title).filter((t) => !before.has(t));
  if (added.length === 0) return { kind: 'unhandled', eventName: `${eventName} without added labels` };
  const target = `${p.project.path_with_namespace}${sep}${p.object_attributes.iid}`;
  const problem = targetProblem(target);
  if (problem) return { kind: 'malformed', problem };
  const bodyHash = bodyHashOf(body);
  return {
    kind: 'label',
    event: {
      forge: Forge.GitLab,
      deliveryId: deliveryId || bodyHash,
      bodyHash,
      target,
      kind: sep === '!' ? TargetKind.MergeRequest : TargetKind.Issue,
      addedLabels: added,
      ...(sep === '!' && p.object_attributes.last_commit ? { revision: p.object_attributes.last_commit.id } : {}),
    },
  };
}

/** The head of a project's default branch: the project names its branch, the branch its commit. */
async function defaultBranchHead(api: ForgeApi, repository: string): Promise<string> {
  const project = `${api.url.replace(/\/+$/, '')}/projects/${encodeURIComponent(repository)}`;
  const headers = { 'private-token': api.token };
  const p = (await getJson('read project', project, headers, api.timeoutMs)) as { default_branch?: unknown };
  if (typeof p.default_branch !== 'string') throw new Error('read project: no default branch');
  const branch = (await getJson(
    'read default branch',
    `${project}/repository/branches/${encodeURIComponent(p.default_branch)}`,
    headers,
    api.timeoutMs,
  )) as { commit?: { id?: unknown } };
  return commitIdOf('read default branch', branch.commit?.id);
}

/** The labels on an issue (`#`) or merge request (`!`) now. */
async function currentLabels(api: ForgeApi, t: { repository: string; separator: '#' | '!'; number: string }): Promise<readonly string[]> {
  const project = `${api.url.replace(/\/+$/, '')}/projects/${encodeURIComponent(t.repository)}`;
  const path = t.separator === '!' ? 'merge_requests' : 'issues';
  const got = (await getJson('read labels', `${project}/${path}/${t.number}`, { 'private-token': api.token }, api.timeoutMs)) as {
    labels?: unknown;
  };
  if (!Array.isArray(got.labels) || !got.labels.every((l) => typeof l === 'string'))
    throw new Error('read labels: the answer carries no labels');
  return got.labels;
}

const first = (values: readonly string[] | undefined) => (values?.length === 1 ? values[0] : undefined);

/** GitLab: X-Gitlab-Token carries the shared token itself. */
export const gitlabForge: ReceiverForgeModule = {
  route: '/webhooks/gitlab',
  deliveryIdHeaders: ['x-gitlab-event-uuid', 'idempotency-key'],
  checkHeaders: (headers, secrets) => (verifyGitlabToken(secrets, headers['x-gitlab-token']) ? { ok: true } : { ok: false }),
  parse: ({ headers, deliveryId, body, payload }) => parseGitlab(first(headers['x-gitlab-event']), deliveryId, body, payload),
  defaultBranchHead,
  currentLabels,
};
