// Hostile deliveries for the receiver: a seeded generator of requests a forge would never send
// (and a few it would), a driver that sends them over raw connections, and the figures of a
// run. Used by `make fuzz` (bench/fuzz-receiver.ts) and by the short form in `make test`
// (test/e2e/receiver-fuzz.test.ts).
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { head, rawExchange, type RawAnswer, type RawRequest } from './raw-http.js';
import { seededRandom } from './common.js';

/**
 * The receiver's node options as the chart runs it (`receiver.nodeOptions`). With Node's
 * defaults V8 lets garbage pile up between collections and the RSS climbs by about 1.6 KiB a
 * delivery (none of it live); small semi-spaces and a bounded old generation keep it flat.
 * 80 MiB, not 96, since #30: the receiver's code grew, and at 96 the toggles peaked at 150.3 MiB
 * (heap used 48 MiB); at 80 at 143.3 MiB, heap used at most about 50 MiB (docs/security.md#memory).
 */
export const RECEIVER_NODE_OPTIONS = '--max-semi-space-size=1 --max-old-space-size=80';

/**
 * The allocator settings the chart gives the receiver, over the image's (MALLOC_ARENA_MAX=2 for
 * every process). The receiver's work is one JavaScript thread, so one malloc arena costs it no
 * contention; and with the mmap threshold fixed at 128 KiB, glibc no longer raises it after the
 * first large body is freed, so request bodies and socket buffers over 128 KiB are mapped and
 * unmapped whole instead of fragmenting the arena. In `make fuzz` (seed 1) the receiver's peak
 * went from 156.7 MiB to 144.9 MiB; the heap and external figures were the same.
 */
export const RECEIVER_ALLOCATOR_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '1',
  MALLOC_MMAP_THRESHOLD_: '131072',
};

export interface FuzzTarget {
  /** The receiver's webhook port on 127.0.0.1. */
  readonly port: number;
  readonly githubSecret: string;
  readonly gitlabToken: string;
  /** The label a trigger of the receiver's fires on (for GitHub and GitLab). */
  readonly label: string;
}

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)] as T;
const hex = (rng: Rng, n: number) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(rng() * 16)]).join('');
const sign = (secret: string, body: Buffer) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** Every kind of delivery the run sends, with its share of the run. */
export const FUZZ_KINDS = {
  signedLabel: 6,
  signedGitlabLabel: 3,
  replayedBody: 4,
  malformedJson: 8,
  wrongTypes: 8,
  unknownEvent: 6,
  badSignature: 8,
  truncatedSignature: 6,
  junkSignature: 6,
  unsignedLabel: 8,
  badGitlabToken: 5,
  hugeHeader: 5,
  oversizedHeaders: 2,
  badDeliveryId: 4,
  declaredTooLarge: 4,
  badTarget: 4,
  truncatedBody: 4,
  garbage: 3,
  wrongRoute: 2,
  slowUnsigned: 2,
  slowShaped: 1,
} as const;
export type FuzzKind = keyof typeof FUZZ_KINDS;

/** What the run learned of one delivery. */
export interface Exchange {
  readonly kind: FuzzKind;
  readonly answer: RawAnswer;
  /** Why this answer breaks a rule, if it does. */
  readonly violation?: string;
}

interface Planned {
  readonly kind: FuzzKind;
  readonly request: RawRequest;
  /** A kind whose sender walks away: no answer is owed. */
  readonly hangsUp?: boolean;
  /** The body of a signed label delivery, kept for replays. */
  readonly signedBody?: { path: string; headers: Record<string, string>; body: Buffer };
}

function githubPayload(rng: Rng, label: string): object {
  return {
    action: 'labeled',
    label: { name: label },
    repository: { full_name: `fuzz/repo-${String(Math.floor(rng() * 50))}` },
    issue: { number: 1 + Math.floor(rng() * 100_000), title: 'fuzz', updated_at: new Date().toISOString(), node_id: randomUUID() },
  };
}

function gitlabPayload(rng: Rng, label: string): object {
  return {
    object_kind: 'merge_request',
    project: { path_with_namespace: `fuzz/group/repo-${String(Math.floor(rng() * 50))}` },
    object_attributes: { iid: 1 + Math.floor(rng() * 100_000), title: 'fuzz', updated_at: new Date().toISOString(), uuid: randomUUID() },
    changes: { labels: { previous: [], current: [{ title: label }] } },
  };
}

const GH = '/webhooks/github';
const GL = '/webhooks/gitlab';
const DEADLINE_MS = 30_000;

