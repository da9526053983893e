import { describe, expect, test } from '@jest/globals';
import { captureLog } from '../../test/support/fakes.js';
import { Phase } from '../../api/vocabulary.js';
import { heldJob } from '../../test/support/builders.js';
import type { HeldJob } from './ports.js';
import { endedHolders, runningHolders, ScopeRenewal, scopeRenewEveryMs, type RenewableScopeSlots } from './scope-renewal.js';

const held = (name: string, target: string, phase: Phase | undefined, finishedAt?: string): HeldJob => {
  const base = heldJob({ name, target }) as unknown as HeldJob;
  return {
    ...base,
    metadata: { ...base.metadata, namespace: 'team-a', uid: `uid-${name}` },
    ...(phase ? { status: { phase, ...(finishedAt ? { finishedAt } : {}) } } : {}),
  };
};

test('runningHolders: one place per running HeldJob, its uid the holder, its repository the scope', () => {
  expect(
    runningHolders([
      held('web-1', 'acme/web#1', Phase.Running),
      held('web-2', 'acme/web#2', Phase.Pending),
      held('api-3', 'acme/api#3', Phase.Running),
      held('new-4', 'acme/web#4', undefined),
    ]),
  ).toEqual([
    { scopeKey: 'ns/team-a:acme/web', holder: 'uid-web-1' },
    { scopeKey: 'ns/team-a:acme/api', holder: 'uid-api-3' },
  ]);
});

test("runningHolders: a launch recorded and not confirmed (Launched Unknown) is the launch path's, not the sweep's", () => {
  const withLaunched = (name: string, status: 'True' | 'Unknown'): HeldJob => {
    const h = held(name, `acme/web#${name}`, Phase.Running);
    return {
      ...h,
      status: {
        phase: Phase.Running,
        conditions: [{ type: 'Launched', status, reason: 'r', message: 'm', lastTransitionTime: '2026-12-04T00:00:00Z' }],
      },
    };
  };
  expect(runningHolders([withLaunched('1', 'True'), withLaunched('2', 'Unknown')])).toEqual([
    { scopeKey: 'ns/team-a:acme/web', holder: 'uid-1' },
  ]);
});

test('endedHolders: holds that ended within the window give their places back again; older, running or unended ones do not', () => {
  const now = Date.parse('2026-12-03T10:00:00Z');
  expect(
    endedHolders(
      [
        held('done-1', 'acme/web#1', Phase.Succeeded, '2026-12-03T09:59:00Z'),
        held('old-2', 'acme/web#2', Phase.Succeeded, '2026-12-03T09:50:00Z'),
        held('run-3', 'acme/web#3', Phase.Running),
        held('fail-4', 'acme/api#4', Phase.Failed, '2026-12-03T09:58:30Z'),
        held('nofin-5', 'acme/api#5', Phase.Refused),
      ],
      now,
      120_000,
    ),
  ).toEqual([
    { scopeKey: 'ns/team-a:acme/web', holder: 'uid-done-1' },
    { scopeKey: 'ns/team-a:acme/api', holder: 'uid-fail-4' },
  ]);
});

test('a running hold keeps its place whatever its spec says now: the scope recorded at its launch, or the target as far as it reads', () => {
  const edited = (name: string, spec: Record<string, unknown>, scope?: string): HeldJob => ({
    ...held(name, 'acme/web#1', Phase.Running),
    spec,
    status: { phase: Phase.Running, ...(scope ? { scope } : {}) },
  });
  const job = { template: {} };
  expect(
    runningHolders([
      edited('note-1', { target: 'acme/web#1', trigger: 'd', job, note: 'x' }, 'acme/web'),
      edited('moved-2', { target: 'acme/api#2', trigger: 'd', job }, 'acme/web'),
      edited('legacy-3', { target: 'acme/ops#3', trigger: 'd', job, note: 'x' }),
      edited('unknowable-4', { trigger: 'd', job, note: 'x' }),
    ]),
  ).toEqual([
    { scopeKey: 'acme/web', holder: 'uid-note-1' },
    { scopeKey: 'acme/web', holder: 'uid-moved-2' },
    { scopeKey: 'ns/team-a:acme/ops', holder: 'uid-legacy-3' },
  ]);
});

