// Azure DevOps through its REST API with plain fetch: comments on work items (`#`) and threads
// on pull requests (`!`). Not azure-devops-node-api: its REST layer (typed-rest-client) turns a
// failed call into an Error that carries the status and the parsed body but not the answer's
// headers, so Retry-After is lost and the bounded, Retry-After-honouring retry the reporter runs
// (retry-policy.ts) could not be built on it; it answers a 404 with an empty result instead of
// failing, which the reporter must see to give up; and its message is the forge's body text,
// which would reach the logs and the Warning Event. Four endpoints need no client.
import type { ForgeTarget } from '../decide/report.js';
import type { ForgeComments } from './reporter.js';
import { ForgeHttpError } from './retry-policy.js';

export interface AzureOptions {
  /** The organisation's root, e.g. https://dev.azure.com/acme. */
  readonly apiUrl: string;
  /** A personal access token (Work Items and Code, read and write). */
  readonly token: string;
  readonly timeoutMs: number;
}

interface WorkItemComment {
  readonly id: number;
  readonly text?: string;
  readonly createdDate?: string;
}

interface Thread {
  readonly id: number;
  readonly publishedDate?: string;
  readonly comments?: readonly { readonly id?: number; readonly content?: string; readonly publishedDate?: string }[];
}

export class AzureDevOpsForge implements ForgeComments {
  constructor(private readonly options: AzureOptions) {}

  /** Where the target's comments are: a work item's comments, or a pull request's threads. */
  private url(t: ForgeTarget): string {
    const root = this.options.apiUrl.replace(/\/+$/, '');
    const [project = '', repo = ''] = t.repository.split('/');
    const p = encodeURIComponent(project);
    return t.mergeRequest
      ? `${root}/${p}/_apis/git/repositories/${encodeURIComponent(repo)}/pullRequests/${t.number}/threads?api-version=7.1`
      : `${root}/${p}/_apis/wit/workItems/${t.number}/comments?format=markdown&api-version=7.1-preview.4`;
  }

  private async call(what: string, url: string, init: RequestInit = {}): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(url, {
        ...init,
        headers: {
          authorization: `Basic ${Buffer.from(`:${this.options.token}`).toString('base64')}`,
          accept: 'application/json',
          ...(init.headers as Record<string, string>),
        },
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (err) {
      throw new Error(`${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new ForgeHttpError(res.status, Object.fromEntries(res.headers.entries()), what);
    }
    return res.json();
  }

  async findMarked(target: ForgeTarget, marker: string, since: string): Promise<string | undefined> {
    const notBefore = Date.parse(since);
    const recent = (at: string | undefined) => !(Date.parse(at ?? '') < notBefore);
    if (target.mergeRequest) {
      const { value = [] } = (await this.call('list threads', this.url(target))) as { value?: Thread[] };
      const found = value.find((t) => t.comments?.some((c) => c.content?.includes(marker) && recent(c.publishedDate ?? t.publishedDate)));
      return found ? String(found.id) : undefined;
    }
    const { comments = [] } = (await this.call('list comments', this.url(target))) as { comments?: WorkItemComment[] };
    const found = comments.find((c) => c.text?.includes(marker) && recent(c.createdDate));
    return found ? String(found.id) : undefined;
  }

  async post(target: ForgeTarget, body: string): Promise<string> {
    const json = { 'content-type': 'application/json' };
    if (target.mergeRequest) {
      // A new thread of one comment, closed: a report asks nothing of the reviewers.
      const thread = (await this.call('create thread', this.url(target), {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ comments: [{ parentCommentId: 0, content: body, commentType: 1 }], status: 'closed' }),
      })) as Thread;
      return String(thread.id);
    }
    const comment = (await this.call('create comment', this.url(target), {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ text: body }),
    })) as WorkItemComment;
    return String(comment.id);
  }
}
