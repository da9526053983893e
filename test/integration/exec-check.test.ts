// The exec-mode check contract against real scripts (test/fixtures/checks), run as real
// processes: exit codes, signals, the timeout's SIGTERM then SIGKILL, spawn failures,
// argv without a shell, stdin on /dev/null, an environment that is exactly the one given,
// output counted and dropped, a grandchild that must not hold the answer up, and nothing a
// check started left running after it (its process group is killed).
// No cluster needed. Rows run side by side, so the slow ones (timeouts) overlap.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ABORTED,
  CheckVerdict,
  DRAIN_MS,
  runExecCheck,
  verdictOf,
  type CheckAnswer,
  type ExecCheckOptions,
} from '../../operator/checks/exec-check.js';
import { ROOT } from '../support/env.js';
import { eventually } from '../support/wait.js';

const CHECKS = join(ROOT, 'test', 'fixtures', 'checks');
const TARGET = 'acme/web#7';
const TIMEOUT_MS = 1000;
const KILL_GRACE_MS = 300;
/** For rows that answer at once: far from their timeout even on a loaded machine. */
const GENEROUS_MS = 10_000;
/** How late a process may be seen to end on a busy machine. The signal says which kill ended it. */
const SLACK_MS = 2000;
/**
 * How early a lower bound may be met: node's timers run on libuv's loop time, kept in whole
 * milliseconds and the loop's clock is only refreshed once per turn, and durationMs is rounded:
 * an abort timer armed a turn before the spawn can be measured a few ms short (1496 of 1500 seen).
 */
const EARLY_MS = 10;
/** A row that has not answered by now is stuck, not slow. */
const ROW_TIMEOUT_MS = 15_000;
// Long enough that the check has surely started on a loaded machine (an earlier abort starts nothing).
const ABORT_AFTER_MS = 1500;

// Set in this process's environment and never passed on: a check that sees it read
// process.env instead of opts.env.
const LEAK = 'WAITGATE_TEST_ABSENT';

let scratch: string;
beforeAll(() => {
  process.env[LEAK] = 'leaked';
  scratch = mkdtempSync(join(tmpdir(), 'waitgate-exec-check-'));
});
afterAll(() => {
  delete process.env[LEAK];
  rmSync(scratch, { recursive: true, force: true });
});

/** A target an interpolating runner would act on: every one of these touches the file. */
const hostile = (sentinel: string) =>
  `acme/web#7; touch ${sentinel} $(touch ${sentinel}) \`touch ${sentinel}\` && touch "${sentinel}" | ` +
  `'it''s' * ~ \\ $HOME \${PATH} >${sentinel}\nnext line`;

interface Row {
  readonly name: string;
  readonly script: string;
  readonly target?: string | ((scratch: string) => string);
  readonly env?: (scratch: string) => Record<string, string | undefined>;
  readonly timeoutMs?: number;
  /** Abort opts.signal this long after the start (0: before it starts). */
  readonly abortAfterMs?: number;
  readonly expect: Partial<CheckAnswer>;
  readonly verdict: CheckVerdict;
  /** Bounds on durationMs. */
  readonly tookMs?: readonly [number, number];
}

