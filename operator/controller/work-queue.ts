// A keyed work queue in the manner of client-go's: a key is processed by one worker at a
// time, adds while it is being processed coalesce into one more pass, and a failing key is
// retried with exponential backoff instead of spinning. Two lanes: a key whose next pass only
// records work already started (laneOf says 'record') waits while any key of the start lane
// waits, so under a herd of launches no create queues behind a record of one.

/** A failing reconcile is retried after this, doubling per failure up to the maximum. */
export const RECONCILE_RETRY_BASE_MS = 250;
export const RECONCILE_RETRY_MAX_MS = 60_000;

export interface WorkQueueOptions {
  readonly workers: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** The lane of a key's next pass, asked as it is queued; unset: every key is in the start lane. */
  readonly laneOf?: (key: string) => 'start' | 'record';
}

export type KeyHandler = (key: string) => Promise<void>;
export type ErrorReporter = (key: string, err: unknown, retryInMs: number) => void;

export class WorkQueue {
  private readonly queue: string[] = [];
  /** The record lane: taken from only while the start lane is empty. */
  private readonly later: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  /** Keys added first while they ran: they go to the front when their pass ends. */
  private readonly urgent = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly delayed = new Map<string, NodeJS.Timeout>();
  private active = 0;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly handler: KeyHandler,
    private readonly options: WorkQueueOptions,
    private readonly onError: ErrorReporter,
  ) {}

  add(key: string): void {
    if (this.stopped || this.queued.has(key)) return;
    this.queued.add(key);
    if (!this.processing.has(key)) this.enqueue(key);
    this.pump();
  }

  /** Puts a key at the back of its lane. */
  private enqueue(key: string): void {
    if (this.options.laneOf?.(key) === 'record') this.later.push(key);
    else this.queue.push(key);
  }

  /**
   * Adds the key at the front of the queue (moved there if it waits further back): for a key
   * whose turn is already paid for elsewhere, such as a check place kept for it, which would
   * otherwise wait behind every pass queued before it.
   */
  addFirst(key: string): void {
    if (this.stopped) return;
    if (this.queued.has(key)) {
      const at = this.queue.indexOf(key);
      if (at > 0) {
        this.queue.splice(at, 1);
        this.queue.unshift(key);
      }
      const later = this.later.indexOf(key);
      if (later >= 0) {
        this.later.splice(later, 1);
        this.queue.unshift(key);
      }
      return;
    }
    this.queued.add(key);
    if (this.processing.has(key)) this.urgent.add(key);
    else this.queue.unshift(key);
    this.pump();
  }

  /** Adds the key after a delay; a shorter pending delay for the same key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    if (delayMs <= 0) return this.add(key);
    const existing = this.delayed.get(key);
    if (existing) clearTimeout(existing);
    const t = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, delayMs);
    t.unref?.();
    this.delayed.set(key, t);
  }

  get length(): number {
    return this.queue.length + this.later.length;
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.delayed.values()) clearTimeout(t);
    this.delayed.clear();
    this.queue.length = 0;
    this.later.length = 0;
    this.queued.clear();
    this.urgent.clear();
  }

  /** Resolves once nothing is queued or running. */
  whenIdle(): Promise<void> {
    if (this.active === 0 && this.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (!this.stopped && this.active < this.options.workers && this.length > 0) {
      const key = (this.queue.length > 0 ? this.queue.shift() : this.later.shift()) as string;
      this.queued.delete(key);
      this.processing.add(key);
      this.active++;
      void this.run(key);
    }
    if (this.active === 0 && this.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private async run(key: string): Promise<void> {
    try {
      // Each pass starts on an event-loop turn of its own: passes that do no I/O and put keys
      // back (the check gate's spin of 2026-12-04) can burn CPU but never starve the timers and
      // sockets, so the Lease is still renewed (or let go), logs are written and /metrics answers.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.stopped) return;
      await this.handler(key);
      this.failures.delete(key);
    } catch (err) {
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      const retryInMs = Math.min(this.options.retryBaseMs * 2 ** (n - 1), this.options.retryMaxMs);
      this.onError(key, err, retryInMs);
      this.addAfter(key, retryInMs);
    } finally {
      this.processing.delete(key);
      this.active--;
      if (this.queued.has(key)) {
        if (this.urgent.delete(key)) this.queue.unshift(key);
        else this.enqueue(key);
      }
      this.pump();
    }
  }
}
