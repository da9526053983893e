import { describe, expect, jest, test } from '@jest/globals';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { Phase } from '../../api/vocabulary.js';
import { OperatorMetrics } from '../metrics.js';
import { countHeldJobs, HeldJobTally } from './held-job-gauges.js';
import type { HeldJob } from './ports.js';

const JOB = { template: { spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Never' } } };

function hj(name: string, phase: string | undefined, profiles: string[] = [], namespace = 'team-a'): HeldJob {
  return {
    metadata: { name, namespace, uid: `uid-${name}` },
    spec: { target: 'acme/web#7', trigger: 'deploy', waitFor: profiles.map((profile) => ({ profile })), job: JOB },
    ...(phase !== undefined ? { status: { phase } as HeldJobStatus } : {}),
  };
}

/** With a field the schema does not know (the CRD keeps it): the spec fails its check. */
const unreadable = (h: HeldJob): HeldJob => ({ ...h, spec: { ...(h.spec as object), note: 'x' } });

type Step = readonly ['add' | 'update' | 'delete', HeldJob] | readonly ['relist', readonly HeldJob[]];

/** The non-zero phase counts, and the profile counts. */
function shown(tally: HeldJobTally): { phases: Record<string, number>; profiles: Record<string, number> } {
  const { byPhase, heldByProfile } = tally.counts();
  return {
    phases: Object.fromEntries([...byPhase].filter(([, n]) => n !== 0)),
    profiles: Object.fromEntries(heldByProfile),
  };
}

describe('HeldJobTally: counts kept from the informer events', () => {
  test.each<[string, readonly Step[], Record<string, number>, Record<string, number>]>([
    ['nothing yet', [], {}, {}],
    [
      'adds count by phase, held ones by profile',
      [
        ['add', hj('a', Phase.Held, ['jira'])],
        ['add', hj('b', Phase.Held, ['jira', 'ci'])],
        ['add', hj('c', Phase.Running)],
      ],
      { Held: 2, Running: 1 },
      { jira: 2, ci: 1 },
    ],
    ['no phase yet is Pending', [['add', hj('a', undefined, ['jira'])]], { Pending: 1 }, {}],
    [
      'a phase outside the vocabulary is Pending: no label of its own',
      [
        ['add', hj('a', 'Paused')],
        ['add', hj('b', Phase.Held)],
      ],
      { Pending: 1, Held: 1 },
      {},
    ],
    [
      'an update between phases moves one count, and its profiles with it',
      [
        ['add', hj('a', Phase.Held, ['jira'])],
        ['add', hj('b', Phase.Held, ['jira'])],
        ['update', hj('a', Phase.Running, ['jira'])],
      ],
      { Held: 1, Running: 1 },
      { jira: 1 },
    ],
    [
      'an update within a phase, seen twice: counted once',
      [
        ['add', hj('a', Phase.Held, ['jira'])],
        ['update', hj('a', Phase.Held, ['jira'])],
        ['update', hj('a', Phase.Held, ['jira'])],
      ],
      { Held: 1 },
      { jira: 1 },
    ],
    [
      'a delete uncounts it; a profile no hold waits on any more goes',
      [
        ['add', hj('a', Phase.Held, ['jira'])],
        ['add', hj('b', Phase.Succeeded)],
        ['delete', hj('a', Phase.Held, ['jira'])],
      ],
      { Succeeded: 1 },
      {},
    ],
    [
      'a delete of something never seen changes nothing',
      [
        ['add', hj('a', Phase.Held)],
        ['delete', hj('zz', Phase.Held)],
      ],
      { Held: 1 },
      {},
    ],
    [
      'the same name in two namespaces is two HeldJobs',
      [
        ['add', hj('a', Phase.Held, [], 'team-a')],
        ['add', hj('a', Phase.Held, [], 'team-b')],
      ],
      { Held: 2 },
      {},
    ],
    [
      'a relist replaying adds for what was counted does not count it twice',
      [
        ['add', hj('a', Phase.Held, ['jira'])],
        ['add', hj('b', Phase.Running)],
        ['add', hj('a', Phase.Held, ['jira'])],
        ['add', hj('b', Phase.Running)],
        ['relist', [hj('a', Phase.Held, ['jira']), hj('b', Phase.Running)]],
      ],
      { Held: 1, Running: 1 },
      { jira: 1 },
    ],
    [
      'a relist rebuilds from the store: what went while unwatched goes, what changed moves',
      [
        ['add', hj('a', Phase.Held, ['jira'])],
        ['add', hj('b', Phase.Running)],
        ['relist', [hj('a', Phase.Succeeded), hj('c', Phase.Held, ['ci'])]],
        ['update', hj('c', Phase.Running)],
      ],
      { Succeeded: 1, Running: 1 },
      {},
    ],
    [
      'a held hold whose spec no longer reads counts by phase, and by no profile',
      [['add', unreadable(hj('a', Phase.Held, ['jira']))]],
      { Held: 1 },
      {},
    ],
  ])('%s', (_name, steps, phases, profiles) => {
    let store: readonly HeldJob[] = [];
    const tally = new HeldJobTally({ list: () => store });
    for (const step of steps) {
      if (step[0] === 'relist') {
        store = step[1];
        tally.relisted();
      } else tally.observe(step[0], step[1]);
    }
    expect(shown(tally)).toEqual({ phases, profiles });
  });

  test('the counts kept agree with a walk of the same HeldJobs', () => {
    const all = [hj('a', Phase.Held, ['jira']), hj('b', Phase.Held, ['jira', 'ci']), hj('c', Phase.Failed), hj('d', undefined)];
    const tally = new HeldJobTally({ list: () => all });
    for (const h of all) tally.observe('add', h);
    expect(tally.counts()).toEqual(countHeldJobs(all));
  });
});

describe('a /metrics scrape', () => {
  test('reads the counts kept, and never walks the informer store', async () => {
    const all = [hj('a', Phase.Held, ['jira']), hj('b', Phase.Running)];
    const list = jest.fn(() => all);
    const tally = new HeldJobTally({ list });
    for (const h of all) tally.observe('add', h);
    const m = new OperatorMetrics();
    m.countHeldJobsFrom(tally);

    const first = await m.registry.metrics();
    tally.observe('update', hj('a', Phase.Running, ['jira']));
    const second = await m.registry.metrics();

    expect(list).not.toHaveBeenCalled();
    expect(first).toContain('waitgate_heldjobs{phase="Held"} 1');
    expect(first).toContain('waitgate_held_by_profile{profile="jira"} 1');
    expect(second).toContain('waitgate_heldjobs{phase="Running"} 2');
    expect(second).toContain('waitgate_heldjobs{phase="Held"} 0');
    expect(second).not.toContain('waitgate_held_by_profile{');
  });

  test('on a follower: no held-job gauges, and no walk either', async () => {
    const list = jest.fn((): readonly HeldJob[] => []);
    const m = new OperatorMetrics();
    m.isLeader = () => false;
    m.countHeldJobsFrom(new HeldJobTally({ list }));
    expect(await m.registry.metrics()).not.toMatch(/^waitgate_heldjobs\{/m);
    expect(list).not.toHaveBeenCalled();
  });
});
