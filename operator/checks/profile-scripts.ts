// Exec-mode scripts as files the operator can execute.
//
// In a pod, the profiles ConfigMap is mounted read-only (WAITGATE_PROFILES_DIR) and every
// key is already a file there: mountedScriptPath. Outside a pod (tests, `make up`) there is
// no volume, so ProfileScripts writes the scripts the profiles reference into a private
// directory (0700, files 0700) and the checks run from there. Each file is replaced
// atomically (a temp file in the same directory, then rename), so a check already running
// keeps the inode it started with and a new one never sees half a script.
import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isScriptKey, type Profile } from '../../api/profiles.js';

export class ProfileScripts {
  readonly dir: string;

  /** Creates dir with mode 0700 if missing, and narrows it to 0700 if it is open to others. */
  constructor(dir: string) {
    this.dir = resolve(dir);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(this.dir);
    if (!st.isDirectory()) throw new Error(`${this.dir} is not a directory`);
    if ((st.mode & 0o077) !== 0) chmodSync(this.dir, 0o700);
  }

  /**
   * Writes every script key referenced by `profiles` (from data) as an executable file (mode
   * 0700), atomically, and removes files for keys no longer referenced (including temp files
   * a crash left behind). Throws, before writing anything, if a referenced key is not a safe
   * file name or is not in data: parseProfiles refuses both, so either is a caller's bug.
   * Returns the keys written, sorted.
   */
  sync(data: Record<string, string> | undefined, profiles: ReadonlyMap<string, Profile>): string[] {
    const keys = [...new Set([...profiles.values()].map((p) => p.script))].sort();
    const scripts = keys.map((key) => {
      assertScriptKey(key);
      const content = data !== undefined && Object.hasOwn(data, key) ? data[key] : undefined;
      if (content === undefined) throw new Error(`script key ${JSON.stringify(key)} is not in the ConfigMap's data`);
      return { key, content };
    });

    for (const { key, content } of scripts) {
      // A fixed-length name: a 253-character key plus a suffix would pass the file-name limit.
      const tmp = join(this.dir, `.waitgate-tmp-${process.pid}-${randomBytes(8).toString('hex')}`);
      try {
        // 'wx': never follow or reuse something already at the temp name.
        writeFileSync(tmp, content, { mode: 0o700, flag: 'wx' });
        chmodSync(tmp, 0o700); // the umask may have narrowed the mode above
        renameSync(tmp, this.pathOf(key));
      } catch (err) {
        try {
          unlinkSync(tmp);
        } catch {
          // already gone
        }
        throw err;
      }
    }

    const keep = new Set(keys);
    for (const entry of readdirSync(this.dir, { withFileTypes: true })) {
      if (keep.has(entry.name) || entry.isDirectory()) continue;
      unlinkSync(join(this.dir, entry.name));
    }
    return keys;
  }

  /** Absolute path of a script key. Throws on a key that is not a safe file name. */
  pathOf(scriptKey: string): string {
    assertScriptKey(scriptKey);
    return join(this.dir, scriptKey);
  }
}

/**
 * When the ConfigMap is mounted as a volume (WAITGATE_PROFILES_DIR), each key is already a
 * file there. Throws on a key that is not a safe file name.
 */
export function mountedScriptPath(dir: string, scriptKey: string): string {
  assertScriptKey(scriptKey);
  return join(resolve(dir), scriptKey);
}

function assertScriptKey(key: string): void {
  if (!isScriptKey(key)) throw new Error(`script key ${JSON.stringify(key)} is not a safe file name`);
}
