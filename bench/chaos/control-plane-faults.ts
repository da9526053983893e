// Faults of the local control plane that hack/cluster-up.sh started: restart kube-apiserver
// (same command line, same log, pid file updated so cluster-down still stops it) or freeze
// it with SIGSTOP. The apiserver keeps listening while frozen: connections open, nothing answers.
import { spawn } from 'node:child_process';
import { openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await Promise.resolve(probe()).catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export class ApiserverFaults {
  constructor(
    private readonly clusterDir: string,
    /** Resolves true once the apiserver answers again. */
    private readonly answers: () => Promise<boolean>,
  ) {}

  private get pidFile(): string {
    return join(this.clusterDir, 'pids', 'kube-apiserver.pid');
  }

  private pid(): number {
    const pid = Number(readFileSync(this.pidFile, 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) throw new Error(`no running kube-apiserver in ${this.pidFile}`);
    return pid;
  }

  /**
   * SIGTERM, and SIGKILL if it has not exited within 15 s (it drains its requests first); then
   * started again with the same arguments. Resolves once it answers.
   */
  async restart(): Promise<void> {
    const pid = this.pid();
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    process.kill(pid, 'SIGTERM');
    await until('kube-apiserver to exit', () => !alive(pid), 15_000).catch(() => process.kill(pid, 'SIGKILL'));
    await until('kube-apiserver to exit', () => !alive(pid), 15_000);
    const log = openSync(join(this.clusterDir, 'logs', 'kube-apiserver.log'), 'a');
    const [cmd, ...args] = argv;
    const child = spawn(cmd as string, args, { detached: true, stdio: ['ignore', log, log] });
    child.unref();
    writeFileSync(this.pidFile, `${child.pid}\n`);
    await until('kube-apiserver to answer again', this.answers, 120_000);
  }

  /** SIGSTOP for `ms`, then SIGCONT (also when the caller's wait is cut short). */
  async freeze(ms: number): Promise<void> {
    const pid = this.pid();
    process.kill(pid, 'SIGSTOP');
    try {
      await new Promise((r) => setTimeout(r, ms));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  }
}
