import { afterEach, describe, expect, test } from '@jest/globals';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordingLog, labelTrigger } from '../../test/support/fakes-receiver.js';
import { eventually } from '../../test/support/wait.js';
import { FileTriggerView, readFolder } from './config-files.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

function folders(): { triggersDir: string; profilesDir: string } {
  const root = mkdtempSync(join(tmpdir(), 'waitgate-config-files-'));
  made.push(root);
  const f = { triggersDir: join(root, 'triggers'), profilesDir: join(root, 'profiles') };
  mkdirSync(f.triggersDir);
  mkdirSync(f.profilesDir);
  return f;
}

let versions = 0;
/**
 * Writes a ConfigMap's data as the kubelet does: a new timestamped folder, `..data` swapped to
 * it in one rename, each key a link through `..data`; keys no longer there go. undefined: empty.
 */
function kubeletWrite(dir: string, data: Record<string, string> | undefined): void {
  const version = `..2026_09_01_08_00_00.${++versions}`;
  mkdirSync(join(dir, version));
  for (const [k, v] of Object.entries(data ?? {})) writeFileSync(join(dir, version, k), v);
  symlinkSync(version, join(dir, '..data_tmp'));
  renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
  for (const name of readdirSync(dir)) {
    if (name.startsWith('..')) continue;
    if (!(name in (data ?? {}))) unlinkSync(join(dir, name));
  }
  for (const k of Object.keys(data ?? {})) {
    try {
      symlinkSync(join('..data', k), join(dir, k));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** Plain files, as a host process or a test may hand them. */
function plainWrite(dir: string, data: Record<string, string> | undefined): void {
  for (const name of readdirSync(dir)) unlinkSync(join(dir, name));
  for (const [k, v] of Object.entries(data ?? {})) writeFileSync(join(dir, k), v);
}

const trig = (name: string) => labelTrigger({ name });
const triggersData = (...names: string[]) => ({
  'triggers.json': JSON.stringify(names.map(trig).map((t) => ({ name: t.name, on: t.on, run: t.run }))),
});
const profilesData = { 'profiles.json': JSON.stringify({ ci: { mode: 'exec', script: 'ci.sh' } }), 'ci.sh': 'exit 0' };

type Step = { triggers?: Record<string, string> | null; profiles?: Record<string, string> | null };
type Seen = { triggers: string[] | undefined; profiles: object; refused: number[]; logged: string[] };

describe.each([
  ['the kubelet layout (..data swapped)', kubeletWrite],
  ['plain files', plainWrite],
])('FileTriggerView, %s', (_layout, write) => {
  test.each<[string, Step[], Seen]>([
    [
      'empty folders (no ConfigMap): no triggers, profiles that cannot be read',
      [{}],
      {
        triggers: undefined,
        profiles: { state: 'unreadable' },
        refused: [],
        logged: ['Found no profiles ConfigMap; no delivery is refused for its profiles until one is created'],
      },
    ],
    [
      'both there: loaded',
      [{ triggers: triggersData('deploy'), profiles: profilesData }],
      {
        triggers: ['deploy'],
        profiles: { state: 'ok', names: new Set(['ci']) },
        refused: [],
        logged: ['Loaded profiles', 'Loaded triggers'],
      },
    ],
    [
      'unchanged at the next look: nothing applied again',
      [{ triggers: triggersData('deploy'), profiles: profilesData }, {}],
      {
        triggers: ['deploy'],
        profiles: { state: 'ok', names: new Set(['ci']) },
        refused: [],
        logged: ['Loaded profiles', 'Loaded triggers'],
      },
    ],
    [
      'an edit: the new triggers',
      [{ triggers: triggersData('deploy'), profiles: profilesData }, { triggers: triggersData('deploy', 'ship') }],
      {
        triggers: ['deploy', 'ship'],
        profiles: { state: 'ok', names: new Set(['ci']) },
        refused: [],
        logged: ['Loaded profiles', 'Loaded triggers', 'Loaded triggers'],
      },
    ],
    [
      'a refused triggers file keeps the last good one',
      [{ triggers: triggersData('deploy'), profiles: profilesData }, { triggers: { 'triggers.json': '[{"name": 1}]' } }],
      {
        triggers: ['deploy'],
        profiles: { state: 'ok', names: new Set(['ci']) },
        refused: [expect.any(Number) as unknown as number],
        logged: ['Loaded profiles', 'Loaded triggers', 'Refused triggers file'],
      },
    ],
    [
      'a triggers ConfigMap without triggers.json is refused, like an empty file',
      [{ triggers: { other: 'x' }, profiles: profilesData }],
      {
        triggers: undefined,
        profiles: { state: 'ok', names: new Set(['ci']) },
        refused: [expect.any(Number) as unknown as number],
        logged: ['Loaded profiles', 'Refused triggers file'],
      },
    ],
    [
      'both deleted: refusing deliveries, profiles that cannot be read',
      [
        { triggers: triggersData('deploy'), profiles: profilesData },
        { triggers: null, profiles: null },
      ],
      {
        triggers: undefined,
        profiles: { state: 'unreadable' },
        refused: [],
        logged: [
          'Loaded profiles',
          'Loaded triggers',
          'Profiles ConfigMap deleted; no delivery is refused for its profiles until it returns',
          'Triggers ConfigMap deleted; refusing deliveries until it returns',
        ],
      },
    ],
    [
      'profiles that do not load: cannot be read',
      [{ triggers: triggersData('deploy'), profiles: { 'profiles.json': '{' } }],
      {
        triggers: ['deploy'],
        profiles: { state: 'unreadable' },
        refused: [],
        logged: ['Profiles ConfigMap does not load; no delivery is refused for its profiles until it does', 'Loaded triggers'],
      },
    ],
  ])('%s', async (_name, steps, seen) => {
    const f = folders();
    const { log, lines } = recordingLog();
    const view = new FileTriggerView(f, log, 60_000);
    const refused: number[] = [];
    view.onRefusedFile = (n) => refused.push(n);
    for (const [i, step] of steps.entries()) {
      if (step.triggers !== undefined) write(f.triggersDir, step.triggers ?? undefined);
      if (step.profiles !== undefined) write(f.profilesDir, step.profiles ?? undefined);
      if (i === 0) await view.start();
      else await view.look();
    }
    await view.stop();
    expect({ triggers: view.triggers()?.map((t) => t.name), profiles: view.profiles(), refused, logged: lines.map((l) => l.msg) }).toEqual(
      seen,
    );
  });
});

describe('FileTriggerView, started', () => {
  test('notices an edit by itself, at its next look', async () => {
    const f = folders();
    kubeletWrite(f.triggersDir, triggersData('deploy'));
    const view = new FileTriggerView(f, recordingLog().log, 20);
    await view.start();
    try {
      expect(view.triggers()?.map((t) => t.name)).toEqual(['deploy']);
      kubeletWrite(f.triggersDir, triggersData('deploy', 'ship'));
      await eventually('the edit to apply', () => (view.triggers()?.length === 2 ? true : undefined));
    } finally {
      await view.stop();
    }
  });
});

describe('readFolder', () => {
  test('a folder that is not there reads as no ConfigMap', async () => {
    expect(await readFolder(join(tmpdir(), 'waitgate-no-such-folder'))).toBeUndefined();
  });

  test('reads through ..data: mid-swap, the key links of the old version do not count', async () => {
    const f = folders();
    kubeletWrite(f.triggersDir, { 'triggers.json': 'old', 'extra.txt': 'old' });
    // The kubelet has swapped ..data to the new version and not yet removed the old key's link.
    mkdirSync(join(f.triggersDir, '..new'));
    writeFileSync(join(f.triggersDir, '..new', 'triggers.json'), 'new');
    symlinkSync('..new', join(f.triggersDir, '..data_tmp'));
    renameSync(join(f.triggersDir, '..data_tmp'), join(f.triggersDir, '..data'));
    expect(await readFolder(f.triggersDir)).toEqual({ 'triggers.json': 'new' });
  });
});
