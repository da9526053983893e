// The forge adapters against a fake forge on loopback: the paths, the credentials and the
// error details the reporter and the redelivery round depend on.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { GitHubForge } from '../../operator/forge/github.js';
import { GitLabForge } from '../../operator/forge/gitlab.js';
import { AzureDevOpsForge } from '../../operator/forge/azure.js';
import { RECEIVER_FORGES } from '../../receiver/forges/index.js';
import { FORGES } from '../../api/vocabulary.js';
import { ForgeHttpError } from '../../operator/forge/retry-policy.js';
import type { ForgeTarget } from '../../operator/decide/report.js';
import { APP_HOOK_KEY, DEFAULT_HEAD, FAKE_INSTALLATION_TOKEN, FakeForge, fakeGitHubApp } from '../support/fake-forge.js';

let forge: FakeForge;
beforeAll(async () => {
  forge = await FakeForge.start();
});
afterAll(() => forge.stop());

const issue: ForgeTarget = { forge: 'github', repository: 'acme/web', number: 7, mergeRequest: false };
const SINCE = new Date(Date.now() - 600_000).toISOString();

describe('GitHub', () => {
  const github = () => new GitHubForge({ apiUrl: forge.githubApiUrl, auth: { kind: 'token', token: 'ghp_test' }, timeoutMs: 2000 });

  test('posts a comment with the token and finds it by its marker', async () => {
    const id = await github().post(issue, 'hello\n<!-- waitgate:u1:refused -->');
    expect(forge.comments('github:acme/web#7').map((c) => String(c.id))).toEqual([id]);
    expect(await github().findMarked(issue, '<!-- waitgate:u1:refused -->', SINCE)).toBe(id);
    expect(await github().findMarked(issue, '<!-- waitgate:u1:launched -->', SINCE)).toBeUndefined();
    const [list] = forge.callsTo('GET', /issues\/7\/comments$/);
    expect(list?.authorization).toBe('token ghp_test');
    expect(list?.query).toMatchObject({ since: SINCE, per_page: '100' });
  });

  test('a rate limit comes back with its headers', async () => {
    forge.fail({ method: 'GET', path: /issues\/8\/comments$/, status: 429, headers: { 'retry-after': '5' } });
    const err = await github()
      .findMarked({ ...issue, number: 8 }, 'x', SINCE)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForgeHttpError);
    expect(err).toMatchObject({ status: 429, headers: { 'retry-after': '5' } });
  });

  test('a forge that never answers ends at the timeout, as no answer', async () => {
    forge.fail({ method: 'POST', path: /issues\/9\/comments$/, hang: true });
    const started = Date.now();
    const err = await github()
      .post({ ...issue, number: 9 }, 'x')
      .catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(ForgeHttpError);
  });

  test('as a GitHub App: an installation token from a PKCS#1 key, then the call with it; the App’s own hook with its JWT', async () => {
    const { app, privateKey } = fakeGitHubApp('42', 77);
    // A forge that knows the App: it takes only JWTs signed with its key.
    const appForge = await FakeForge.start({ app });
    try {
      const client = new GitHubForge({
        apiUrl: appForge.githubApiUrl,
        auth: { kind: 'app', appId: '42', privateKey, installationId: 77 },
        timeoutMs: 2000,
      });
      await client.post({ ...issue, number: 10 }, 'from an app');
      const [token] = appForge.callsTo('POST', /^\/app\/installations\/77\/access_tokens$/);
      expect(token?.authorization).toMatch(/^bearer [\w-]+\.[\w-]+\.[\w-]+$/);
      expect(appForge.callsTo('POST', /issues\/10\/comments$/)[0]?.authorization).toBe(`token ${FAKE_INSTALLATION_TOKEN}`);

      const at = new Date().toISOString();
      appForge.deliveries.set(APP_HOOK_KEY, [{ id: 9, guid: 'g9', delivered_at: at, redelivery: false, status_code: 503 }]);
      expect(await client.deliveries({ kind: 'app' }, 0)).toEqual([
        { id: 9, guid: 'g9', deliveredAt: at, redelivery: false, statusCode: 503 },
      ]);
      await client.redeliver({ kind: 'app' }, 9);
      const hookCalls = appForge.calls.filter((c) => c.path.startsWith('/app/hook/'));
      expect(hookCalls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /app/hook/deliveries', 'POST /app/hook/deliveries/9/attempts']);
      // As the App itself (its JWT), which the fake checked; never the installation token.
      expect(hookCalls.every((c) => /^bearer [\w-]+\.[\w-]+\.[\w-]+$/.test(c.authorization ?? ''))).toBe(true);
    } finally {
      await appForge.stop();
    }
  });

  test('the App’s own hook cannot be read with another App’s key', async () => {
    const appForge = await FakeForge.start({ app: fakeGitHubApp('42', 77).app });
    try {
      const stranger = new GitHubForge({
        apiUrl: appForge.githubApiUrl,
        auth: { kind: 'app', appId: '42', privateKey: fakeGitHubApp().privateKey, installationId: 77 },
        timeoutMs: 2000,
      });
      await expect(stranger.deliveries({ kind: 'app' }, 0)).rejects.toMatchObject({ status: 401 });
    } finally {
      await appForge.stop();
    }
  });

  test('lists a repository hook’s and an organisation hook’s deliveries and asks for one again', async () => {
    const at = new Date().toISOString();
    forge.deliveries.set('acme/web:12', [{ id: 5, guid: 'g5', delivered_at: at, redelivery: false, status_code: 502 }]);
    forge.deliveries.set('acme:34', [{ id: 6, guid: 'g6', delivered_at: at, redelivery: false, status_code: 0 }]);
    const repoHook = { kind: 'repo', owner: 'acme', repo: 'web', hookId: 12 } as const;
    const orgHook = { kind: 'org', org: 'acme', hookId: 34 } as const;
    expect(await github().deliveries(repoHook, 0)).toEqual([{ id: 5, guid: 'g5', deliveredAt: at, redelivery: false, statusCode: 502 }]);
    expect(await github().deliveries(orgHook, 0)).toEqual([{ id: 6, guid: 'g6', deliveredAt: at, redelivery: false, statusCode: 0 }]);
    await github().redeliver(repoHook, 5);
    await github().redeliver(orgHook, 6);
    expect(forge.callsTo('POST', /deliveries\/\d+\/attempts$/).map((c) => c.path)).toEqual([
      '/repos/acme/web/hooks/12/deliveries/5/attempts',
      '/orgs/acme/hooks/34/deliveries/6/attempts',
    ]);
  });
});