const rows: Row[] = [
  { name: 'exit 0 is go', script: 'exit-0.sh', expect: exited(0, 0, 0), verdict: CheckVerdict.Go },
  { name: 'exit 3 is not yet', script: 'exit-3.sh', expect: exited(3, 0, 0), verdict: CheckVerdict.NotYet },
  { name: 'exit 2 is never', script: 'exit-2.sh', expect: exited(2, 0, 0), verdict: CheckVerdict.Never },
  { name: 'exit 1 is could-not-tell', script: 'exit-1.sh', expect: exited(1, 0, 0), verdict: CheckVerdict.CouldNotTell },
  { name: 'an unrecognised code (7) is could-not-tell', script: 'exit-7.sh', expect: exited(7, 0, 0), verdict: CheckVerdict.CouldNotTell },
  {
    name: 'the one-liner trap: `| grep -q` says 1 for "not met", so not-yet arrives as could-not-tell',
    script: 'grep-trap.sh',
    expect: exited(1, 0, 0),
    verdict: CheckVerdict.CouldNotTell,
  },
  {
    name: 'the same question with its codes mapped says not yet',
    script: 'status-mapped.sh',
    expect: exited(3, 0, 0),
    verdict: CheckVerdict.NotYet,
  },
  {
    name: 'stdin is /dev/null: a prompt reads end-of-file at once instead of hanging',
    script: 'reads-stdin.sh',
    expect: exited(3, 0, 'Proceed? [y/N] '.length),
    verdict: CheckVerdict.NotYet,
    tookMs: [0, GENEROUS_MS / 2],
  },
  {
    name: 'stdout and stderr are counted, more than a pipe buffer each',
    script: 'chatty.sh',
    expect: exited(3, 100_000, 70_000),
    verdict: CheckVerdict.NotYet,
  },
  {
    name: 'a plain target arrives as $1',
    script: 'echo-target.sh',
    env: () => ({ WAITGATE_TEST_EXPECT: TARGET }),
    expect: exited(0, 0, 0),
    verdict: CheckVerdict.Go,
  },
  {
    name: 'a different target does not match (the fixture can say no)',
    script: 'echo-target.sh',
    target: 'acme/web#8',
    env: () => ({ WAITGATE_TEST_EXPECT: TARGET }),
    expect: exited(5, 0, 0),
    verdict: CheckVerdict.CouldNotTell,
  },
  {
    name: 'a target full of shell syntax arrives as one argument, uninterpreted',
    script: 'echo-target.sh',
    target: (dir) => hostile(join(dir, 'pwned')),
    env: (dir) => ({ WAITGATE_TEST_EXPECT: hostile(join(dir, 'pwned')) }),
    expect: exited(0, 0, 0),
    verdict: CheckVerdict.Go,
  },
  {
    name: 'the environment is exactly opts.env',
    script: 'env-check.sh',
    env: () => ({ WAITGATE_TEST_PRESENT: 'yes', WAITGATE_TEST_UNDEFINED: undefined }),
    expect: exited(0, 0, 0),
    verdict: CheckVerdict.Go,
  },
  {
    name: 'a check without the variable it needs fails (the fixture can say no)',
    script: 'env-check.sh',
    env: () => ({}),
    expect: exited(4, 0, 0),
    verdict: CheckVerdict.CouldNotTell,
  },
  {
    name: 'a crash is a signal, not a code',
    script: 'crash.sh',
    expect: { exitCode: null, signal: 'SIGSEGV', timedOut: false },
    verdict: CheckVerdict.CouldNotTell,
  },
  {
    name: 'a hang is ended by SIGTERM at the timeout',
    script: 'hang.sh',
    timeoutMs: TIMEOUT_MS,
    expect: { exitCode: null, signal: 'SIGTERM', timedOut: true },
    verdict: CheckVerdict.CouldNotTell,
    tookMs: [TIMEOUT_MS, TIMEOUT_MS + SLACK_MS],
  },
  {
    name: 'a hang that ignores SIGTERM is ended by SIGKILL after the grace',
    script: 'hang-ignores-term.sh',
    timeoutMs: TIMEOUT_MS,
    expect: { exitCode: null, signal: 'SIGKILL', timedOut: true },
    verdict: CheckVerdict.CouldNotTell,
    tookMs: [TIMEOUT_MS + KILL_GRACE_MS, TIMEOUT_MS + KILL_GRACE_MS + SLACK_MS],
  },
  {
    name: 'exit 0 after being told to stop is still a timeout',
    script: 'exits-0-on-term.sh',
    timeoutMs: TIMEOUT_MS,
    expect: { exitCode: 0, signal: null, timedOut: true },
    verdict: CheckVerdict.CouldNotTell,
    tookMs: [TIMEOUT_MS, TIMEOUT_MS + SLACK_MS],
  },
  {
    name: 'an abort stops a hang with SIGTERM, and it is not a timeout',
    script: 'hang.sh',
    abortAfterMs: ABORT_AFTER_MS,
    expect: { exitCode: null, signal: 'SIGTERM', timedOut: false },
    verdict: CheckVerdict.CouldNotTell,
    tookMs: [ABORT_AFTER_MS, ABORT_AFTER_MS + SLACK_MS],
  },
  {
    name: 'an abort ends a hang that ignores SIGTERM with SIGKILL after the grace',
    script: 'hang-ignores-term.sh',
    abortAfterMs: ABORT_AFTER_MS,
    expect: { exitCode: null, signal: 'SIGKILL', timedOut: false },
    verdict: CheckVerdict.CouldNotTell,
    tookMs: [ABORT_AFTER_MS + KILL_GRACE_MS, ABORT_AFTER_MS + KILL_GRACE_MS + SLACK_MS],
  },
  {
    name: 'an abort before the start starts nothing',
    script: 'exit-0.sh',
    abortAfterMs: 0,
    expect: notStarted(ABORTED),
    verdict: CheckVerdict.CouldNotTell,
  },
  { name: 'a missing path cannot start', script: 'does-not-exist.sh', expect: notStarted('ENOENT'), verdict: CheckVerdict.CouldNotTell },
  {
    name: 'a file without the executable bit cannot start',
    script: 'not-executable.sh',
    expect: notStarted('EACCES'),
    verdict: CheckVerdict.CouldNotTell,
  },
  {
    name: 'a shebang naming a missing interpreter cannot start',
    script: 'bad-shebang.sh',
    expect: notStarted('ENOENT'),
    verdict: CheckVerdict.CouldNotTell,
  },
  {
    name: 'a shebang saved with CRLF cannot start',
    script: 'crlf-shebang.sh',
    expect: notStarted('ENOENT'),
    verdict: CheckVerdict.CouldNotTell,
  },
  {
    name: 'a file with no interpreter line is refused, not handed to /bin/sh',
    script: 'no-shebang.sh',
    expect: notStarted('ENOEXEC'),
    verdict: CheckVerdict.CouldNotTell,
  },
  { name: 'a directory cannot start', script: '.', expect: notStarted('EACCES'), verdict: CheckVerdict.CouldNotTell },
  {
    name: 'a target with a NUL byte cannot be passed at all',
    script: 'exit-0.sh',
    target: 'acme/web#7\u0000',
    expect: notStarted('ERR_INVALID_ARG_VALUE'),
    verdict: CheckVerdict.CouldNotTell,
  },
];

