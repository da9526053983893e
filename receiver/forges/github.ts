import { z } from 'zod';
import { targetProblem } from '../../api/target.js';
import { TargetKind } from '../../api/vocabulary.js';
import { bodyHashOf, Forge, type ParsedEvent } from './event.js';
import { commitIdOf, getJson, namesOf } from './forge-api.js';
import type { ForgeApi, ReceiverForgeModule } from './forge-module.js';
import { githubDigestMatches, githubSignatureDigest } from './signature.js';

const repo = z.object({ full_name: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/) });
const labeled = z.object({
  action: z.string(),
  label: z.object({ name: z.string() }).optional(),
  repository: repo,
  issue: z.object({ number: z.number().int().positive() }).optional(),
  pull_request: z
    .object({ number: z.number().int().positive(), head: z.object({ sha: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/) }).optional() })
    .optional(),
});

/** Turns a verified GitHub delivery into an event. `payload` is already JSON-parsed. */
export function parseGithub(eventName: string | undefined, deliveryId: string | undefined, body: Buffer, payload: unknown): ParsedEvent {
  if (eventName !== 'issues' && eventName !== 'pull_request') return { kind: 'unhandled', eventName: eventName ?? '(none)' };
  const r = labeled.safeParse(payload);
  if (!r.success) return { kind: 'malformed', problem: `not a GitHub ${eventName} payload: ${r.error.issues[0]?.path.join('.')}` };
  const p = r.data;
  if (p.action !== 'labeled' || !p.label) return { kind: 'unhandled', eventName: `${eventName}.${p.action}` };
  const number = eventName === 'issues' ? p.issue?.number : p.pull_request?.number;
  if (number === undefined) return { kind: 'malformed', problem: `GitHub ${eventName} payload without a number` };
  const target = `${p.repository.full_name}#${number}`;
  const problem = targetProblem(target);
  if (problem) return { kind: 'malformed', problem };
  const bodyHash = bodyHashOf(body);
  return {
    kind: 'label',
    event: {
      forge: Forge.GitHub,
      deliveryId: deliveryId || bodyHash,
      bodyHash,
      target,
      kind: eventName === 'issues' ? TargetKind.Issue : TargetKind.PullRequest,
      addedLabels: [p.label.name],
      ...(eventName === 'pull_request' && p.pull_request?.head ? { revision: p.pull_request.head.sha } : {}),
    },
  };
}

/** The head of a repository's default branch: the repository names its branch, the branch its commit. */
async function defaultBranchHead(api: ForgeApi, repository: string): Promise<string> {
  const root = api.url.replace(/\/+$/, '');
  const headers = { authorization: `Bearer ${api.token}`, 'x-github-api-version': '2022-11-28' };
  const repo = (await getJson('read repository', `${root}/repos/${repository}`, headers, api.timeoutMs)) as { default_branch?: unknown };
  if (typeof repo.default_branch !== 'string') throw new Error('read repository: no default branch');
  const branch = (await getJson(
    'read default branch',
    `${root}/repos/${repository}/branches/${encodeURIComponent(repo.default_branch)}`,
    headers,
    api.timeoutMs,
  )) as { commit?: { sha?: unknown } };
  return commitIdOf('read default branch', branch.commit?.sha);
}

/** The labels on an issue or pull request now (a pull request is an issue to this call). */
async function currentLabels(api: ForgeApi, t: { repository: string; number: string }): Promise<readonly string[]> {
  const root = api.url.replace(/\/+$/, '');
  const headers = { authorization: `Bearer ${api.token}`, 'x-github-api-version': '2022-11-28' };
  const got = await getJson('read labels', `${root}/repos/${t.repository}/issues/${t.number}/labels?per_page=100`, headers, api.timeoutMs);
  return namesOf('read labels', got);
}

const first = (values: readonly string[] | undefined) => (values?.length === 1 ? values[0] : undefined);

/** GitHub: X-Hub-Signature-256, the body's HMAC-SHA256, checked on the raw bytes. */
export const githubForge: ReceiverForgeModule = {
  route: '/webhooks/github',
  deliveryIdHeaders: ['x-github-delivery'],
  checkHeaders(headers, secrets) {
    const digest = githubSignatureDigest(headers['x-hub-signature-256']);
    if (!digest) return { ok: false };
    return { ok: true, verifyBody: (body) => githubDigestMatches(secrets, body, digest) };
  },
  parse: ({ headers, deliveryId, body, payload }) => parseGithub(first(headers['x-github-event']), deliveryId, body, payload),
  defaultBranchHead,
  currentLabels,
};
