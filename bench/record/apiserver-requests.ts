// The apiserver's own account of the requests it served (its /metrics: apiserver_request_total
// and apiserver_request_duration_seconds), by verb and resource. A section snapshots it before
// and after and divides the difference by what it did (holds, launches, checks), so each row
// says what one of them cost the apiserver, whoever the client was. Parsing and diffing are
// pure; only readApiserverRequests does I/O.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One verb on one resource, as the table names it: "update heldjobs/status", "create jobs (dry run)". */
export interface RequestTally {
  readonly count: number;
  /** Answers that were not 2xx, by status code. */
  readonly failed: Readonly<Record<string, number>>;
  /** Seconds the apiserver spent on them (the duration histogram's sum); 0 for WATCH. */
  readonly seconds: number;
  /** How many of them the duration histogram counted (its _count). */
  readonly timed: number;
}

export type RequestCounts = ReadonlyMap<string, RequestTally>;

/** What the apiserver's canonical verbs are called in Kubernetes' own words (RBAC's). */
const VERBS: Readonly<Record<string, string>> = {
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  APPLY: 'apply',
  DELETE: 'delete',
  DELETECOLLECTION: 'deletecollection',
  GET: 'get',
  LIST: 'list',
  WATCH: 'watch',
  WATCHLIST: 'watch',
  CONNECT: 'connect',
};

/** Verbs that change what etcd stores. */
const WRITES: ReadonlySet<string> = new Set(['create', 'update', 'patch', 'apply', 'delete', 'deletecollection']);

function labelsOf(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const m of text.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[m[1] as string] = m[2] as string;
  return labels;
}

/** The name a series is tallied under; undefined for requests to no resource (/metrics, /healthz, discovery). */
export function requestName(labels: Readonly<Record<string, string>>): string | undefined {
  const resource = labels['resource'] ?? '';
  if (!resource) return undefined;
  const rawVerb = labels['verb'] ?? '';
  const verb = VERBS[rawVerb] ?? rawVerb.toLowerCase();
  const sub = labels['subresource'] ? `/${labels['subresource']}` : '';
  const dry = labels['dry_run'] ? ' (dry run)' : '';
  return `${verb} ${resource}${sub}${dry}`;
}

/** The verb of a tallied name ("update heldjobs/status" → "update"). */
export function verbOf(name: string): string {
  return name.slice(0, name.indexOf(' '));
}

/** A write is a verb that changes what is stored, and not a dry run (which stores nothing). */
export function isWrite(name: string): boolean {
  return WRITES.has(verbOf(name)) && !name.endsWith('(dry run)');
}

const EMPTY: RequestTally = { count: 0, failed: {}, seconds: 0, timed: 0 };

/** The request counters in a /metrics text, by verb and resource. */
export function parseApiserverRequests(metrics: string): RequestCounts {
  const tallies = new Map<string, RequestTally>();
  const add = (name: string, f: (t: RequestTally) => RequestTally) => tallies.set(name, f(tallies.get(name) ?? EMPTY));
  for (const line of metrics.split('\n')) {
    const m =
      /^(apiserver_request_total|apiserver_request_duration_seconds_sum|apiserver_request_duration_seconds_count)\{(.*)\} (\S+)$/.exec(
        line,
      );
    if (!m) continue;
    const labels = labelsOf(m[2] as string);
    const name = requestName(labels);
    if (name === undefined) continue;
    const value = Number(m[3]);
    if (!Number.isFinite(value)) continue;
    switch (m[1]) {
      case 'apiserver_request_total': {
        const code = labels['code'] ?? '';
        const ok = /^2\d\d$/.test(code);
        add(name, (t) => ({
          ...t,
          count: t.count + value,
          failed: ok ? t.failed : { ...t.failed, [code]: (t.failed[code] ?? 0) + value },
        }));
        break;
      }
      case 'apiserver_request_duration_seconds_sum':
        add(name, (t) => ({ ...t, seconds: t.seconds + value }));
        break;
      default:
        add(name, (t) => ({ ...t, timed: t.timed + value }));
    }
  }
  return tallies;
}

/**
 * What was served between two snapshots. A counter that went down means the apiserver
 * restarted in between: its value after is then all that is known.
 */
export function requestsBetween(before: RequestCounts, after: RequestCounts): RequestCounts {
  const diff = new Map<string, RequestTally>();
  for (const [name, a] of after) {
    const b = before.get(name) ?? EMPTY;
    const restarted = a.count < b.count;
    const base = restarted ? EMPTY : b;
    const failed: Record<string, number> = {};
    for (const [code, n] of Object.entries(a.failed)) {
      const d = n - (base.failed[code] ?? 0);
      if (d > 0) failed[code] = d;
    }
    const count = a.count - base.count;
    if (count <= 0) continue;
    diff.set(name, { count, failed, seconds: Math.max(0, a.seconds - base.seconds), timed: Math.max(0, a.timed - base.timed) });
  }
  return diff;
}

/** Requests of one kind per unit of work (per hold, launch, check, ...). */
export interface RequestRate {
  readonly what: string;
  readonly perUnit: number;
  /** The apiserver's mean time serving one, ms (when its histogram counted them). */
  readonly meanMs?: number;
  /** Answers that were not 2xx, per unit, by status code (only when there were some). */
  readonly failedPerUnit?: Readonly<Record<string, number>>;
}

/** Every kind of request but WATCH (counted when it starts: an informer's, not a unit's), per unit, most first. */
export function perUnit(counts: RequestCounts, units: number): RequestRate[] {
  if (units <= 0) return [];
  const rates: RequestRate[] = [];
  for (const [what, t] of counts) {
    if (verbOf(what) === 'watch') continue;
    const failed = Object.entries(t.failed);
    rates.push({
      what,
      perUnit: t.count / units,
      ...(t.timed > 0 ? { meanMs: (t.seconds / t.timed) * 1000 } : {}),
      ...(failed.length > 0 ? { failedPerUnit: Object.fromEntries(failed.map(([code, n]) => [code, n / units])) } : {}),
    });
  }
  return rates.sort((a, b) => b.perUnit - a.perUnit || a.what.localeCompare(b.what));
}

/** Requests to some resources, either every verb but WATCH or the WATCHes alone. */
export function totalOf(counts: RequestCounts, resources: readonly string[], which: 'requests' | 'watches' = 'requests'): number {
  let total = 0;
  for (const [name, t] of counts) {
    const resource = (name.split(' ')[1] ?? '').split('/')[0] ?? '';
    if (!resources.includes(resource)) continue;
    if ((verbOf(name) === 'watch') !== (which === 'watches')) continue;
    total += t.count;
  }
  return total;
}

/** The apiserver's counters now, from its own /metrics (kubectl's request for it is to no resource, so it is not counted). */
export async function readApiserverRequests(kubeconfig: string): Promise<RequestCounts> {
  const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, 'get', '--raw', '/metrics'], { maxBuffer: 256 * 2 ** 20 });
  return parseApiserverRequests(stdout);
}
