// The operator's Prometheus metrics. Labels are closed vocabularies or operator-declared
// names (profiles, phases, tokens): nothing an issue author typed.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CheckVerdict } from '../api/check-verdict.js';
import type { RefusalToken } from '../api/vocabulary.js';
import type { HeldJobCounts } from './controller/held-job-gauges.js';

export class OperatorMetrics {
  readonly registry = new Registry();
  /** Set by the wiring: refreshes the gauges read from the informer cache, on every scrape. */
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
  readonly afterLateness = new Histogram({
    name: 'waitgate_after_wake_lateness_seconds',
    help: 'How late the operator woke for an after instant.',
    buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 30],
    registers: [this.registry],
  });
  readonly forgeReports = new Counter({
    name: 'waitgate_forge_reports_total',
    help: 'Reports to the forges, by forge and outcome (posted, found already posted, gaveUp).',
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

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'waitgate_operator_' });
  }

  checked(profile: string, verdict: CheckVerdict, seconds: number): void {
    this.checks.inc({ profile, verdict });
    this.checkDuration.observe({ profile }, seconds);
  }

  refused(token: RefusalToken): void {
    this.refusals.inc({ token });
  }

  setHeldJobCounts(counts: HeldJobCounts): void {
    for (const [phase, n] of counts.byPhase) this.heldJobs.set({ phase }, n);
    this.heldByProfile.reset();
    for (const [profile, n] of counts.heldByProfile) this.heldByProfile.set({ profile }, n);
  }
}
