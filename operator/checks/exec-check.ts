// Runs one exec-mode check, exactly as the check contract says:
//
//  - the script's path is executed directly, with the target as its one argument. No shell
//    anywhere (spawn with shell: false), so nothing in the target is ever interpreted.
//    A file that is not a program the kernel can execute (no `#!` line, not ELF) is refused
//    as ENOEXEC before anything runs: left to libuv, it would be handed to /bin/sh instead.
//  - stdin is /dev/null, so a check that prompts reads end-of-file at once instead of
//    hanging until its timeout.
//  - the environment is exactly opts.env (the caller passes the operator's own); this module
//    never reads process.env.
//  - stdout and stderr are counted in bytes and each chunk is dropped as it arrives: never
//    buffered, stored or logged.
//  - on timeout, SIGTERM goes to the process this started (only that one, not its group),
//    then SIGKILL after killGraceMs if it is still alive. Aborting opts.signal (a HeldJob
//    deleted mid-check) stops it the same way, without counting as a timeout.
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
      });
    } catch (err) {
      // Arguments spawn refuses outright, such as a NUL byte in the target or the environment.
      done(notStarted(errorCode(err, 'EINVAL')));
      return;
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

    // SIGTERM to the started process alone (child.kill signals its pid, not a group), then
    // SIGKILL if it outlives the grace. Both are no-ops once it has exited.
    function terminate(): void {
      if (stopping || exit !== undefined || settled) return;
      stopping = true;
      child.kill('SIGTERM');
      killTimer = setTimeout(() => {
        if (exit === undefined && !settled) child.kill('SIGKILL');
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
