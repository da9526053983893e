// Runs one exec-mode check, exactly as the check contract says:
//
//  - the script's path is executed directly, with the target as its one argument. No shell
//    anywhere (spawn with shell: false), so nothing in the target is ever interpreted.
//    A file that is not a program the kernel can execute (no `#!` line, not ELF) is refused
//    as ENOEXEC before anything runs: left to libuv, it would be handed to /bin/sh instead.
//  - stdin is /dev/null, so a check that prompts reads end-of-file at once instead of
//    hanging until its timeout.
//  - the environment is exactly opts.env (the caller passes the allow-listed part of its own,
//    api/check-env.ts); this module never reads process.env.
//  - stdout and stderr are counted in bytes and each chunk is dropped as it arrives: never
//    buffered, stored or logged.
//  - the script starts in a process group (and session) of its own, so everything it starts
//    shares that group unless it leaves on purpose (setsid). On timeout SIGTERM goes to the
//    whole group, then SIGKILL after killGraceMs. Aborting opts.signal (a HeldJob deleted
//    mid-check) stops it the same way, without counting as a timeout.
//  - when the started process exits (on its own or told to), the group is signalled once
//    more, SIGTERM then SIGKILL after killGraceMs, so nothing it left running in the
//    background outlives the check. Processes killed this way whose parent already exited
//    are reparented to PID 1, which must reap them: node does not (it waits only for the pids
//    it started), so the image runs tini as PID 1 (see the Dockerfile).
//  - the answer is ready when the started process exits. A grandchild it left behind that
//    still holds the pipes does not delay it: after the exit the pipes are read until they
//    have been silent for DRAIN_MS (at most DRAIN_CAP_MS), then closed. Byte counts are
//    therefore a floor, not a total.
//
// runExecCheck never rejects; everything that can go wrong is in the answer.
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { CheckOutcome } from '../../api/check-verdict.js';

export { CHECK_VERDICTS, CheckExit, CheckVerdict, verdictOf } from '../../api/check-verdict.js';
export type { CheckOutcome } from '../../api/check-verdict.js';

export interface CheckAnswer extends CheckOutcome {
  /** null when killed by a signal or never started. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** True when the timeout fired and the check was told to stop. */
  readonly timedOut: boolean;
  /** Set when the check could not start: 'ENOENT', 'EACCES', 'ENOEXEC', ... */
  readonly spawnError?: string;
  /** Why it could not start, in words, where the runner can say more than spawnError. */
  readonly spawnDetail?: string;
  /**
   * Pod mode: the check Pod was refused at admission for naming this Secret, which is not
   * labelled for checks (api/check-secrets.ts). A configuration slip, not a fault of the check.
   */
  readonly refusedSecret?: string;
  /** Counted, never stored. A floor when a grandchild kept the pipe open. */
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  /** From the call to the exit of the started process (or the failure to start it). */
  readonly durationMs: number;
}

export interface ExecCheckOptions {
  /** The script to execute. A relative path is resolved against the working directory, never looked up on PATH. */
  readonly path: string;
  /** The id-only target, passed as the only argument. */
  readonly target: string;
  readonly timeoutMs: number;
  readonly killGraceMs: number;
  /** The whole environment of the check. Keys whose value is undefined are left out. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Aborting stops the check as a timeout would (SIGTERM, then SIGKILL after killGraceMs), but
   * timedOut stays false. Already aborted: nothing is started (spawnError 'ABORT_ERR').
   */
  readonly signal?: AbortSignal;
}

/** After the started process exits, how long its pipes may take to reach end-of-file. */
export const DRAIN_MS = 100;
/** However much a grandchild keeps writing, the answer comes this long after the exit. */
export const DRAIN_CAP_MS = 2_000;

const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * Process groups of checks this process runs now. A sweep SIGKILL that comes killGraceMs after
 * a check ended skips a group id found here: the id was freed and taken by a newer check.
 */
const liveGroups = new Set<number>();
let exitHooked = false;

/**
 * A check runs in a session of its own, so a Ctrl-C or the end of this process no longer
 * reaches it by the terminal or the group: when this process exits, every check it still runs
 * is killed with its group.
 */
function killLiveGroupsOnExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const group of liveGroups) signalGroup(group, 'SIGKILL');
  });
}
/** The spawnError of a check whose signal was aborted before it started. */
export const ABORTED = 'ABORT_ERR';

