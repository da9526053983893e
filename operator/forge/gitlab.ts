// GitLab through its REST API with plain fetch: notes on issues and merge requests. Not
// @gitbeaker/rest: its request handler retries 429 and 502 by itself, ten times within about a
// quarter of a second, ignoring Retry-After, and then throws an error without the response's
// headers, so the bounded, Retry-After-honouring retry waitgate needs could not be built on it
// without replacing its requester. Two endpoints do not need a client.
import type { ForgeTarget } from '../decide/report.js';
import type { ForgeComments } from './reporter.js';
import { ForgeHttpError } from './retry-policy.js';

export interface GitLabOptions {
  /** The API root, e.g. https://gitlab.com/api/v4. */
  readonly apiUrl: string;
  readonly token: string;
  readonly timeoutMs: number;
}

interface Note {
  readonly id: number;
  readonly body?: string;
  readonly created_at?: string;
}

export class GitLabForge implements ForgeComments {
  constructor(private readonly options: GitLabOptions) {}

  private notesUrl(t: ForgeTarget): string {
    const root = this.options.apiUrl.replace(/\/+$/, '');
    return `${root}/projects/${encodeURIComponent(t.repository)}/${t.mergeRequest ? 'merge_requests' : 'issues'}/${t.number}/notes`;
  }

  private async call(what: string, url: string, init: RequestInit = {}): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(url, {
        ...init,
        headers: { 'private-token': this.options.token, accept: 'application/json', ...(init.headers as Record<string, string>) },
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
    const notes = (await this.call('list notes', `${this.notesUrl(target)}?sort=desc&order_by=created_at&per_page=100`)) as Note[];
    const notBefore = Date.parse(since);
    const found = notes.find((n) => n.body?.includes(marker) && !(Date.parse(n.created_at ?? '') < notBefore));
    return found ? String(found.id) : undefined;
  }

  async post(target: ForgeTarget, body: string): Promise<string> {
    const note = (await this.call('create note', this.notesUrl(target), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ body }),
    })) as Note;
    return String(note.id);
  }
}
