// GitHub through @octokit/rest: comments on issues and pull requests (one API for both), and a
// hook's deliveries (a repository's, an organisation's, or the GitHub App's own). With a token,
// or as a GitHub App installation (@octokit/auth-app makes and renews the installation token).
// No retries in here: the reporter and the redelivery round decide those; every call has a
// timeout.
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { createPrivateKey } from 'node:crypto';
import type { GitHubAuthConfig } from '../../api/config/operator-config.js';
import type { HookRef } from '../../api/github-hooks.js';
import { assertNever } from '../../api/vocabulary.js';
import type { ForgeTarget } from '../decide/report.js';
import type { HookDelivery } from './redelivery-plan.js';
import type { ForgeComments } from './reporter.js';
import { ForgeHttpError } from './retry-policy.js';

export interface GitHubOptions {
  readonly apiUrl: string;
  readonly auth: GitHubAuthConfig;
  readonly timeoutMs: number;
}

/** Deliveries looked at per hook and round: newest first, pages of 100. */
const DELIVERY_PAGES = 3;

function octokitOf(o: GitHubOptions): Octokit {
  const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
  const common = { baseUrl: o.apiUrl.replace(/\/+$/, ''), userAgent: 'waitgate', log: quiet };
  return o.auth.kind === 'token'
    ? new Octokit({ ...common, auth: o.auth.token })
    : new Octokit({
        ...common,
        authStrategy: createAppAuth,
        // GitHub hands out PKCS#1 keys; the JWT signer wants PKCS#8.
        auth: {
          appId: o.auth.appId,
          privateKey: createPrivateKey(o.auth.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString(),
          installationId: o.auth.installationId,
        },
      });
}

/** Octokit's error as the retry policy reads it: a status with headers, or no answer at all. */
function translated(err: unknown, what: string): Error {
  const e = err as { status?: unknown; response?: { headers?: Record<string, string | number | undefined> } };
  if (typeof e?.status === 'number' && e.response) {
    const headers = Object.fromEntries(
      Object.entries(e.response.headers ?? {}).map(([k, v]) => [k, v === undefined ? undefined : String(v)]),
    );
    return new ForgeHttpError(e.status, headers, what);
  }
  return new Error(`${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}

export class GitHubForge implements ForgeComments {
  private readonly octokit: Octokit;

  constructor(private readonly options: GitHubOptions) {
    this.octokit = octokitOf(options);
  }

  private request() {
    return { request: { signal: AbortSignal.timeout(this.options.timeoutMs) } };
  }

  private static repo(t: ForgeTarget): { owner: string; repo: string } {
    const [owner = '', repo = ''] = t.repository.split('/');
    return { owner, repo };
  }

  async findMarked(target: ForgeTarget, marker: string, since: string): Promise<string | undefined> {
    try {
      const { data } = await this.octokit.rest.issues.listComments({
        ...GitHubForge.repo(target),
        issue_number: target.number,
        since,
        per_page: 100,
        ...this.request(),
      });
      const found = data.find((c) => c.body?.includes(marker));
      return found ? String(found.id) : undefined;
    } catch (err) {
      throw translated(err, 'list comments');
    }
  }

  async post(target: ForgeTarget, body: string): Promise<string> {
    try {
      const { data } = await this.octokit.rest.issues.createComment({
        ...GitHubForge.repo(target),
        issue_number: target.number,
        body,
        ...this.request(),
      });
      return String(data.id);
    } catch (err) {
      throw translated(err, 'create comment');
    }
  }

  /** The hook's recent deliveries, newest first, until `notBefore` (epoch ms) or a few pages. */
  async deliveries(hook: HookRef, notBefore: number): Promise<HookDelivery[]> {
    const out: HookDelivery[] = [];
    let pages = 0;
    try {
      for await (const page of this.deliveryPages(hook)) {
        for (const d of page.data) {
          out.push({ id: d.id, guid: d.guid, deliveredAt: d.delivered_at, redelivery: d.redelivery, statusCode: d.status_code });
        }
        const last = page.data[page.data.length - 1];
        if (++pages >= DELIVERY_PAGES || !last || Date.parse(last.delivered_at) < notBefore) break;
      }
    } catch (err) {
      throw translated(err, 'list deliveries');
    }
    return out;
  }

  /**
   * The pages of a hook's deliveries. The App's own webhook is read as the App (auth-app signs
   * the /app/hook routes with the App's JWT, not the installation token).
   */
  private deliveryPages(hook: HookRef) {
    const paged = { per_page: 100, ...this.request() };
    const { paginate, rest } = this.octokit;
    switch (hook.kind) {
      case 'repo':
        return paginate.iterator(rest.repos.listWebhookDeliveries, { owner: hook.owner, repo: hook.repo, hook_id: hook.hookId, ...paged });
      case 'org':
        return paginate.iterator(rest.orgs.listWebhookDeliveries, { org: hook.org, hook_id: hook.hookId, ...paged });
      case 'app':
        return paginate.iterator(rest.apps.listWebhookDeliveries, paged);
      default:
        return assertNever(hook);
    }
  }

  async redeliver(hook: HookRef, deliveryId: number): Promise<void> {
    const { rest } = this.octokit;
    try {
      switch (hook.kind) {
        case 'repo':
          await rest.repos.redeliverWebhookDelivery({
            owner: hook.owner,
            repo: hook.repo,
            hook_id: hook.hookId,
            delivery_id: deliveryId,
            ...this.request(),
          });
          return;
        case 'org':
          await rest.orgs.redeliverWebhookDelivery({ org: hook.org, hook_id: hook.hookId, delivery_id: deliveryId, ...this.request() });
          return;
        case 'app':
          await rest.apps.redeliverWebhookDelivery({ delivery_id: deliveryId, ...this.request() });
          return;
        default:
          return assertNever(hook);
      }
    } catch (err) {
      throw translated(err, 'redeliver');
    }
  }
}