export async function runExecCheck(opts: ExecCheckOptions): Promise<CheckAnswer> {
  const startedAt = performance.now();
  const elapsed = () => Math.round(performance.now() - startedAt);
  const notStarted = (spawnError: string): CheckAnswer => ({
    exitCode: null,
    signal: null,
    timedOut: false,
    spawnError,
    stdoutBytes: 0,
    stderrBytes: 0,
    durationMs: elapsed(),
  });

  const path = resolve(opts.path);
  let refusal: string | undefined;
  try {
    refusal = await preflight(path);
  } catch (err) {
    refusal = errorCode(err, 'EIO');
  }
  if (refusal !== undefined) return notStarted(refusal);
  if (opts.signal?.aborted) return notStarted(ABORTED);

  return new Promise<CheckAnswer>((done) => {
    let child: ChildProcess;
    try {
      child = spawn(path, [opts.target], {
        shell: false,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: environment(opts.env),
        windowsHide: true,
        // setsid(): a session and process group of its own, whose id is the child's pid.
        detached: true,
      });
    } catch (err) {
      // Arguments spawn refuses outright, such as a NUL byte in the target or the environment.
      done(notStarted(errorCode(err, 'EINVAL')));
      return;
    }

    const group = child.pid;
    if (group !== undefined) {
      liveGroups.add(group);
      killLiveGroupsOnExit();
    }
    let stdoutBytes = 0;
    let stderrBytes = 0;
    let timedOut = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null; durationMs: number } | undefined;
    let settled = false;
    let stopping = false;
    let termTimer: NodeJS.Timeout | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const countOut = (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      lastDataAt = performance.now();
    };
    const countErr = (chunk: Buffer) => {
      stderrBytes += chunk.length;
      lastDataAt = performance.now();
    };
    let lastDataAt = performance.now();
    const ignore = () => {};
    child.stdout?.on('data', countOut).on('error', ignore);
    child.stderr?.on('data', countErr).on('error', ignore);

    const stop = () => {
      opts.signal?.removeEventListener('abort', onAbort);
      clearTimeout(termTimer);
      clearTimeout(killTimer);
      clearTimeout(drainTimer);
      for (const [stream, count] of [
        [child.stdout, countOut],
        [child.stderr, countErr],
      ] as const) {
        stream?.off('data', count);
        stream?.destroy();
      }
    };

    const finish = (answer: CheckAnswer) => {
      if (settled) return;
      settled = true;
      stop();
      done(answer);
    };

    const finishExited = () => {
      if (exit === undefined) return;
      finish({
        exitCode: exit.code,
        signal: exit.signal,
        timedOut,
        stdoutBytes,
        stderrBytes,
        durationMs: exit.durationMs,
      });
    };

    child.on('error', (err) => {
      // Before a pid there is no process: it could not be started. After, an error comes from
      // kill() on a process that is already gone, and its exit is reported on its own.
      if (child.pid === undefined && exit === undefined) finish(notStarted(errorCode(err, 'EUNKNOWN')));
    });

    child.once('exit', (code, signal) => {
      exit = { code, signal, durationMs: elapsed() };
      clearTimeout(termTimer);
      clearTimeout(killTimer);
      if (group !== undefined) sweepGroup(group, opts.killGraceMs);
      // What the check wrote before it exited may still sit in the pipes. Keep reading while
      // data arrives; stop after DRAIN_MS of silence (a grandchild holding the pipes open and
      // saying nothing), or at DRAIN_CAP_MS whatever happens.
      const exitedAt = performance.now();
      const drain = () => {
        // One more turn of the event loop first, so data already readable is counted.
        setImmediate(() => {
          const quiet = performance.now() - lastDataAt >= DRAIN_MS;
          if (quiet || performance.now() - exitedAt >= DRAIN_CAP_MS) finishExited();
          else drainTimer = setTimeout(drain, DRAIN_MS);
        });
      };
      drainTimer = setTimeout(drain, DRAIN_MS);
    });
    // 'close' comes after 'exit' once both pipes reached end-of-file: the usual, quick path.
    child.once('close', finishExited);

    // SIGTERM to the check's whole process group, then SIGKILL if the started process
    // outlives the grace. After its exit, sweepGroup takes over.
    function terminate(): void {
      if (stopping || exit !== undefined || settled || group === undefined) return;
      stopping = true;
      signalGroup(group, 'SIGTERM');
      killTimer = setTimeout(() => {
        if (exit === undefined && !settled) signalGroup(group, 'SIGKILL');
      }, timerMs(opts.killGraceMs));
    }
    function onAbort(): void {
      terminate();
    }

    termTimer = setTimeout(() => {
      if (exit !== undefined || settled || stopping) return;
      timedOut = true;
      terminate();
    }, timerMs(opts.timeoutMs));
    opts.signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Signals every process of the group; false when none is left (ESRCH) or it cannot be signalled. */
function signalGroup(group: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-group, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * After the started process (the group's leader) exited: SIGTERM to what is left of its group
 * now, and SIGKILL after the grace if anything was. The group id stays reserved while any
 * member lives; once the group is empty the id may be reused, so the late SIGKILL is skipped
 * for an id a newer check of this process now holds.
 */
function sweepGroup(group: number, killGraceMs: number): void {
  liveGroups.delete(group);
  if (!signalGroup(group, 'SIGTERM')) return;
  setTimeout(() => {
    if (!liveGroups.has(group)) signalGroup(group, 'SIGKILL');
  }, timerMs(killGraceMs));
}

/**
 * Refuses what the kernel would not execute itself: a path that cannot be opened, that is not
 * a regular file (EACCES, as execve says), or that starts with neither `#!` nor the ELF magic
 * (ENOEXEC; execvp would otherwise run it with /bin/sh). Opened non-blocking so a FIFO at the
 * path cannot stall it. Whether it is executable is left to the exec itself.
 */
async function preflight(path: string): Promise<string | undefined> {
  let file;
  try {
    file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    return errorCode(err, 'EIO');
  }
  try {
    if (!(await file.stat()).isFile()) return 'EACCES';
    const head = Buffer.alloc(4);
    const { bytesRead } = await file.read(head, 0, 4, 0);
    const magic = head.subarray(0, bytesRead);
    const shebang = bytesRead >= 2 && magic[0] === 0x23 && magic[1] === 0x21;
    const elf = bytesRead === 4 && magic.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
    return shebang || elf ? undefined : 'ENOEXEC';
  } catch (err) {
    return errorCode(err, 'EIO');
  } finally {
    await file.close().catch(() => {});
  }
}

function environment(env: Readonly<Record<string, string | undefined>>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = Object.create(null) as NodeJS.ProcessEnv;
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

function timerMs(ms: number): number {
  return Number.isFinite(ms) ? Math.min(Math.max(0, Math.round(ms)), MAX_TIMER_MS) : MAX_TIMER_MS;
}

function errorCode(err: unknown, fallback: string): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? code : fallback;
}
