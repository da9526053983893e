// Running Jobs keep their scope leases alive; a crashed operator's leases lapse by themselves.
import type { Logger } from 'pino';
import { Phase } from '../../api/vocabulary.js';
import { viewOf } from '../decide/view.js';
import type { HeldJob } from './ports.js';

/** The scope places the running Jobs hold: one per HeldJob in phase Running, its uid the holder. */
export function runningHolders(heldJobs: readonly HeldJob[]): { scopeKey: string; holder: string }[] {
  return heldJobs
    .filter((hj) => hj.status?.phase === Phase.Running)
    .flatMap((hj) => {
      const view = viewOf(hj);
      return view.ok ? [{ scopeKey: view.scopeKey, holder: hj.metadata.uid }] : [];
    });
}

/** How often the leases of running Jobs are renewed: well inside their time to live. */
export const SCOPE_RENEW_EVERY_MS = 30_000;

export interface RenewableScopeSlots {
  renew(running: readonly { scopeKey: string; holder: string }[]): Promise<number>;
}

export class ScopeRenewal {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly heldJobs: () => readonly HeldJob[],
    private readonly scope: RenewableScopeSlots,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.renewOnce(), SCOPE_RENEW_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async renewOnce(): Promise<void> {
    await this.scope.renew(runningHolders(this.heldJobs())).catch((err: unknown) => this.log.warn({ err }, 'Failed to renew scope leases'));
  }
}