/** The next request of a run: its kind drawn by share, its contents by the seed. */
export function plan(rng: Rng, t: FuzzTarget, replayable: readonly Planned['signedBody'][]): Planned {
  const total = Object.values(FUZZ_KINDS).reduce((a, b) => a + b, 0);
  let r = rng() * total;
  let kind: FuzzKind = 'garbage';
  for (const [k, w] of Object.entries(FUZZ_KINDS) as [FuzzKind, number][]) {
    if ((r -= w) < 0) {
      kind = k;
      break;
    }
  }
  const gh = (body: Buffer, headers: Record<string, string | string[]>, over: Partial<RawRequest> = {}): RawRequest => ({
    head: head(GH, { 'x-github-event': 'issues', 'x-github-delivery': randomUUID(), 'content-length': String(body.length), ...headers }),
    body,
    deadlineMs: DEADLINE_MS,
    ...over,
  });
  const signed = (body: Buffer, extra: Record<string, string | string[]> = {}) =>
    gh(body, { 'x-hub-signature-256': sign(t.githubSecret, body), ...extra });
  const label = Buffer.from(JSON.stringify(githubPayload(rng, t.label)));
  switch (kind) {
    case 'signedLabel': {
      const headers = { 'x-github-event': 'issues', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': sign(t.githubSecret, label) };
      return { kind, request: gh(label, headers), signedBody: { path: GH, headers, body: label } };
    }
    case 'signedGitlabLabel': {
      const body = Buffer.from(JSON.stringify(gitlabPayload(rng, t.label)));
      const headers = { 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-event-uuid': randomUUID(), 'x-gitlab-token': t.gitlabToken };
      const request = { head: head(GL, { ...headers, 'content-length': String(body.length) }), body, deadlineMs: DEADLINE_MS };
      return { kind, request, signedBody: { path: GL, headers, body } };
    }
    case 'replayedBody': {
      const earlier = replayable.length > 0 ? pick(rng, replayable) : undefined;
      if (!earlier) return { kind, request: signed(Buffer.from('{}')) };
      // The same signed bytes under a fresh delivery id.
      const headers = { ...earlier.headers };
      if (headers['x-github-delivery']) headers['x-github-delivery'] = randomUUID();
      if (headers['x-gitlab-event-uuid']) headers['x-gitlab-event-uuid'] = randomUUID();
      return {
        kind,
        request: {
          head: head(earlier.path, { ...headers, 'content-length': String(earlier.body.length) }),
          body: earlier.body,
          deadlineMs: DEADLINE_MS,
        },
      };
    }
    case 'malformedJson':
      return { kind, request: signed(label.subarray(0, Math.floor(rng() * label.length))) };
    case 'wrongTypes': {
      const p = githubPayload(rng, t.label) as Record<string, unknown>;
      const field = pick(rng, ['action', 'label', 'repository', 'issue']);
      p[field] = pick(rng, [null, 7, 'x', [], [1, 2], { number: '7' }, true, 'a'.repeat(5000)]);
      return { kind, request: signed(Buffer.from(JSON.stringify(pick(rng, [p, [p], 'str', 42, null])))) };
    }
    case 'unknownEvent':
      return { kind, request: signed(label, { 'x-github-event': pick(rng, ['push', 'ping', 'star', hex(rng, 12), '']) }) };
    case 'badSignature':
      return { kind, request: gh(label, { 'x-hub-signature-256': `sha256=${hex(rng, 64)}` }) };
    case 'truncatedSignature':
      return { kind, request: gh(label, { 'x-hub-signature-256': sign(t.githubSecret, label).slice(0, 7 + Math.floor(rng() * 64)) }) };
    case 'junkSignature': {
      const s = sign(t.githubSecret, label);
      const value = pick<string | string[]>(rng, [
        `${s}x`,
        // (Not a trailing space: HTTP drops whitespace around a header value before anyone sees it.)
        `${s}0`,
        `${s}\tjunk`,
        `sha256=${s.slice(7).toUpperCase()}`,
        [s, s],
        `${s},${s}`,
        `SHA256=${s.slice(7)}`,
      ]);
      return { kind, request: gh(label, { 'x-hub-signature-256': value }) };
    }
    case 'unsignedLabel':
      return { kind, request: gh(label, {}) };
    case 'badGitlabToken': {
      const body = Buffer.from(JSON.stringify(gitlabPayload(rng, t.label)));
      const token = pick(rng, ['', `${t.gitlabToken}x`, t.gitlabToken.toUpperCase(), hex(rng, 40)]);
      return {
        kind,
        request: {
          head: head(GL, { 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-token': token, 'content-length': String(body.length) }),
          body,
          deadlineMs: DEADLINE_MS,
        },
      };
    }
    case 'hugeHeader':
      return {
        kind,
        request: signed(
          label,
          pick<Record<string, string>>(rng, [
            { 'x-github-delivery': 'd'.repeat(8000) },
            { 'x-github-event': 'e'.repeat(8000) },
            { 'x-github-event': 'ping', 'x-extra': 'x'.repeat(12_000) },
          ]),
        ),
      };
    case 'oversizedHeaders':
      // Past Node's 16 KiB for the whole head: 431 before anything of the receiver's runs.
      return { kind, request: signed(label, { 'x-extra': 'x'.repeat(20_000) }) };
    case 'badDeliveryId':
      return {
        kind,
        request: signed(label, { 'x-github-delivery': pick(rng, ['delivery-1', '', `${randomUUID()}x`, '../../etc/passwd', '<script>']) }),
      };
    case 'declaredTooLarge':
      return {
        kind,
        request: {
          head: head(GH, {
            'x-github-event': 'issues',
            'content-length': String(1024 * 1024 + 1 + Math.floor(rng() * 50_000_000)),
            ...(rng() < 0.5 ? { 'x-hub-signature-256': `sha256=${hex(rng, 64)}` } : {}),
          }),
          deadlineMs: DEADLINE_MS,
        },
      };
    case 'badTarget': {
      const p = githubPayload(rng, t.label) as { repository: { full_name: string }; issue: { number: number } };
      if (rng() < 0.5) p.repository.full_name = `fuzz/${'r'.repeat(251 + Math.floor(rng() * 200))}`;
      else p.issue.number = 10_000_000_000 + Math.floor(rng() * 1e12);
      return { kind, request: signed(Buffer.from(JSON.stringify(p))) };
    }
    case 'truncatedBody':
      // Says more than it sends, then walks away.
      return {
        kind,
        hangsUp: true,
        request: {
          ...signed(label),
          head: head(GH, { 'x-hub-signature-256': sign(t.githubSecret, label), 'content-length': String(label.length * 2) }),
          deadlineMs: 200,
        },
      };
    case 'garbage':
      return {
        kind,
        request: {
          head: pick(rng, [
            Buffer.from(hex(rng, 64), 'hex').toString('latin1'),
            'GET / HTTP/9.9',
            'POST /webhooks/github HTTP/1.1\r\ncontent-length: -1',
            'POST /webhooks/github HTTP/1.1\r\ncontent-length: 5\r\ncontent-length: 6',
          ]),
          deadlineMs: 5000,
        },
      };
    case 'wrongRoute':
      return {
        kind,
        request: {
          ...signed(label),
          head: head(pick(rng, ['/metrics', '/readyz', '/webhooks/bitbucket', '/']), { 'content-length': String(label.length) }),
        },
      };
    case 'slowUnsigned':
      return {
        kind,
        request: {
          head: head(GH, { 'x-github-event': 'issues', 'content-length': String(1024 * 1024) }),
          trickle: { total: 1024 * 1024, chunk: 8192, everyMs: 100 },
          deadlineMs: DEADLINE_MS,
        },
      };
    case 'slowShaped':
      // Signed in shape, never in fact: read (slowly) until the request timeout.
      return {
        kind,
        request: {
          head: head(GH, {
            'x-github-event': 'issues',
            'x-hub-signature-256': `sha256=${hex(rng, 64)}`,
            'content-length': String(1024 * 1024),
          }),
          trickle: { total: 1024 * 1024, chunk: 4096, everyMs: 200 },
          deadlineMs: DEADLINE_MS,
        },
      };
  }
}

/** The rule every answer keeps: 2xx or 4xx; 503 only from the caps; no answer only to a sender that left. */
export function violationOf(p: Planned, a: RawAnswer): string | undefined {
  if (a.status === undefined) return p.hangsUp ? undefined : 'no answer';
  if (a.status >= 200 && a.status < 300) {
    if (!['signedLabel', 'signedGitlabLabel', 'replayedBody', 'unknownEvent', 'wrongTypes', 'hugeHeader'].includes(p.kind)) {
      return `${String(a.status)} for ${p.kind}`;
    }
    // Only a signed label delivery, seen for the first time, is handled.
    if (!p.signedBody && a.body.includes('"handled"')) return `${p.kind} handled`;
    return undefined;
  }
  if (a.status >= 400 && a.status < 500) return undefined;
  if (a.status === 503 && /too many (connections|bodies in flight)/.test(a.body)) return undefined;
  return `status ${String(a.status)}: ${a.body.slice(0, 200)}`;
}

/** Resident memory of a process, in MiB (Linux). */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

export interface RssFigures {
  readonly startMiB: number;
  readonly peakMiB: number;
  readonly endMiB: number;
}

/** Samples a process's RSS every 100 ms until stopped. */
export function watchRss(pid: number): { stop(): RssFigures } {
  const startMiB = rssMiB(pid);
  let peakMiB = startMiB;
  const timer = setInterval(() => {
    try {
      peakMiB = Math.max(peakMiB, rssMiB(pid));
    } catch {
      // The process is gone; the caller finds out.
    }
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      const endMiB = rssMiB(pid);
      return { startMiB, peakMiB: Math.max(peakMiB, endMiB), endMiB };
    },
  };
}

export interface FuzzFigures {
  readonly deliveries: number;
  readonly durationMs: number;
  /** Answers by status ('none': no answer). */
  readonly byStatus: Record<string, number>;
  readonly byKind: Record<string, Record<string, number>>;
  /** Signed label deliveries the receiver handled (each makes exactly one HeldJob). */
  readonly handled: number;
  readonly violations: readonly string[];
  readonly rss: RssFigures;
}

/** Sends `deliveries` generated requests, `concurrency` at a time, and says what came back. */
export async function runFuzz(
  t: FuzzTarget,
  opts: { deliveries: number; concurrency: number; seed: number; pid: number },
): Promise<FuzzFigures> {
  const rng = seededRandom(opts.seed);
  const replayable: Planned['signedBody'][] = [];
  const exchanges: Exchange[] = [];
  let handled = 0;
  const rss = watchRss(opts.pid);
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (next < opts.deliveries) {
        next++;
        const p = plan(rng, t, replayable);
        const answer = await rawExchange(t.port, p.request);
        const violation = violationOf(p, answer);
        exchanges.push({ kind: p.kind, answer, ...(violation ? { violation } : {}) });
        if (p.signedBody && answer.status === 202 && answer.body.includes('"handled"')) {
          handled++;
          replayable.push(p.signedBody);
        }
      }
    }),
  );
  const byStatus: Record<string, number> = {};
  const byKind: Record<string, Record<string, number>> = {};
  for (const e of exchanges) {
    const s = e.answer.status === undefined ? 'none' : String(e.answer.status);
    byStatus[s] = (byStatus[s] ?? 0) + 1;
    const k = (byKind[e.kind] ??= {});
    k[s] = (k[s] ?? 0) + 1;
  }
  return {
    deliveries: exchanges.length,
    durationMs: Date.now() - started,
    byStatus,
    byKind,
    handled,
    violations: exchanges.filter((e) => e.violation).map((e) => `${e.kind}: ${e.violation ?? ''}`),
    rss: rss.stop(),
  };
}

export interface SlowSenderFigures {
  readonly slow: number;
  readonly slowByStatus: Record<string, number>;
  readonly signed: number;
  /** Signed deliveries answered 2xx. */
  readonly signedAnswered: number;
  readonly signedByStatus: Record<string, number>;
  readonly durationMs: number;
  readonly rss: RssFigures;
}

/**
 * `slow` unsigned 1 MiB uploads that trickle, all at once, and `signed` real deliveries sent
 * among them: the uploads must cost no memory, and every real delivery must be answered.
 */
export async function runSlowSenders(
  t: FuzzTarget,
  opts: { slow: number; signed: number; seed: number; pid: number },
): Promise<SlowSenderFigures> {
  const rng = seededRandom(opts.seed);
  const rss = watchRss(opts.pid);
  const started = Date.now();
  const slow = Promise.all(
    Array.from({ length: opts.slow }, () =>
      rawExchange(t.port, {
        head: head(GH, { 'x-github-event': 'issues', 'x-github-delivery': randomUUID(), 'content-length': String(1024 * 1024) }),
        trickle: { total: 1024 * 1024, chunk: 16 * 1024, everyMs: 100 },
        deadlineMs: DEADLINE_MS,
      }),
    ),
  );
  const [slowAnswers, signedAnswers] = await Promise.all([slow, sendSigned(t, rng, opts.signed)]);
  return {
    slow: opts.slow,
    slowByStatus: countByStatus(slowAnswers),
    signed: opts.signed,
    signedAnswered: answered2xx(signedAnswers),
    signedByStatus: countByStatus(signedAnswers),
    durationMs: Date.now() - started,
    rss: rss.stop(),
  };
}

const countByStatus = (answers: readonly RawAnswer[]): Record<string, number> => {
  const by: Record<string, number> = {};
  for (const a of answers) {
    const s = a.status === undefined ? 'none' : String(a.status);
    by[s] = (by[s] ?? 0) + 1;
  }
  return by;
};

const answered2xx = (answers: readonly RawAnswer[]) =>
  answers.filter((a) => a.status !== undefined && a.status >= 200 && a.status < 300).length;

/** One GitHub issues delivery of this payload, signed with the target's secret, and its answer. */
function sendSignedGithub(t: FuzzTarget, payload: object): Promise<RawAnswer> {
  const body = Buffer.from(JSON.stringify(payload));
  return rawExchange(t.port, {
    head: head(GH, {
      'x-github-event': 'issues',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': sign(t.githubSecret, body),
      'content-length': String(body.length),
    }),
    body,
    deadlineMs: DEADLINE_MS,
  });
}

/** `n` signed label deliveries, one every 20 ms. */
function sendSigned(t: FuzzTarget, rng: Rng, n: number): Promise<RawAnswer[]> {
  return Promise.all(
    Array.from({ length: n }, async (_x, i) => {
      await new Promise((r) => setTimeout(r, i * 20));
      return sendSignedGithub(t, githubPayload(rng, t.label));
    }),
  );
}

export interface ToggleFigures {
  readonly toggles: number;
  /** The one target every delivery names, as the receiver writes it (`owner/repo#n`). */
  readonly target: string;
  readonly byStatus: Record<string, number>;
  /** Deliveries answered 2xx: each one, labeled or unlabeled, is owed an answer. */
  readonly answered: number;
  readonly durationMs: number;
  readonly rss: RssFigures;
}

/**
 * One label toggled on one issue `toggles` times: labeled, unlabeled, labeled..., each a signed
 * GitHub delivery of its own, `concurrency` in flight at once as a forge sends a burst. Every
 * labeled one after the first is refused (superseded or already held); what those refusals
 * cost is what the run measures.
 */
export async function runToggles(
  t: FuzzTarget,
  opts: { toggles: number; concurrency: number; pid: number; repository: string; issue: number },
): Promise<ToggleFigures> {
  const answers: RawAnswer[] = [];
  const rss = watchRss(opts.pid);
  const started = Date.now();
  const base = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (next < opts.toggles) {
        const i = next++;
        answers.push(
          await sendSignedGithub(t, {
            action: i % 2 === 0 ? 'labeled' : 'unlabeled',
            label: { name: t.label },
            repository: { full_name: opts.repository },
            issue: { number: opts.issue, title: 'toggled', updated_at: new Date(base + i * 1000).toISOString(), node_id: 'I_toggle' },
          }),
        );
      }
    }),
  );
  return {
    toggles: opts.toggles,
    target: `${opts.repository}#${String(opts.issue)}`,
    byStatus: countByStatus(answers),
    answered: answered2xx(answers),
    durationMs: Date.now() - started,
    rss: rss.stop(),
  };
}

