// The operator's Prometheus metrics. Labels are closed vocabularies or operator-declared
// names (profiles, phases, tokens): nothing an issue author typed.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CheckVerdict } from '../api/check-verdict.js';
import { HOLD_OUTCOMES, type HoldOutcome, type RefusalToken } from '../api/vocabulary.js';
import type { HeldJobCounts } from './controller/held-job-gauges.js';
import { registerBuildInfo } from '../lib/build-info.js';

/** How one reconcile of one HeldJob ended. */
export const ReconcileResult = { Success: 'success', Error: 'error' } as const;
export type ReconcileResult = (typeof ReconcileResult)[keyof typeof ReconcileResult];

export class OperatorMetrics {
  readonly registry = new Registry();
  /** Set by countHeldJobsFrom: sets the held-job gauges from counts kept up to date, on every scrape. */
  onScrape: () => void = () => {};
  readonly heldJobs = new Gauge({
    name: 'waitgate_heldjobs',
    help: 'HeldJobs by phase.',
    labelNames: ['phase'] as const,
    registers: [this.registry],
    collect: () => this.onScrape(),
  });
  readonly heldByProfile = new Gauge({
    name: 'waitgate_held_by_profile',
    help: 'Held jobs waiting on each profile.',
    labelNames: ['profile'] as const,
    registers: [this.registry],
  });
  readonly checks = new Counter({
    name: 'waitgate_checks_total',
    help: 'Profile checks by profile and verdict.',
    labelNames: ['profile', 'verdict'] as const,
    registers: [this.registry],
  });
  readonly checkDuration = new Histogram({
    name: 'waitgate_check_duration_seconds',
    help: 'How long profile checks ran.',
    labelNames: ['profile'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly slotDenials = new Counter({
    name: 'waitgate_check_slot_denials_total',
    help: 'Checks deferred because every check slot was taken.',
    registers: [this.registry],
  });
  readonly capacityExceeded = new Counter({
    name: 'waitgate_wait_capacity_exceeded_total',
    help: 'Times holds kept finding every check slot taken.',
    registers: [this.registry],
  });
  /** Set by the wiring: the checks queued behind this operator's own check slots, when scraped. */
  checksQueuedNow: () => number = () => 0;
  readonly checksQueued: Gauge = new Gauge({
    name: 'waitgate_checks_queued',
    help: "Checks due and waiting for one of this operator's own check slots (its own checks hold them all).",
    registers: [this.registry],
    collect: (): void => this.checksQueued.set(this.checksQueuedNow()),
  });
  readonly checksQueuedTotal = new Counter({
    name: 'waitgate_checks_queued_total',
    help: "Checks that found every check slot taken by this operator's own checks and queued (once a check).",
    registers: [this.registry],
  });
  readonly checkLateness = new Histogram({
    name: 'waitgate_check_lateness_seconds',
    help: 'How long after it was first asked for a check started (0 when a slot was free at once).',
    buckets: [0.01, 0.1, 1, 5, 11, 15, 30, 60, 120, 300, 900, 3600],
    registers: [this.registry],
  });
  /** Seconds from the first hold to its end: a second to thirty days. */
  static readonly HOLD_DURATION_BUCKETS = [
    1, 5, 15, 30, 60, 300, 900, 1800, 3600, 7200, 21_600, 43_200, 86_400, 259_200, 604_800, 1_209_600, 2_592_000,
  ];
  readonly holdDuration = new Histogram({
    name: 'waitgate_hold_duration_seconds',
    help: 'How long holds waited, from the first hold to its end, by how it ended (launched, cancelled, refused, failed).',
    labelNames: ['outcome'] as const,
    buckets: OperatorMetrics.HOLD_DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly afterLateness = new Histogram({
    name: 'waitgate_after_wake_lateness_seconds',
    help: 'How late the operator woke for an after instant.',
    buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 30],
    registers: [this.registry],
  });
  readonly forgeReports = new Counter({
    name: 'waitgate_forge_reports_total',
    help: 'Reports to the forges, by forge and outcome (posted, found already posted, gaveUp, skipped: not allowed to report).',
    labelNames: ['forge', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly redeliveries = new Counter({
    name: 'waitgate_github_redeliveries_total',
    help: 'Redeliveries of failed GitHub deliveries asked for, by outcome (asked, failed).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly refusals = new Counter({
    name: 'waitgate_refusals_total',
    help: 'HeldJobs refused, by token.',
    labelNames: ['token'] as const,
    registers: [this.registry],
  });
  readonly scopeDeferrals = new Counter({
    name: 'waitgate_scope_deferrals_total',
    help: 'Launches deferred because a scope was full.',
    registers: [this.registry],
  });
  readonly scopeOvercommits = new Counter({
    name: 'waitgate_scope_overcommitted_total',
    help: 'Running Jobs whose lost scope place was taken back over its limit (Valkey lost it, or it lapsed, and another hold took it).',
    registers: [this.registry],
  });
  readonly scopesOvercommitted = new Gauge({
    name: 'waitgate_scope_overcommitted',
    help: 'Scopes (and the overall limit) the last sweep of running Jobs found over their limit; no new Job launches in them until back under it.',
    registers: [this.registry],
  });
  readonly triggersReadable = new Gauge({
    name: 'waitgate_triggers_readable',
    help: '1 when the triggers ConfigMap could be read and loaded, else 0.',
    registers: [this.registry],
  });

  readonly profilesReadable = new Gauge({
    name: 'waitgate_profiles_readable',
    help: '1 when the profiles ConfigMap could be read and loaded, else 0 (profile holds pause until it can).',
    registers: [this.registry],
  });

  readonly reconciles = new Counter({
    name: 'waitgate_reconcile_total',
    help: 'Reconciles of a HeldJob, by result (an error is retried with backoff).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly reconcileDuration = new Histogram({
    name: 'waitgate_reconcile_duration_seconds',
    help: 'How long one reconcile took, by result (a check it waited for included).',
    labelNames: ['result'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  /** Set by the wiring: the work queue's length when scraped. */
  queueDepth: () => number = () => 0;
  readonly workQueueDepth: Gauge = new Gauge({
    name: 'waitgate_workqueue_depth',
    help: 'HeldJobs waiting in the work queue for a worker.',
    registers: [this.registry],
    collect: (): void => this.workQueueDepth.set(this.queueDepth()),
  });

  /** Set by the wiring: how many HeldJobs have a wake armed, when scraped. */
  wakesArmed: () => number = () => 0;
  readonly wakesArmedGauge: Gauge = new Gauge({
    name: 'waitgate_wakes_armed',
    help: 'HeldJobs with a wake armed (an after instant or a next check).',
    registers: [this.registry],
    collect: (): void => this.wakesArmedGauge.set(this.wakesArmed()),
  });

  readonly workQueueRetries = new Counter({
    name: 'waitgate_workqueue_retries_total',
    help: 'Reconciles that failed and were put back with backoff.',
    registers: [this.registry],
  });

  readonly informerRestarts = new Counter({
    name: 'waitgate_informer_restarts_total',
    help: 'Watches restarted after an error, by informer.',
    labelNames: ['informer'] as const,
    registers: [this.registry],
  });

  /** Set by the wiring: whether this replica leads (always, without leader election). */
  isLeader: () => boolean = () => true;
  readonly leader: Gauge = new Gauge({
    name: 'waitgate_leader',
    help: '1 on the replica that leads (reconciles), 0 on a follower.',
    registers: [this.registry],
    collect: (): void => this.leader.set(this.isLeader() ? 1 : 0),
  });

  readonly buildInfo = registerBuildInfo(this.registry, 'operator');

  constructor() {
    // Standard names (process_*, nodejs_*), so stock Node.js dashboards work.
    collectDefaultMetrics({ register: this.registry });
    // Every series from the start, at 0, so rate() and alerts see them before the first event.
    for (const result of Object.values(ReconcileResult)) this.reconciles.inc({ result }, 0);
    for (const informer of ['heldjobs', 'jobs']) this.informerRestarts.inc({ informer }, 0);
    for (const outcome of HOLD_OUTCOMES) this.holdDuration.zero({ outcome });
  }

  /** Runs one reconcile, counting and timing it by result; its error is passed on. */
  async timeReconcile(reconcile: () => Promise<void>): Promise<void> {
    const end = this.reconcileDuration.startTimer();
    let result: ReconcileResult = ReconcileResult.Error;
    try {
      await reconcile();
      result = ReconcileResult.Success;
    } finally {
      end({ result });
      this.reconciles.inc({ result });
    }
  }

  checked(profile: string, verdict: CheckVerdict, seconds: number): void {
    this.checks.inc({ profile, verdict });
    this.checkDuration.observe({ profile }, seconds);
  }

  holdEnded(outcome: HoldOutcome, seconds: number): void {
    this.holdDuration.observe({ outcome }, seconds);
  }

  refused(token: RefusalToken): void {
    this.refusals.inc({ token });
  }

  /**
   * Every scrape sets the held-job gauges from `tally`'s counts, which its informer events keep
   * up to date: a scrape reads numbers, and walks no cache (a follower sets none).
   */
  countHeldJobsFrom(tally: { counts(): HeldJobCounts }): void {
    this.onScrape = () => this.setHeldJobCounts(this.isLeader() ? tally.counts() : undefined);
  }

  /** The per-phase and per-profile gauges; a follower (counts undefined) exports none, so sums over replicas count each HeldJob once. */
  setHeldJobCounts(counts: HeldJobCounts | undefined): void {
    this.heldJobs.reset();
    this.heldByProfile.reset();
    if (!counts) return;
    for (const [phase, n] of counts.byPhase) this.heldJobs.set({ phase }, n);
    for (const [profile, n] of counts.heldByProfile) this.heldByProfile.set({ profile }, n);
  }
}
