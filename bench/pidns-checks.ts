// Runs exec checks through the operator's own runner inside a PID namespace of their own, then
// reports what is left in that namespace. Started (from dist/) by
// test/integration/check-processes-pidns.test.ts under `unshare --pid --fork --mount-proc`,
// as PID 1 itself or as the child of an init.
//
//   node dist/bench/pidns-checks.js CHECKS_DIR COUNT
//
// Prints one JSON line: { pid, answers, live, zombies }, each process as "pid comm state ppid".
// Every process of the namespace but PID 1 and this one is counted.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runExecCheck } from '../operator/checks/exec-check.js';

const TIMEOUT_MS = 300;
const KILL_GRACE_MS = 200;
const AT_ONCE = 10;
/** After the last answer: how long what the checks left may take to go (the sweep's grace, and more). */
const SETTLE_MS = 3_000;
// Timed out with a background child; timed out ignoring SIGTERM; answered at once, leaving a
// background grandchild.
const SCRIPTS = ['hang-with-child.sh', 'hang-ignores-term.sh', 'backgrounds-grandchild.sh'] as const;

export interface PidnsReport {
  readonly pid: number;
  readonly answers: readonly { exitCode: number | null; signal: string | null; timedOut: boolean; spawnError: string | null }[];
  readonly live: readonly string[];
  readonly zombies: readonly string[];
}

interface Proc {
  readonly pid: number;
  readonly comm: string;
  readonly state: string;
  readonly ppid: number;
}

async function main(): Promise<void> {
  const [checksDir, countArg] = process.argv.slice(2);
  const count = Number(countArg);
  if (!checksDir || !Number.isInteger(count) || count < 1) throw new Error('usage: pidns-checks.js CHECKS_DIR COUNT');

  const answers: PidnsReport['answers'][number][] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const a = await runExecCheck({
        path: join(checksDir, SCRIPTS[i % SCRIPTS.length] as string),
        target: 'acme/web#7',
        timeoutMs: TIMEOUT_MS,
        killGraceMs: KILL_GRACE_MS,
        env: { PATH: process.env['PATH'] },
      });
      answers.push({ exitCode: a.exitCode, signal: a.signal, timedOut: a.timedOut, spawnError: a.spawnError ?? null });
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));

  const deadline = Date.now() + SETTLE_MS;
  let left = others();
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = others();
  }
  const show = (p: Proc) => `${p.pid} ${p.comm} ${p.state} ${p.ppid}`;
  const report: PidnsReport = {
    pid: process.pid,
    answers,
    live: left.filter((p) => p.state !== 'Z').map(show),
    zombies: left.filter((p) => p.state === 'Z').map(show),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

/** Every process in /proc but PID 1 and this one. */
function others(): Proc[] {
  const out: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === 1 || pid === process.pid) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone while listing
    }
    // The command name sits in parentheses and may hold spaces: the state follows the last ')'.
    const close = stat.lastIndexOf(')');
    const [state = '?', ppid = '0'] = stat.slice(close + 2).split(' ');
    out.push({ pid, comm: stat.slice(stat.indexOf('(') + 1, close), state, ppid: Number(ppid) });
  }
  return out;
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`pidns-checks: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
