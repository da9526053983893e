// A memory cgroup of its own for one process, as the kubelet gives a container its memory
// limit: v2 (`memory.max`) where the unified hierarchy has the controller, else v1
// (`memory.limit_in_bytes`). The chaos run's operator runs in one under the chart's limit, and
// the run lowers the limit to just over what the operator uses to make the kernel OOM-kill it.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const MiB = 1024 * 1024;

interface Files {
  readonly dir: string;
  readonly limit: string;
  readonly usage: string;
  readonly peak: string | undefined;
  /** memory.stat, and the name of its line for anonymous memory (what reclaim cannot take back without swap). */
  readonly anonLine: string;
  /** The file whose `oom_kill N` line counts the kernel's OOM kills in the group. */
  readonly oomCounter: string;
}

function layout(name: string): Files | undefined {
  const v2 = '/sys/fs/cgroup';
  if (existsSync(join(v2, 'cgroup.controllers')) && readFileSync(join(v2, 'cgroup.controllers'), 'utf8').includes('memory')) {
    const dir = join(v2, name);
    return { dir, limit: 'memory.max', usage: 'memory.current', peak: 'memory.peak', anonLine: 'anon', oomCounter: 'memory.events' };
  }
  const v1 = '/sys/fs/cgroup/memory';
  if (existsSync(join(v1, 'memory.limit_in_bytes'))) {
    const dir = join(v1, name);
    return {
      dir,
      limit: 'memory.limit_in_bytes',
      usage: 'memory.usage_in_bytes',
      peak: 'memory.max_usage_in_bytes',
      anonLine: 'rss',
      oomCounter: 'memory.oom_control',
    };
  }
  return undefined;
}

export class MemoryCgroup {
  private constructor(private readonly f: Files) {}

  /** A new group with this limit, or the reason there can be none here. */
  static create(name: string, limitMiB: number): MemoryCgroup | string {
    const f = layout(name);
    if (!f) return 'no memory cgroup controller is mounted';
    try {
      mkdirSync(f.dir, { recursive: true });
      const g = new MemoryCgroup(f);
      g.setLimitBytes(limitMiB * MiB);
      return g;
    } catch (err) {
      return `cannot make a memory cgroup at ${f.dir}: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /** `sh -c` words that move the shell into the group, then exec the command: the process is charged from its first byte. */
  wrap(command: readonly string[]): string[] {
    const quoted = command.map((w) => `'${w.replaceAll("'", "'\\''")}'`).join(' ');
    return ['/bin/sh', '-c', `echo $$ > '${join(this.f.dir, 'cgroup.procs')}' && exec ${quoted}`];
  }

  setLimitBytes(bytes: number): void {
    writeFileSync(join(this.f.dir, this.f.limit), String(Math.floor(bytes)));
  }

  usageBytes(): number {
    return Number(readFileSync(join(this.f.dir, this.f.usage), 'utf8').trim());
  }

  /** Anonymous memory in use: the part a limit just above it leaves no room to grow, page cache being reclaimable. */
  anonBytes(): number {
    const m = new RegExp(`^${this.f.anonLine} (\\d+)$`, 'm').exec(readFileSync(join(this.f.dir, 'memory.stat'), 'utf8'));
    return m ? Number(m[1]) : this.usageBytes();
  }

  /** The most the group has used since it was made or last reset, MiB (undefined where the kernel keeps no peak). */
  peakMiB(): number | undefined {
    if (!this.f.peak) return undefined;
    try {
      return Number(readFileSync(join(this.f.dir, this.f.peak), 'utf8').trim()) / MiB;
    } catch {
      return undefined;
    }
  }

  /** Starts the peak over (v1 takes a write of 0; v2's memory.peak takes any write on kernels that allow it). */
  resetPeak(): void {
    if (!this.f.peak) return;
    try {
      writeFileSync(join(this.f.dir, this.f.peak), '0');
    } catch {
      // An older v2 kernel: the peak stays the group's lifetime peak.
    }
  }

  /** The kernel's OOM kills in the group so far. */
  oomKills(): number {
    const m = /^oom_kill (\d+)$/m.exec(readFileSync(join(this.f.dir, this.f.oomCounter), 'utf8'));
    return m ? Number(m[1]) : 0;
  }

  remove(): void {
    try {
      rmdirSync(this.f.dir);
    } catch {
      // A process still in it: the group goes with the machine's next cleanup.
    }
  }
}