export function describeToggles(f: ToggleFigures, heldJobs: number): string {
  return [
    `toggles: one label toggled ${String(f.toggles)} times on ${f.target} in ${(f.durationMs / 1000).toFixed(1)} s: ${String(f.answered)} answered 2xx (${JSON.stringify(f.byStatus)})`,
    `toggles: ${String(heldJobs)} HeldJobs for ${f.target} (holds and counted refusal records)`,
    `toggles: receiver RSS ${mib(f.rss.startMiB)} at the start, ${mib(f.rss.peakMiB)} at the peak, ${mib(f.rss.endMiB)} at the end`,
  ].join('\n');
}

export interface HeaderStallFigures {
  /** Connections kept stalling in their headers at once. */
  readonly stallers: number;
  /** Stalling connections opened in all (each one closed is opened again at once). */
  readonly opened: number;
  /** Closed by the receiver without an answer: made room for a newer connection. */
  readonly closedForRoom: number;
  /** Answered 408 by the header timeout. */
  readonly timedOut: number;
  readonly signed: number;
  /** Signed deliveries answered 2xx. */
  readonly signedAnswered: number;
  readonly signedByStatus: Record<string, number>;
  readonly durationMs: number;
  readonly rss: RssFigures;
}

/**
 * `stallers` connections that each send half a request head and stall (no signature needed),
 * opened again the moment the receiver closes one, held above the connection cap while
 * `signed` real deliveries are sent among them: every real delivery must still be answered.
 */