/** True when no process has this pid any more, or only its zombie (killed, waiting for its reaper). */
function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name in parentheses, which may itself hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return true;
  }
}

function exited(exitCode: number, stdoutBytes: number, stderrBytes: number): Partial<CheckAnswer> {
  return { exitCode, signal: null, timedOut: false, stdoutBytes, stderrBytes };
}

function notStarted(spawnError: string): Partial<CheckAnswer> {
  return { exitCode: null, signal: null, timedOut: false, spawnError, stdoutBytes: 0, stderrBytes: 0 };
}

function optionsFor(row: Row, dir: string): ExecCheckOptions {
  return {
    path: join(CHECKS, row.script),
    target: typeof row.target === 'function' ? row.target(dir) : (row.target ?? TARGET),
    timeoutMs: row.timeoutMs ?? GENEROUS_MS,
    killGraceMs: KILL_GRACE_MS,
    env: { PATH: process.env['PATH'], ...row.env?.(dir) },
    ...(row.abortAfterMs !== undefined ? { signal: abortAfter(row.abortAfterMs) } : {}),
  };
}

function abortAfter(ms: number): AbortSignal {
  const controller = new AbortController();
  if (ms === 0) controller.abort();
  else setTimeout(() => controller.abort(), ms);
  return controller.signal;
}

describe('fixtures', () => {
  test('keep their modes (git keeps the executable bit)', () => {
    for (const f of readdirSync(CHECKS)) {
      const mode = statSync(join(CHECKS, f)).mode & 0o777;
      expect([f, mode.toString(8)]).toEqual([f, f === 'not-executable.sh' ? '644' : '755']);
    }
  });
});

