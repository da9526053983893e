// A client-node informer that restarts itself. client-node (2.x) reconnects by itself after a
// watch closes or goes quiet past its inactivity timeout, and re-lists after 410 Gone; on any
// other error (the apiserver refusing the watch or the list, a connection refused) it stops and
// emits `error`. A controller must not go deaf, so this one starts it again with backoff: the
// watch resumes from the last resourceVersion it saw (so nothing in between is missed), or
// re-lists when that is gone, which replays every object as an add or update.
//
// The cache is what an idle hold costs: every object is kept, so each is trimmed as it
// arrives. managedFields (about 40 % of a HeldJob's JSON) is always dropped, and a caller may
// drop more (the Job informer keeps only metadata and status). client-node's cache stores the
// very object it hands its add and update handlers, so the trim runs as the first handler and
// on every list page before the cache sees it.
//
// A list is asked for in pages (LIST_PAGE_SIZE objects each, as client-go's pager does), each
// page trimmed as it comes: a restart with tens of thousands of objects never holds one
// response of all of them, as text and parsed at once, beside the cache it is filling (a
// restarted operator with 30,000 holds was OOM-killed so under the chart's limit, 2026-12-05).
import * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';

export type InformerEvent = 'add' | 'update' | 'delete';

/** Objects asked for in one list request. */
export const LIST_PAGE_SIZE = 500;

/** One page of a list: at most `limit` objects, from where the page before left off. */
export interface ListPage {
  readonly limit: number;
  readonly continue?: string;
}

/** The continue token of a list page: typed lists have it as `_continue`, raw (custom) ones as `continue`. */
export function continueOf(list: k8s.KubernetesListObject<k8s.KubernetesObject>): string | undefined {
  const meta: { _continue?: string; continue?: string } | undefined = list.metadata;
  return meta?._continue || meta?.continue || undefined;
}

/** A page as the generated clients' list parameters. */
export function pageParams(page: ListPage | undefined): { limit?: number; _continue?: string } {
  if (page === undefined) return {};
  return page.continue === undefined ? { limit: page.limit } : { limit: page.limit, _continue: page.continue };
}

/**
 * Every page of a list, each trimmed as it comes, as one list: the first page's metadata (its
 * resourceVersion is the snapshot every page is read from, the one a watch resumes from),
 * without a continue token. A list function that ignores the page answers everything at once.
 */
export async function listAllPages<T extends k8s.KubernetesObject>(
  list: (page: ListPage) => Promise<k8s.KubernetesListObject<T>>,
  trim: (obj: T) => void,
  limit = LIST_PAGE_SIZE,
): Promise<k8s.KubernetesListObject<T>> {
  const items: T[] = [];
  let first: k8s.KubernetesListObject<T> | undefined;
  let token: string | undefined;
  do {
    const page = await list(token === undefined ? { limit } : { limit, continue: token });
    for (const obj of page.items) {
      trim(obj);
      items.push(obj);
    }
    first ??= page;
    token = continueOf(page);
  } while (token !== undefined);
  const { _continue: _a, continue: _b, ...metadata } = (first.metadata ?? {}) as k8s.V1ListMeta & { continue?: string };
  return { ...first, metadata, items };
}

export interface RestartingInformerOptions<T extends k8s.KubernetesObject> {
  readonly kubeConfig: k8s.KubeConfig;
  readonly path: string;
  /** One page of the list (a function that ignores `page` answers everything at once). */
  readonly list: (page: ListPage) => Promise<k8s.KubernetesListObject<T>>;
  readonly labelSelector?: string;
  readonly onEvent: (event: InformerEvent, obj: T) => void;
  readonly log: Logger;
  /** Drops fields nobody reads from each object before it is cached (mutates it). */
  readonly trim?: (obj: T) => void;
  /**
   * Called each time a start (the first, or one after an error) has listed and filled the cache:
   * what is kept from the events may be rebuilt from list() then. (A relist client-node does by
   * itself, after 410 Gone, replays each object as an add, update or delete event instead.)
   */
  readonly onListed?: () => void;
  /** Called each time the informer is restarted after an error (for a metric). */
  readonly onRestart?: () => void;
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
}

export class RestartingInformer<T extends k8s.KubernetesObject> {
  private readonly informer: k8s.Informer<T> & k8s.ObjectCache<T>;
  private backoffMs: number;
  private restartTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private synced = false;
  /** How many times the informer has been restarted after an error. */
  restarts = 0;

  constructor(private readonly opts: RestartingInformerOptions<T>) {
    this.backoffMs = opts.minBackoffMs ?? 500;
    const trim = (obj: T): void => {
      if (obj.metadata) delete obj.metadata.managedFields;
      opts.trim?.(obj);
    };
    const list = (): Promise<k8s.KubernetesListObject<T>> => listAllPages(opts.list, trim);
    this.informer = k8s.makeInformer(opts.kubeConfig, opts.path, list, opts.labelSelector);
    // First, so the object is trimmed before any other handler or the cache keeps it.
    this.informer.on('add', trim);
    this.informer.on('update', trim);
    this.informer.on('add', (o) => opts.onEvent('add', o));
    this.informer.on('update', (o) => opts.onEvent('update', o));
    this.informer.on('delete', (o) => opts.onEvent('delete', o));
    this.informer.on('connect', () => {
      this.backoffMs = opts.minBackoffMs ?? 500;
    });
    this.informer.on('error', (err) => this.restartLater(err));
  }

  async start(): Promise<void> {
    try {
      await this.informer.start();
      this.synced = true;
      this.opts.onListed?.();
    } catch (err) {
      this.restartLater(err);
    }
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  get(name: string, namespace?: string): T | undefined {
    return this.informer.get(name, namespace);
  }

  list(namespace?: string): readonly T[] {
    return this.informer.list(namespace);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    await this.informer.stop();
  }

  private restartLater(err: unknown): void {
    if (this.stopped || this.restartTimer) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.opts.maxBackoffMs ?? 30_000);
    this.restarts++;
    this.opts.onRestart?.();
    this.opts.log.warn({ err, path: this.opts.path, retryInMs: delay }, 'Informer stopped; restarting');
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (!this.stopped) void this.start();
    }, delay);
  }
}
