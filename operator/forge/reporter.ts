// Posts the reports the decisions hand over, in the background: a forge that is slow or down
// delays no hold and no launch. Exactly once per transition: before posting it looks for an
// earlier post of the same comment (its hidden marker), and once the comment is there it
// records it in the HeldJob's status, after which the decisions stop asking for it. A crash
// between the post and the record leaves the marker, which the next try finds.
import type { Logger } from 'pino';
import { ReportOutcome } from '../../api/forge-reports.js';
import type { ForgeReport } from '../../api/heldjob-schema.js';
import { iso } from '../../api/time.js';
import type { Forge } from '../../api/vocabulary.js';
import type { ReportSink } from '../controller/ports.js';
import type { ForgeTarget, ReportRequest } from '../decide/report.js';
import { describeFailure, ForgeHttpError, retryDelayMs, type ForgeFailure, type RetryPolicy } from './retry-policy.js';

/** Comments on one forge. Failures throw: ForgeHttpError when the forge answered. */
export interface ForgeComments {
  /** The id of a comment on the target, posted at or after `since`, whose body holds `marker`. */
  findMarked(target: ForgeTarget, marker: string, since: string): Promise<string | undefined>;
  /** Posts the comment; its id. */
  post(target: ForgeTarget, body: string): Promise<string>;
}

/** Where reports are recorded: the HeldJob's status, and a Warning Event when one gave up. */
export interface ReportRecords {
  /** Adds the entry to status.reports (no-op when one for the transition is there, or the HeldJob is gone). */
  record(heldJob: ReportRequest['heldJob'], entry: ForgeReport): Promise<void>;
  warn(heldJob: ReportRequest['heldJob'], message: string): Promise<void>;
}

export interface ReporterMetrics {
  reported(forge: Forge, outcome: 'posted' | 'found' | 'gaveUp' | 'skipped'): void;
}

export interface ReporterDeps {
  readonly comments: Partial<Record<Forge, ForgeComments>>;
  readonly records: ReportRecords;
  readonly policy: RetryPolicy;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly metrics?: ReporterMetrics;
  readonly log: Logger;
}

export function failureOf(err: unknown): ForgeFailure {
  if (err instanceof ForgeHttpError) return { kind: 'http', status: err.status, headers: err.headers };
  return { kind: 'network', message: err instanceof Error ? err.message : String(err) };
}

export class ForgeReporter implements ReportSink {
  /** Reports being worked on, by HeldJob uid and transition: one try at a time (memory only; the marker covers a restart). */
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(private readonly deps: ReporterDeps) {}

  submit(report: ReportRequest): void {
    const key = `${report.heldJob.uid}:${report.transition}`;
    if (this.inFlight.has(key)) return;
    const work = this.run(report)
      .catch((err: unknown) => this.logOf(report).error({ err }, 'Failed to report to the forge'))
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, work);
  }

  /** Resolves once every report taken so far has ended (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight.values()]);
  }

  private logOf(report: ReportRequest): Logger {
    return this.deps.log.child({
      heldjob: `${report.heldJob.namespace}/${report.heldJob.name}`,
      forge: report.target.forge,
      transition: report.transition,
    });
  }

  private async run(report: ReportRequest): Promise<void> {
    const { deps } = this;
    const log = this.logOf(report);
    if (report.skipped !== undefined) {
      // Nothing goes to the forge, and the record says nothing the forge would have told.
      log.info({ skipped: report.skipped }, 'Skipped a report to the forge');
      deps.metrics?.reported(report.target.forge, 'skipped');
      await deps.records.record(report.heldJob, {
        transition: report.transition,
        outcome: ReportOutcome.Skipped,
        at: iso(deps.now()),
        skipped: report.skipped,
      });
      return;
    }
    const comments = deps.comments[report.target.forge];
    if (!comments) return;
    let failure: ForgeFailure | undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        const found = await comments.findMarked(report.target, report.marker, report.since);
        const commentId = found ?? (await comments.post(report.target, report.body));
        log.info({ commentId, attempt }, found ? 'Found the report already on the forge' : 'Reported to the forge');
        deps.metrics?.reported(report.target.forge, found ? 'found' : 'posted');
        await deps.records.record(report.heldJob, {
          transition: report.transition,
          outcome: ReportOutcome.Posted,
          at: iso(deps.now()),
          commentId,
          attempts: attempt,
        });
        return;
      } catch (err) {
        failure = failureOf(err);
        const delay = retryDelayMs(failure, attempt, deps.policy, deps.now());
        if (delay === undefined) return this.giveUp(report, failure, attempt, log);
        log.warn({ attempt, retryInMs: delay, failure: describeFailure(failure) }, 'Failed to report to the forge; will try again');
        await deps.sleep(delay);
      }
    }
  }

  private async giveUp(report: ReportRequest, failure: ForgeFailure, attempts: number, log: Logger): Promise<void> {
    const error = describeFailure(failure);
    log.warn({ attempts, failure: error }, 'Gave up reporting to the forge');
    this.deps.metrics?.reported(report.target.forge, 'gaveUp');
    await this.deps.records.record(report.heldJob, {
      transition: report.transition,
      outcome: ReportOutcome.GaveUp,
      at: iso(this.deps.now()),
      attempts,
      error,
    });
    await this.deps.records.warn(
      report.heldJob,
      `Gave up reporting ${report.transition} to ${report.target.forge} after ${attempts} attempt(s): ${error}`,
    );
  }
}
