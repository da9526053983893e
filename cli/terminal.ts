// A full-screen terminal for a live command (`waitgate held --watch`): the alternate screen,
// raw keys, redraws that rewrite only what a frame needs, and the terminal given back exactly
// as it was, whether the command ends by a key, a signal or an exception.

export interface ScreenSize {
  readonly width: number;
  readonly height: number;
}

export interface Terminal {
  /** Takes the terminal over: the alternate screen, the cursor hidden, raw keys. */
  open(): void;
  size(): ScreenSize;
  /** Draws a whole frame (lines already cut to the width); nothing is written when it did not change. */
  draw(lines: readonly string[]): void;
  /** Raw input, as it arrives (a chunk may hold several keys). */
  onInput(listener: (data: string) => void): void;
  onResize(listener: () => void): void;
  /** SIGTERM or SIGHUP: the command should end. */
  onSignal(listener: () => void): void;
  /** Gives the terminal back: main screen, cursor shown, cooked mode, input released. Idempotent. */
  close(): void;
}

const ENTER = '\u001b[?1049h\u001b[?25l\u001b[H\u001b[2J';
const LEAVE = '\u001b[?25h\u001b[?1049l';

/** The process's own terminal, or undefined when standard input or output is not one. Nothing changes before open(). */
export function processTerminal(): Terminal | undefined {
  const { stdin, stdout } = process;
  if (!stdin.isTTY || !stdout.isTTY) return undefined;
  let open = false;
  let last = '';
  const signalListeners: (() => void)[] = [];
  const inputListeners: ((d: string | Buffer) => void)[] = [];
  const resizeListeners: (() => void)[] = [];
  const onSignal = () => {
    for (const l of signalListeners) l();
  };
  const restore = () => {
    if (!open) return;
    open = false;
    stdin.setRawMode(false);
    stdin.pause();
    stdout.write(LEAVE);
  };
  return {
    open() {
      if (open) return;
      open = true;
      // The last resort: whatever ends the process, the terminal is given back.
      process.once('exit', restore);
      process.on('SIGTERM', onSignal).on('SIGHUP', onSignal);
      stdin.setRawMode(true);
      stdin.setEncoding('utf8');
      stdin.resume();
      stdout.write(ENTER);
    },
    size: () => ({ width: stdout.columns || 80, height: stdout.rows || 24 }),
    draw(lines) {
      const frame = lines.join('\n');
      if (!open || frame === last) return;
      last = frame;
      // Home, each line then clear to its end, then clear below: no flicker, no stale text.
      stdout.write(`\u001b[H${lines.map((l) => `${l}\u001b[K`).join('\r\n')}\u001b[J`);
    },
    onInput(listener) {
      const l = (d: string | Buffer) => listener(typeof d === 'string' ? d : d.toString('utf8'));
      inputListeners.push(l);
      stdin.on('data', l);
    },
    onResize(listener) {
      const l = () => {
        last = '';
        listener();
      };
      resizeListeners.push(l);
      stdout.on('resize', l);
    },
    onSignal: (listener) => void signalListeners.push(listener),
    close() {
      restore();
      process.off('exit', restore).off('SIGTERM', onSignal).off('SIGHUP', onSignal);
      for (const l of inputListeners) stdin.off('data', l);
      for (const l of resizeListeners) stdout.off('resize', l);
    },
  };
}