describe('runExecCheck runs a check as the contract says', () => {
  test.concurrent.each(rows.map((r) => [r.name, r] as const))(
    '%s',
    async (_name, row) => {
      const dir = mkdtempSync(join(scratch, 'row-'));
      const answer = await runExecCheck(optionsFor(row, dir));

      expect(answer).toMatchObject(row.expect);
      if (row.expect.spawnError === undefined) expect(answer).not.toHaveProperty('spawnError');
      expect(verdictOf(answer)).toBe(row.verdict);
      expect(answer.durationMs).toBeGreaterThanOrEqual(0);
      if (row.tookMs) {
        expect(answer.durationMs).toBeGreaterThanOrEqual(row.tookMs[0] - EARLY_MS);
        expect(answer.durationMs).toBeLessThanOrEqual(row.tookMs[1]);
      }
      // Whatever the target said, nothing ran it: the scratch directory holds nothing new.
      expect(readdirSync(dir)).toEqual([]);
    },
    ROW_TIMEOUT_MS,
  );

  test.concurrent(
    'a grandchild holding the pipes does not hold up the answer, and does not outlive the check',
    async () => {
      const dir = mkdtempSync(join(scratch, 'grandchild-'));
      const pidFile = join(dir, 'grandchild.pid');
      const t0 = Date.now();
      const answer = await runExecCheck({
        path: join(CHECKS, 'backgrounds-grandchild.sh'),
        target: TARGET,
        timeoutMs: GENEROUS_MS,
        killGraceMs: KILL_GRACE_MS,
        env: { PATH: process.env['PATH'], WAITGATE_TEST_PIDFILE: pidFile },
      });
      const wallMs = Date.now() - t0;

      const grandchild = Number(readFileSync(pidFile, 'utf8').trim());
      try {
        expect(answer).toMatchObject({ exitCode: 3, signal: null, timedOut: false });
        expect(answer).not.toHaveProperty('spawnError');
        expect(verdictOf(answer)).toBe(CheckVerdict.NotYet);
        // A floor: what arrived before the pipes were closed.
        expect(answer.stdoutBytes).toBeLessThanOrEqual('left a grandchild behind\n'.length);
        expect(wallMs).toBeLessThan(DRAIN_MS + 1500);
        // The grandchild (sleep 30) went with the check's process group.
        await eventually('the grandchild to be gone', () => (gone(grandchild) ? true : undefined), KILL_GRACE_MS + SLACK_MS);
      } finally {
        if (!gone(grandchild)) process.kill(grandchild, 'SIGKILL');
      }
    },
    ROW_TIMEOUT_MS,
  );

  test.concurrent(
    'a timed-out check takes its background child with it',
    async () => {
      const dir = mkdtempSync(join(scratch, 'timed-out-child-'));
      const pidFile = join(dir, 'child.pid');
      const answer = await runExecCheck({
        path: join(CHECKS, 'hang-with-child.sh'),
        target: TARGET,
        timeoutMs: TIMEOUT_MS,
        killGraceMs: KILL_GRACE_MS,
        env: { PATH: process.env['PATH'], WAITGATE_TEST_PIDFILE: pidFile },
      });
      const child = Number(readFileSync(pidFile, 'utf8').trim());
      try {
        expect(answer).toMatchObject({ exitCode: null, signal: 'SIGTERM', timedOut: true });
        await eventually('the background child to be gone', () => (gone(child) ? true : undefined), KILL_GRACE_MS + SLACK_MS);
      } finally {
        if (!gone(child)) process.kill(child, 'SIGKILL');
      }
    },
    ROW_TIMEOUT_MS,
  );

  test('the hostile target really would have touched the file through a shell', () => {
    // Guards the row above against passing for the wrong reason: the same string, handed to
    // sh -c, does create the sentinel.
    const dir = mkdtempSync(join(scratch, 'shell-'));
    const sentinel = join(dir, 'pwned');
    try {
      execFileSync('/bin/sh', ['-c', `: ${hostile(sentinel)}`], { stdio: 'ignore' });
    } catch {
      // the string need not be a valid command for the substitutions to have run
    }
    expect(existsSync(sentinel)).toBe(true);
  });
});