describe('ScopeRenewal.renewOnce', () => {
  const NOW = Date.parse('2026-12-03T10:00:00Z');
  const all = [held('run-1', 'acme/web#1', Phase.Running), held('done-2', 'acme/web#2', Phase.Succeeded, '2026-12-03T09:59:30Z')];

  function sweep(mayReclaim: boolean, failing?: Error) {
    const calls: string[] = [];
    const scope: RenewableScopeSlots = {
      keep: async (running) => {
        calls.push(`keep ${running.map((r) => r.holder).join(',')}`);
        if (failing) throw failing;
      },
      release: async (_scopeKey, holder, ended) => {
        calls.push(`release ${holder}${ended ? ' for good' : ''}`);
      },
      reclaim: async (cached) => {
        calls.push(`reclaim ${['uid-run-1', 'uid-done-2', 'uid-gone'].map((h) => `${h}:${JSON.stringify(cached(h))}`).join(' ')}`);
        return { released: [], sole: true };
      },
    };
    const renewal = new ScopeRenewal(
      () => all,
      scope,
      captureLog().log,
      () => NOW,
      1000,
      () => mayReclaim,
    );
    return { renewal, calls };
  }

  test.each<[string, boolean, Error | undefined, string[]]>([
    [
      'leading with a synced cache: keeps the running places, releases the ended ones again, reclaims by the cache',
      true,
      undefined,
      [
        'keep uid-run-1',
        'release uid-done-2 for good',
        'reclaim uid-run-1:{"found":true,"phase":"Running"} uid-done-2:{"found":true,"phase":"Succeeded"} uid-gone:{"found":false}',
      ],
    ],
    // A follower's keep could bring back a place the leader has just given back at a hold's end.
    ['not leading, or the cache not synced: nothing is kept, released or reclaimed', false, undefined, []],
    [
      'Valkey away for the keep: the rest is still tried',
      true,
      new Error('ECONNREFUSED'),
      ['keep uid-run-1', 'release uid-done-2 for good', expect.stringMatching(/^reclaim /) as unknown as string],
    ],
  ])('%s', async (_name, mayReclaim, failing, expected) => {
    const { renewal, calls } = sweep(mayReclaim, failing);
    await renewal.renewOnce();
    expect(calls).toEqual(expected);
  });
});

test('a sweep that outlasts its period is not joined by the next one', async () => {
  let answer: (() => void) | undefined;
  let keeps = 0;
  const scope: RenewableScopeSlots = {
    keep: () => {
      keeps++;
      return new Promise<void>((resolve) => (answer = resolve));
    },
    release: async () => undefined,
    reclaim: async () => ({ released: [], sole: true }),
  };
  const renewal = new ScopeRenewal(
    () => [],
    scope,
    captureLog().log,
    () => 0,
    1000,
    () => true,
  );
  const first = renewal.renewOnce();
  await renewal.renewOnce();
  expect(keeps).toBe(1);
  answer?.();
  await first;
  const third = renewal.renewOnce();
  answer?.();
  await third;
  expect(keeps).toBe(2);
});

test('an index shared with another deployment is said once it outlasts the lease of a predecessor, and again only after it was sole', async () => {
  const { log, lines } = captureLog();
  let now = 0;
  let sole = false;
  const scope: RenewableScopeSlots = {
    keep: async () => undefined,
    release: async () => undefined,
    reclaim: async () => ({ released: [], sole }),
  };
  const renewal = new ScopeRenewal(
    () => [],
    scope,
    log,
    () => now,
    1000,
    () => true,
  );
  const said = () => lines.filter((l) => l.msg.startsWith('Found the index of running scope places in use')).length;

  const steps: [number, boolean, number][] = [
    [0, false, 0], // a new leader: its predecessor's lease may still be live
    [7_000, false, 0],
    [8_000, false, 1], // eight sweeps on: another deployment
    [9_000, false, 1], // said once
    [10_000, true, 1],
    [11_000, false, 1],
    [19_000, false, 2],
  ];
  for (const [at, isSole, expected] of steps) {
    now = at;
    sole = isSole;
    await renewal.renewOnce();
    expect(said()).toBe(expected);
  }
});

test('scopeRenewEveryMs: every 30 s, or a quarter of a shorter lease', () => {
  expect([120_000, 60_000, 3_000, 1_000].map(scopeRenewEveryMs)).toEqual([30_000, 15_000, 750, 250]);
});
