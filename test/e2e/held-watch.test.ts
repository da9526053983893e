// `waitgate held --watch` in a real terminal (tmux), against the real apiserver and a real
// operator: the held section live, h for the held view, x then n keeps a hold, x then y cancels
// it (the HeldJob goes from the apiserver, its row from the screen), holds created and deleted
// elsewhere appear and vanish without a key, and q or Ctrl-C give the terminal back as it was.
import { afterEach, describe, expect, test } from '@jest/globals';
import { join } from 'node:path';
import { API_GROUP, API_VERSION, HELDJOB_PLURAL, Phase } from '../../api/vocabulary.js';
import { afterIn, heldJob } from '../support/builders.js';
import { kubeconfigPath, ROOT } from '../support/env.js';
import { withScenario, type Scenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { TmuxSession } from '../support/tmux.js';
import { eventually } from '../support/wait.js';

const CLI = join(ROOT, 'bin', 'waitgate.js');
/** An after a day ahead: the operator holds it and nothing else happens. */
const dayAhead = () => ({ after: afterIn(24 * 3_600_000).after });

/**
 * The command in a shell that says, once it has ended, its exit status and whether the terminal
 * settings (`stty -g`) are those it started with; then stays, so the screen can be read.
 */
const wrapped = (args: string[]) => [
  'sh',
  '-c',
  'before=$(stty -g); "$@"; rc=$?; [ "$(stty -g)" = "$before" ] && t=restored || t=CHANGED; printf "ended %s, terminal %s\\n" "$rc" "$t"; exec sleep 600',
  'sh',
  process.execPath,
  CLI,
  ...args,
];

const sessions: TmuxSession[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.kill();
});

async function panel(namespace: string): Promise<TmuxSession> {
  const t = new TmuxSession();
  sessions.push(t);
  await t.start(wrapped(['held', '--watch', '-n', namespace]), { KUBECONFIG: kubeconfigPath(), PATH: process.env['PATH'] ?? '' });
  return t;
}

/** The screen once it shows what `wanted` asks for. */
function shows(t: TmuxSession, what: string, wanted: (screen: string) => boolean): Promise<string> {
  let last = '';
  return eventually(
    `the screen to show ${what}`,
    async () => {
      last = await t.screen();
      return wanted(last) ? last : undefined;
    },
    Timeouts.shortMs,
  ).catch((err: unknown) => {
    throw new Error(`${err instanceof Error ? err.message : String(err)}; the screen was:\n${last}`);
  });
}

const lines = (screen: string) => screen.split('\n');

async function allHeld(s: Scenario, names: string[]): Promise<void> {
  await eventually(
    'every hold to be Held',
    async () => {
      const phases = await Promise.all(names.map(async (n) => (await s.kube.getHeldJob(s.namespace, n))?.status?.phase));
      return phases.every((p) => p === Phase.Held) ? true : undefined;
    },
    Timeouts.jobMs,
  );
}

