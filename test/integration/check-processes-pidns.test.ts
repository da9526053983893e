// Nothing a check starts outlives it, in the arrangement the image runs: the operator's own
// exec-check runner (dist/bench/pidns-checks.js drives it) inside a PID namespace of its own, 50 checks that time out
// (one ignoring SIGTERM) or answer at once, each leaving a background child or grandchild.
//
//  - Under tini as PID 1 (the image's ENTRYPOINT), nothing is left: no process (the check's
//    process group is killed) and no zombie (tini reaps what was reparented to it).
//  - With node itself as PID 1 (an image without an init), no process is left either, but the
//    killed children whose parent had already exited stay zombies: node waits only for the
//    pids it started. This run shows the test sees zombies, and why the image needs its init.
//
// Needs unshare (util-linux) and /usr/bin/tini (hack/install-tools.sh installs it); as root,
// or where unprivileged user namespaces are allowed.
import { describe, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PidnsReport } from '../../bench/pidns-checks.js';
import { ROOT } from '../support/env.js';

const DRIVER = join(ROOT, 'dist', 'bench', 'pidns-checks.js');
const CHECKS = join(ROOT, 'test', 'fixtures', 'checks');
const TINI = '/usr/bin/tini';
const CHECK_COUNT = 50;
/** 50 checks ten at a time, about half a second a round, then up to 3 s for what is left to go. */
const RUN_TIMEOUT_MS = 30_000;

type Report = PidnsReport;

/** Runs the driver in a new PID namespace, under `init` (argv before node), and returns what it saw. */
function runInPidNamespace(init: readonly string[]): Report {
  const asUser = process.getuid?.() === 0 ? [] : ['--user', '--map-root-user'];
  const out = execFileSync(
    'unshare',
    [...asUser, '--pid', '--fork', '--mount-proc', ...init, process.execPath, DRIVER, CHECKS, String(CHECK_COUNT)],
    { encoding: 'utf8', timeout: RUN_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return JSON.parse(out) as Report;
}

function expectEveryCheckRan(report: Report): void {
  expect(report.answers).toHaveLength(CHECK_COUNT);
  expect(report.answers.filter((a) => a.spawnError !== null)).toEqual([]);
  // Both kinds ran: the timed-out ones and the ones that answered at once.
  expect(report.answers.filter((a) => a.timedOut).length).toBeGreaterThan(CHECK_COUNT / 2);
  expect(report.answers.filter((a) => a.exitCode === 3 && !a.timedOut).length).toBeGreaterThan(CHECK_COUNT / 4);
}

describe('exec checks in a PID namespace of their own', () => {
  test('what the test needs is here', () => {
    expect({ built: existsSync(DRIVER), tini: existsSync(TINI) }).toEqual({ built: true, tini: true });
  });

  test(
    'under tini as PID 1 (the image), 50 timed-out and backgrounding checks leave no process and no zombie',
    () => {
      const report = runInPidNamespace([TINI, '--']);
      expect(report.pid).not.toBe(1);
      expectEveryCheckRan(report);
      expect({ live: report.live, zombies: report.zombies }).toEqual({ live: [], zombies: [] });
    },
    RUN_TIMEOUT_MS,
  );

  test(
    'with node as PID 1 and no init, no process is left but the killed orphans stay zombies',
    () => {
      const report = runInPidNamespace([]);
      expect(report.pid).toBe(1);
      expectEveryCheckRan(report);
      expect(report.live).toEqual([]);
      // Every background child was reparented to node when its check exited, and node never reaps it.
      expect(report.zombies.length).toBeGreaterThanOrEqual(CHECK_COUNT / 2);
      expect(report.zombies.every((z) => z.endsWith(' 1'))).toBe(true);
    },
    RUN_TIMEOUT_MS,
  );
});
