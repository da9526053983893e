// Asks GitHub again for deliveries that failed. GitHub does not retry a delivery by itself, so
// while the receiver is down (a rollout, an outage) every delivery is lost unless someone asks
// for it again. Every few minutes the leader lists each configured hook's recent deliveries
// and asks for the failed ones (redelivery-plan.ts), a bounded number per hook and round. The
// receiver drops a delivery it has already taken, so asking twice does no harm.
import type { Logger } from 'pino';
import { hookName, type HookRef } from '../../api/github-hooks.js';
import { deliveriesToRedeliver, REDELIVERY_WINDOW_MS, type HookDelivery } from './redelivery-plan.js';

/** At most this many redeliveries asked for per hook and round. */
export const REDELIVERIES_PER_ROUND = 25;

export interface HookDeliveries {
  deliveries(hook: HookRef, notBefore: number): Promise<HookDelivery[]>;
  redeliver(hook: HookRef, deliveryId: number): Promise<void>;
}

export interface RedelivererDeps {
  readonly github: HookDeliveries;
  readonly hooks: readonly HookRef[];
  readonly intervalMs: number;
  readonly now: () => number;
  readonly log: Logger;
  readonly metrics?: { redelivered(outcome: 'asked' | 'failed'): void };
}

export class Redeliverer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly deps: RedelivererDeps) {}

  /** The first round now, then one every interval (a round never overlaps the next). */
  start(): void {
    if (this.deps.hooks.length === 0) return;
    const tick = () => {
      this.running = this.round().finally(() => {
        this.running = undefined;
        if (!this.stopped) this.timer = setTimeout(tick, this.deps.intervalMs);
      });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One round over every hook; failures are logged and left for the next round. */
  async round(): Promise<void> {
    for (const hook of this.deps.hooks) {
      if (this.stopped) return;
      await this.roundFor(hook);
    }
  }

  private async roundFor(hook: HookRef): Promise<void> {
    const { deps } = this;
    const log = deps.log.child({ hook: hookName(hook) });
    let ids: number[];
    try {
      const now = deps.now();
      ids = deliveriesToRedeliver(await deps.github.deliveries(hook, now - REDELIVERY_WINDOW_MS), now, REDELIVERIES_PER_ROUND);
    } catch (err) {
      log.warn({ err }, 'Failed to list the hook’s deliveries');
      return;
    }
    for (const id of ids) {
      try {
        await deps.github.redeliver(hook, id);
        deps.metrics?.redelivered('asked');
        log.info({ delivery: id }, 'Asked GitHub to redeliver a failed delivery');
      } catch (err) {
        deps.metrics?.redelivered('failed');
        log.warn({ err, delivery: id }, 'Failed to ask for a redelivery');
      }
    }
  }
}
