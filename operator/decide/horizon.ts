// When a waiting hold releases and when it gives up at the latest (status.releaseAt and
// status.givesUpAt), derived from the status alone so that a pass which changes nothing else
// writes nothing: no clock is read here.
import { approvalDeadline } from '../../api/approval.js';
import { givesUpAtMs } from '../../api/cadence.js';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { epochOf, iso } from '../../api/time.js';
import type { DecideConfig } from './observed.js';
import type { HeldJobView } from './view.js';

type ReadyView = Extract<HeldJobView, { ok: true }>;
type HorizonConfig = Pick<DecideConfig, 'intervalMs' | 'maxMs' | 'maxChecks' | 'afterMaxMs'>;

/** The status with releaseAt and givesUpAt as its conditions and counters say. */
export function withHorizon(status: HeldJobStatus, view: ReadyView, config: HorizonConfig): HeldJobStatus {
  const { releaseAt: _r, givesUpAt: _g, ...rest } = status;
  const releaseAt = view.afterMs !== undefined ? iso(view.afterMs) : undefined;
  const givesUp = givesUpOf(status, view, config);
  return {
    ...rest,
    ...(releaseAt !== undefined ? { releaseAt } : {}),
    ...(givesUp !== undefined ? { givesUpAt: iso(givesUp) } : {}),
  };
}

function givesUpOf(status: HeldJobStatus, view: ReadyView, config: HorizonConfig): number | undefined {
  // An approval not given yet: nothing clears the hold before it, and it gives up at its deadline.
  if (view.approval !== undefined && status.approval === undefined) {
    const heldSince = epochOf(status.heldSince);
    return heldSince === undefined ? undefined : approvalDeadline(heldSince, config.afterMaxMs);
  }
  if (view.profiles.length === 0) return undefined;
  const bounds = { intervalMs: config.intervalMs, maxChecks: status.limits?.maxChecks ?? config.maxChecks };
  const since = epochOf(status.checksSince);
  if (since === undefined) {
    // Checks have not begun: they begin at the instant, or as soon as the hold is looked at.
    const first = view.afterMs ?? epochOf(status.heldSince);
    if (first === undefined) return undefined;
    return givesUpAtMs({ ...bounds, checksDone: 0, nextRoundMs: first, expiresAtMs: first + config.maxMs });
  }
  const expiresAtMs = epochOf(status.expiresAt) ?? since + config.maxMs;
  // In the middle of a round (a profile said go, the next is asked straight away) there is no
  // next check: the round goes on from the last one.
  const nextRoundMs = epochOf(status.nextCheckAt) ?? epochOf(status.lastCheckAt) ?? since;
  return givesUpAtMs({ ...bounds, checksDone: status.checks ?? 0, nextRoundMs, expiresAtMs });
}