export async function runHeaderStalls(
  t: FuzzTarget,
  opts: { stallers: number; signed: number; seed: number; pid: number },
): Promise<HeaderStallFigures> {
  const rng = seededRandom(opts.seed);
  const rss = watchRss(opts.pid);
  const started = Date.now();
  let stopping = false;
  let opened = 0;
  let closedForRoom = 0;
  let timedOut = 0;
  const live = new Set<Socket>();
  const stall = (): Promise<void> =>
    new Promise((connected) => {
      opened++;
      let reached = false;
      const c = connect({ host: '127.0.0.1', port: t.port }, () => {
        reached = true;
        c.write(`POST ${GH} HTTP/1.1\r\nhost: 127.0.0.1\r\nx-github-event: issues\r\n`);
        connected();
      });
      live.add(c);
      let answer = '';
      c.on('data', (d: Buffer) => (answer += d.toString('latin1')));
      c.on('error', () => connected());
      c.on('close', () => {
        live.delete(c);
        // Not reached at all: the receiver is gone, and the signed deliveries will say so.
        if (stopping || !reached) return;
        if (/^HTTP\/1\.1 408/.test(answer)) timedOut++;
        else closedForRoom++;
        void stall();
      });
    });
  // The cap is full of stalled heads before the first real delivery is sent.
  await Promise.all(Array.from({ length: opts.stallers }, stall));
  const signedAnswers = await sendSigned(t, rng, opts.signed);
  stopping = true;
  for (const c of live) c.destroy();
  return {
    stallers: opts.stallers,
    opened,
    closedForRoom,
    timedOut,
    signed: opts.signed,
    signedAnswered: answered2xx(signedAnswers),
    signedByStatus: countByStatus(signedAnswers),
    durationMs: Date.now() - started,
    rss: rss.stop(),
  };
}

