// Records forge reports in the HeldJob's status (status.reports), through the same writer as
// every status write: optimistic, so a write from the reconciler in between is never lost, and
// tried again on a conflict, a bounded number of times.
import type { ForgeReport } from '../../api/heldjob-schema.js';
import { EventReason, EventType } from '../../api/vocabulary.js';
import { statusCodeOf } from '../../lib/kube/client.js';
import type { HeldJobSource, HeldJobWriter } from '../controller/ports.js';
import type { ReportRecords } from './reporter.js';
import type { ReportRequest } from '../decide/report.js';

const CONFLICT_TRIES = 6;

export class StatusReportRecords implements ReportRecords {
  constructor(
    private readonly heldJobs: HeldJobSource,
    private readonly writer: HeldJobWriter,
    private readonly now: () => number,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  async record(ref: ReportRequest['heldJob'], entry: ForgeReport): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const current = this.heldJobs.get(ref.name, ref.namespace);
      if (!current || current.metadata.uid !== ref.uid) return;
      const reports = current.status?.reports ?? [];
      if (reports.some((r) => r.transition === entry.transition)) return;
      try {
        await this.writer.writeStatus(current, { ...current.status, reports: [...reports, entry] });
        return;
      } catch (err) {
        // The cache is behind the apiserver: wait for it to catch up, then write on the newer object.
        if (statusCodeOf(err) !== 409 || attempt >= CONFLICT_TRIES) throw err;
        await this.sleep(200 * attempt);
      }
    }
  }

  async warn(ref: ReportRequest['heldJob'], message: string): Promise<void> {
    const current = this.heldJobs.get(ref.name, ref.namespace);
    if (!current || current.metadata.uid !== ref.uid) return;
    await this.writer.recordEvent(current, { type: EventType.Warning, reason: EventReason.ForgeReportGaveUp, message }, this.now());
  }
}
