// `waitgate held --watch`: the live held panel. A watch of HeldJobs (listed once, then watched,
// and started again from where it was when it breaks: lib/kube/informer.ts) feeds the rows; a
// clock redraws the waited times once a second from what the watch already holds and never asks
// the apiserver. Keys go through the pure screen (held-screen.ts); its cancel effect runs
// cancelHeldJob, the cancel `waitgate cancel` runs. Nothing here decides what to show.
import type * as k8s from '@kubernetes/client-node';
import { createRootLogger } from '../lib/logger.js';
import { RestartingInformer } from '../lib/kube/informer.js';
import { cancelHeldJob, describeCancel } from './cancel-heldjob.js';
import { oneLine } from './format.js';
import { heldRows, type HeldRow } from './held-panel.js';
import { decodeKeys, initialState, press, renderScreen, rowRef, withLink, withNote, withRows, type ScreenState } from './held-screen.js';
import { describeError, heldJobWatchPath, listHeldJobPage, type WatchedHeldJob } from './kube.js';
import type { Terminal } from './terminal.js';

/** How often the waited times are redrawn. */
const CLOCK_MS = 1_000;

export interface WatchHeldOptions {
  readonly kc: k8s.KubeConfig;
  /** undefined: every namespace. */
  readonly namespace: string | undefined;
  readonly terminal: Terminal;
  readonly now: () => number;
}

/** Runs the panel until q, Ctrl-C, SIGTERM or SIGHUP; the terminal is given back whatever ends it. */
export async function watchHeld(o: WatchHeldOptions): Promise<void> {
  const { terminal } = o;
  let state: ScreenState = initialState(o.namespace);
  const draw = () => terminal.draw(renderScreen(state, terminal.size()));
  const update = (next: ScreenState) => {
    state = next;
    draw();
  };
  const rowsNow = () => heldRows(informer.list(o.namespace), o.now());

  // The informer says why it stopped in a log line; here that line is the footer's.
  const log = createRootLogger('waitgate-held', 'warn', {
    write(line: string) {
      let problem = 'the watch stopped';
      try {
        const entry = JSON.parse(line) as { msg?: string; err?: { message?: string } };
        problem = entry.err?.message ?? entry.msg ?? problem;
      } catch {
        // not JSON: keep the plain words
      }
      update(withLink(state, { state: 'reconnecting', problem: oneLine(problem, 160) }));
    },
  });
  const informer: RestartingInformer<WatchedHeldJob> = new RestartingInformer<WatchedHeldJob>({
    kubeConfig: o.kc,
    path: heldJobWatchPath(o.namespace),
    list: () => listHeldJobPage(o.kc, o.namespace),
    log,
    onListed: () => update(withLink(withRows(state, rowsNow()), { state: 'live' })),
    onEvent: () => update(withRows(state, rowsNow())),
  });

  const cancel = async (row: HeldRow) => {
    const seen = informer.get(row.name, row.namespace);
    if (seen?.metadata.uid !== row.uid) {
      update(withNote(state, `${rowRef(row)} is gone already; nothing was cancelled`));
      return;
    }
    try {
      const outcome = await cancelHeldJob(o.kc, seen);
      update(
        withNote(
          state,
          outcome.kind === 'replaced'
            ? `${rowRef(row)} was replaced by another HeldJob of the same name; nothing was deleted`
            : describeCancel(`${row.namespace}/${row.name}`, outcome.subject),
        ),
      );
    } catch (err) {
      update(withNote(state, `cannot cancel ${rowRef(row)}: ${describeError(err)}`));
    }
  };

  let clock: NodeJS.Timeout | undefined;
  terminal.open();
  try {
    await new Promise<void>((resolve) => {
      terminal.onSignal(resolve);
      terminal.onResize(draw);
      terminal.onInput((data) => {
        for (const key of decodeKeys(data)) {
          const step = press(state, key);
          update(step.state);
          if (step.effect?.kind === 'quit') return resolve();
          if (step.effect?.kind === 'cancel') void cancel(step.effect.row);
        }
      });
      clock = setInterval(() => {
        if (informer.hasSynced) update(withRows(state, rowsNow()));
      }, CLOCK_MS);
      draw();
      void informer.start();
    });
  } finally {
    clearInterval(clock);
    terminal.close();
    await informer.stop();
  }
}