const mib = (n: number) => `${n.toFixed(1)} MiB`;

export function describeFuzz(f: FuzzFigures): string {
  const kinds = Object.entries(f.byKind)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([k, s]) =>
        `  ${k.padEnd(20)} ${Object.entries(s)
          .map(([st, n]) => `${st}×${String(n)}`)
          .join(' ')}`,
    );
  return [
    `fuzz: ${String(f.deliveries)} deliveries in ${(f.durationMs / 1000).toFixed(1)} s; answers ${JSON.stringify(f.byStatus)}`,
    `fuzz: ${String(f.handled)} signed label deliveries handled; ${String(f.violations.length)} answers broke a rule`,
    `fuzz: receiver RSS ${mib(f.rss.startMiB)} at the start, ${mib(f.rss.peakMiB)} at the peak, ${mib(f.rss.endMiB)} at the end`,
    ...kinds,
  ].join('\n');
}

export function describeSlow(f: SlowSenderFigures): string {
  return [
    `slow senders: ${String(f.slow)} unsigned 1 MiB uploads answered ${JSON.stringify(f.slowByStatus)} in ${(f.durationMs / 1000).toFixed(1)} s`,
    `slow senders: ${String(f.signedAnswered)} of ${String(f.signed)} signed deliveries answered 2xx (${JSON.stringify(f.signedByStatus)})`,
    `slow senders: receiver RSS ${mib(f.rss.startMiB)} at the start, ${mib(f.rss.peakMiB)} at the peak, ${mib(f.rss.endMiB)} at the end`,
  ].join('\n');
}

export function describeHeaderStalls(f: HeaderStallFigures): string {
  return [
    `header stalls: ${String(f.stallers)} connections kept stalling in their headers for ${(f.durationMs / 1000).toFixed(1)} s: ${String(f.opened)} opened in all, ${String(f.closedForRoom)} closed to make room, ${String(f.timedOut)} cut off by the header timeout`,
    `header stalls: ${String(f.signedAnswered)} of ${String(f.signed)} signed deliveries answered 2xx (${JSON.stringify(f.signedByStatus)})`,
    `header stalls: receiver RSS ${mib(f.rss.startMiB)} at the start, ${mib(f.rss.peakMiB)} at the peak, ${mib(f.rss.endMiB)} at the end`,
  ].join('\n');
}