describe('GitLab', () => {
  const gitlab = () => new GitLabForge({ apiUrl: forge.gitlabApiUrl, token: 'glpat-test', timeoutMs: 2000 });

  test.each<[string, ForgeTarget, string]>([
    ['an issue', { forge: 'gitlab', repository: 'group/sub/web', number: 3, mergeRequest: false }, 'gitlab:group/sub/web#3'],
    ['a merge request', { forge: 'gitlab', repository: 'group/web', number: 12, mergeRequest: true }, 'gitlab:group/web!12'],
  ])('a note on %s, found again by its marker', async (_, target, thread) => {
    const id = await gitlab().post(target, 'note\n<!-- waitgate:u2:refused -->');
    expect(forge.comments(thread).map((c) => String(c.id))).toEqual([id]);
    expect(await gitlab().findMarked(target, '<!-- waitgate:u2:refused -->', SINCE)).toBe(id);
    const post = forge.calls.filter((c) => c.method === 'POST' && c.path.includes('/notes')).at(-1);
    expect(post?.privateToken).toBe('glpat-test');
  });

  test('a 503 comes back with its status', async () => {
    forge.fail({ method: 'POST', path: /notes$/, status: 503 });
    const err = await gitlab()
      .post({ forge: 'gitlab', repository: 'g/p', number: 1, mergeRequest: false }, 'x')
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503 });
  });
});

describe('Azure DevOps', () => {
  const azure = () => new AzureDevOpsForge({ apiUrl: forge.azureApiUrl, token: 'ado-pat', timeoutMs: 2000 });
  const basic = `Basic ${Buffer.from(':ado-pat').toString('base64')}`;

  test.each<[string, ForgeTarget, string, RegExp]>([
    [
      'a work item: a comment',
      { forge: 'azure', repository: 'proj/proj', number: 5, mergeRequest: false },
      'azure:proj/proj#5',
      /\/proj\/_apis\/wit\/workItems\/5\/comments$/,
    ],
    [
      'a pull request: a thread',
      { forge: 'azure', repository: 'proj/web', number: 12, mergeRequest: true },
      'azure:proj/web!12',
      /\/proj\/_apis\/git\/repositories\/web\/pullRequests\/12\/threads$/,
    ],
  ])('%s, with the token as basic credentials, found again by its marker', async (_n, target, thread, path) => {
    const id = await azure().post(target, 'hello\n<!-- waitgate:u2:refused -->');
    expect(forge.comments(thread).map((c) => String(c.id))).toEqual([id]);
    expect(await azure().findMarked(target, '<!-- waitgate:u2:refused -->', SINCE)).toBe(id);
    expect(await azure().findMarked(target, '<!-- waitgate:u2:launched -->', SINCE)).toBeUndefined();
    const [posted] = forge.callsTo('POST', path);
    expect(posted?.authorization).toBe(basic);
    expect(posted?.query['api-version']).toMatch(/^7\.1/);
  });

  test('a rate limit comes back with its headers', async () => {
    forge.fail({ method: 'GET', path: /workItems\/6\/comments$/, status: 429, headers: { 'retry-after': '7' } });
    const err = await azure()
      .findMarked({ forge: 'azure', repository: 'proj/proj', number: 6, mergeRequest: false }, 'x', SINCE)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429, headers: { 'retry-after': '7' } });
  });
});

describe('the head of a default branch (the receiver, for run.pinRevision on an issue)', () => {
  test.each(FORGES)('%s: read with the token, the head the forge names', async (f) => {
    const repository = f === 'gitlab' ? 'group/sub/proj' : 'proj/web';
    const head = 'b'.repeat(40);
    forge.heads.set(`${f}:${repository}`, head);
    const url = { github: forge.githubApiUrl, gitlab: forge.gitlabApiUrl, azure: forge.azureApiUrl }[f];
    expect(await RECEIVER_FORGES[f].defaultBranchHead({ url, token: 'tok', timeoutMs: 2000 }, repository)).toBe(head);
    expect(await RECEIVER_FORGES[f].defaultBranchHead({ url, token: 'tok', timeoutMs: 2000 }, 'other/repo')).toBe(DEFAULT_HEAD);
  });

  test('a forge that fails says so', async () => {
    forge.fail({ method: 'GET', path: /^\/repos\/acme\/broken$/, status: 502 });
    await expect(
      RECEIVER_FORGES.github.defaultBranchHead({ url: forge.githubApiUrl, token: 't', timeoutMs: 2000 }, 'acme/broken'),
    ).rejects.toThrow('read repository: HTTP 502');
  });
});
