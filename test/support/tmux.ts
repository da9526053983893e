// A real terminal for a full-screen command: a tmux server of the test's own (its own socket,
// so it never meets anyone else's tmux), one session running the command, keys sent with
// `tmux send-keys`, the screen read with `tmux capture-pane -p`. hack/install-tools.sh installs
// tmux.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export class TmuxSession {
  private readonly dir = mkdtempSync(join(tmpdir(), 'waitgate-tmux-'));
  private readonly socket = join(this.dir, 'socket');
  private readonly name = 'test';

  private tmux(args: readonly string[]): Promise<{ stdout: string }> {
    return run('tmux', ['-S', this.socket, ...args], { env: { PATH: process.env['PATH'] ?? '', TERM: 'xterm-256color' } });
  }

  /**
   * Starts `argv` (no shell) in a detached session of `width` × `height`, with exactly `env` (and
   * TERM). The pane stays after the command ends, so what it left on the screen can be read.
   */
  async start(argv: readonly string[], env: Record<string, string>, width = 160, height = 30): Promise<void> {
    const vars = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    // One invocation, so the option holds before the command can end.
    await this.tmux([
      '-f',
      '/dev/null',
      'set-option',
      '-g',
      'remain-on-exit',
      'on',
      ';',
      'new-session',
      '-d',
      '-s',
      this.name,
      '-x',
      String(width),
      '-y',
      String(height),
      ...vars,
      '--',
      ...argv,
    ]);
  }

  /** Sends keys as tmux names them: 'h', 'Down', 'C-c'. */
  async keys(...keys: string[]): Promise<void> {
    await this.tmux(['send-keys', '-t', this.name, ...keys]);
  }

  /** The visible screen, as text, trailing blank lines dropped. */
  async screen(): Promise<string> {
    const { stdout } = await this.tmux(['capture-pane', '-p', '-t', this.name]);
    return stdout.replace(/\s+$/, '');
  }

  /** Stops this test's tmux server (and whatever still runs in it) and removes its socket. */
  async kill(): Promise<void> {
    await this.tmux(['kill-server']).catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
