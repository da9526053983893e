// The triggers and profiles ConfigMaps as the kubelet mounts them into the receiver's Pod:
// one folder each, a file per key. The receiver then needs no right on ConfigMaps at all (it
// faces the internet; whoever could write waitgate-profiles could run code as the operator).
//
// The kubelet swaps a ConfigMap's files at once: the keys are links into `..data`, itself a
// link to a timestamped folder it replaces. Each look reads that folder, so it never sees half
// of one version and half of the next, every few seconds, and applies what changed. A folder
// that is empty or absent is a ConfigMap that is not there (the volumes are optional). Plain
// files in a folder (no `..data`) are read the same way.
import { readdir, readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { PROFILES_CONFIGMAP } from '../../api/profiles.js';
import type { DeclaredProfiles } from '../../api/refusal-rules.js';
import { TRIGGERS_CONFIGMAP, type Trigger } from '../../api/triggers/triggers-file.js';
import type { TriggerView } from '../delivery/deliver.js';
import { TriggerConfig, type ConfigMapData } from './trigger-config.js';

/** How often the folders are read again, ms. */
export const CONFIG_FILES_INTERVAL_MS = 2_000;

export interface ConfigFolders {
  /** Where waitgate-triggers is mounted. */
  readonly triggersDir: string;
  /** Where waitgate-profiles is mounted. */
  readonly profilesDir: string;
}

export class FileTriggerView implements TriggerView {
  private readonly config: TriggerConfig;
  /** What each folder held at the last look that read it, to apply only a change. */
  private readonly last = new Map<string, string>();
  /** The `..data` target each mounted ConfigMap was last read from (kubelet layout only). */
  private readonly versions = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private looking: Promise<void> | undefined;

  constructor(
    private readonly folders: ConfigFolders,
    private readonly log: Logger,
    private readonly intervalMs = CONFIG_FILES_INTERVAL_MS,
  ) {
    this.config = new TriggerConfig(log);
  }

  /** Called with each refused triggers file (refusal count), for metrics. */
  set onRefusedFile(f: (count: number) => void) {
    this.config.onRefusedFile = f;
  }

  async start(): Promise<void> {
    await this.look();
    this.config.warnIfNoProfiles();
    this.timer = setInterval(() => void this.look(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.looking;
  }

  triggers(): readonly Trigger[] | undefined {
    return this.config.triggers();
  }

  profiles(): DeclaredProfiles {
    return this.config.profiles();
  }

  /** Reads both folders once and applies what changed since the last look. */
  look(): Promise<void> {
    this.looking ??= (async () => {
      try {
        await this.lookAt(PROFILES_CONFIGMAP, this.folders.profilesDir);
        await this.lookAt(TRIGGERS_CONFIGMAP, this.folders.triggersDir);
      } finally {
        this.looking = undefined;
      }
    })();
    return this.looking;
  }

  private async lookAt(name: string, dir: string): Promise<void> {
    // The kubelet never changes a version's files: the same `..data` target is the same data,
    // so a look between its swaps reads nothing more than one link.
    const version = await realpath(join(dir, '..data')).catch(() => undefined);
    if (version !== undefined && this.versions.get(name) === version) return;
    let data: ConfigMapData;
    try {
      data = await readFolder(dir);
    } catch (err) {
      // Mid-swap, or unreadable for now: the next look tries again; what loaded stays.
      this.log.warn({ err, configMap: name, dir }, 'Failed to read mounted ConfigMap');
      return;
    }
    if (version === undefined) this.versions.delete(name);
    else this.versions.set(name, version);
    const seen = JSON.stringify(data ?? null);
    if (this.last.get(name) === seen) return;
    this.last.set(name, seen);
    this.config.apply(name, data);
  }
}

/** A mounted ConfigMap's data, keys sorted; undefined when the folder is empty or absent. */
export async function readFolder(dir: string): Promise<ConfigMapData> {
  let from: string;
  try {
    from = await realpath(join(dir, '..data'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    from = dir;
  }
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(from, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  // The kubelet's own entries (`..data`, `..2026_09_01_...`) start with two dots; keys never do.
  const keys = entries
    .filter((e) => !e.name.startsWith('..') && (e.isFile() || e.isSymbolicLink()))
    .map((e) => e.name)
    .sort();
  if (keys.length === 0) return undefined;
  const data: Record<string, string> = {};
  for (const key of keys) data[key] = await readFile(join(from, key), 'utf8');
  return data;
}