describe('waitgate held --watch', () => {
  test(
    'h opens the held view, x then n keeps a hold, x then y cancels it; the watch brings new and deleted holds; q gives the terminal back',
    () =>
      withScenario('held-watch', async (s) => {
        const names = [1, 2, 3, 4].map((i) => `hold-${i}`);
        for (const [i, name] of names.entries()) {
          await s.kube.createHeldJob(s.namespace, heldJob({ name, target: `acme/web#${i + 1}`, waitFor: [dayAhead()] }));
        }
        await allHeld(s, names);

        const t = await panel(s.namespace);
        // The section: its counts and h view, three rows, the rest counted; no HeldJob name.
        const first = await shows(t, 'the held section, listed', (sc) => sc.includes('↓ 1 more') && sc.includes(' · live · '));
        expect(lines(first)[0]).toBe('held · 4 waiting · h view');
        expect(lines(first).slice(1, 4)).toEqual(
          Array(3).fill(expect.stringMatching(/^ {2}○ acme\/web#[1-4] · after \S+ · waited \d+[sm]$/)),
        );
        expect(first).not.toContain('hold-');
        expect(first).toContain(`HeldJobs in ${s.namespace} · live · q quit`);

        // h: the held view, every row, the cursor on the first.
        await t.keys('h');
        const view = await shows(t, 'the held view', (sc) => sc.includes('x cancel'));
        expect(lines(view)[0]).toBe('held · 4 waiting');
        expect(lines(view).filter((l) => /^[› ] ○ acme\/web#/.test(l))).toHaveLength(4);
        expect(lines(view)[1]).toMatch(/^› ○ acme\/web#/);

        // Down, then x: the question is about the second row, in the frame.
        await t.keys('Down');
        await shows(t, 'the cursor on the second row', (sc) => /^› /.test(lines(sc)[2] ?? ''));
        await t.keys('x');
        const asked = await shows(t, 'the question', (sc) => sc.includes('y/n'));
        const chosen = /^› ○ (acme\/web#\d)/.exec(lines(asked)[2] ?? '')?.[1] as string;
        expect(chosen).toBeDefined();
        const victim = `hold-${chosen.split('#')[1]}`;
        expect(asked).toContain(`cancel ${chosen} (${s.namespace}/${victim})? it has not run, and nothing will start · y/n`);

        // n keeps it: nothing deleted.
        await t.keys('n');
        await shows(t, 'the hold kept', (sc) => sc.includes(`not cancelled: ${chosen}`));
        expect((await s.kube.getHeldJob(s.namespace, victim))?.metadata.deletionTimestamp).toBeUndefined();

        // x, y: cancelled through the apiserver, and its row goes.
        await t.keys('x');
        await shows(t, 'the question again', (sc) => sc.includes('y/n'));
        await t.keys('y');
        await eventually(
          'the cancelled HeldJob to go from the apiserver',
          async () => {
            const hj = await s.kube.getHeldJob(s.namespace, victim);
            return hj === undefined || hj.metadata.deletionTimestamp !== undefined ? true : undefined;
          },
          Timeouts.shortMs,
        );
        const after = await shows(t, 'the row gone', (sc) => sc.startsWith('held · 3 waiting'));
        expect(after).not.toContain(`○ ${chosen} `);
        expect(after).toContain(
          `Cancelling ${s.namespace}/${victim} (${chosen}): it was held on its conditions and never ran; nothing will start.`,
        );
        // The operator finishes it: the HeldJob is gone, not only being deleted.
        await eventually('the HeldJob gone', async () => ((await s.kube.getHeldJob(s.namespace, victim)) ? undefined : true));
        // The others are untouched.
        for (const other of names.filter((n) => n !== victim)) {
          expect((await s.kube.getHeldJob(s.namespace, other))?.metadata.deletionTimestamp).toBeUndefined();
        }

        // The watch, no key pressed: a new hold appears, deleted ones vanish.
        await s.kube.createHeldJob(s.namespace, heldJob({ name: 'hold-9', target: 'acme/web#9', waitFor: [dayAhead()] }));
        await shows(t, 'the new hold', (sc) => sc.includes('○ acme/web#9 · '));
        const remaining = [...names.filter((n) => n !== victim), 'hold-9'];
        for (const name of remaining) {
          await s.kube.custom.deleteNamespacedCustomObject({
            group: API_GROUP,
            version: API_VERSION,
            plural: HELDJOB_PLURAL,
            namespace: s.namespace,
            name,
          });
        }
        const empty = await shows(t, 'nothing left', (sc) => sc.includes('held · nothing waits'));
        expect(empty).not.toContain('○ acme/web#');

        // Back to the panel: the section is hidden, only the footer is left.
        await t.keys('h');
        const hidden = await shows(t, 'the panel with nothing waiting', (sc) => sc.trim() === `HeldJobs in ${s.namespace} · live · q quit`);
        expect(hidden).not.toContain('held ·');

        // q: the command ends with 0, the terminal as it was, the main screen back.
        await t.keys('q');
        const ended = await shows(t, 'the command ended', (sc) => sc.includes('ended '));
        expect(ended.trim()).toBe('ended 0, terminal restored');
      }),
    Timeouts.testMs * 2,
  );

  test(
    'nothing waiting: the section is hidden from the start; Ctrl-C ends it and gives the terminal back',
    () =>
      withScenario('held-watch-empty', async (s) => {
        const t = await panel(s.namespace);
        const screen = await shows(t, 'the live footer', (sc) => sc.includes(' · live · '));
        expect(screen.trim()).toBe(`HeldJobs in ${s.namespace} · live · q quit`);
        await t.keys('C-c');
        const ended = await shows(t, 'the command ended', (sc) => sc.includes('ended '));
        expect(ended.trim()).toBe('ended 0, terminal restored');
      }),
    Timeouts.testMs,
  );

  test(
    'without a terminal on standard input, --watch is a usage error (exit 2)',
    async () => {
      const t = new TmuxSession();
      sessions.push(t);
      // Standard input from /dev/null: not a terminal.
      await t.start(
        ['sh', '-c', '"$@" </dev/null; echo "ended $?"; exec sleep 600', 'sh', process.execPath, CLI, 'held', '--watch', '-n', 'default'],
        { KUBECONFIG: kubeconfigPath(), PATH: process.env['PATH'] ?? '' },
      );
      const screen = await shows(t, 'the refusal', (sc) => sc.includes('ended '));
      expect(screen).toContain('waitgate held: --watch needs a terminal on standard input and output');
      expect(screen).toContain('ended 2');
    },
    Timeouts.testMs,
  );
});
