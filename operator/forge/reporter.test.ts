import { describe, expect, test } from '@jest/globals';
import pino from 'pino';
import type { ForgeReport } from '../../api/heldjob-schema.js';
import type { ForgeTarget, ReportRequest } from '../decide/report.js';
import { ForgeReporter, type ForgeComments, type ReportRecords } from './reporter.js';
import { ForgeHttpError } from './retry-policy.js';

const NOW = Date.parse('2026-09-01T08:00:00Z');
const report: ReportRequest = {
  heldJob: { name: 'web-7-deploy', namespace: 'team-a', uid: 'uid-1' },
  transition: 'refused',
  target: { forge: 'github', repository: 'acme/web', number: 7, mergeRequest: false },
  body: 'refused\n<!-- waitgate:uid-1:refused -->',
  marker: '<!-- waitgate:uid-1:refused -->',
  since: new Date(NOW - 600_000).toISOString(),
};

/** A forge in memory that answers each call from a script of failures first. */
class MemoryForge implements ForgeComments {
  readonly comments: { id: string; body: string }[] = [];
  readonly calls: string[] = [];
  constructor(private readonly failures: Error[] = []) {}
  async findMarked(_t: ForgeTarget, marker: string): Promise<string | undefined> {
    this.calls.push('list');
    const f = this.failures.shift();
    if (f) throw f;
    return this.comments.find((c) => c.body.includes(marker))?.id;
  }
  async post(_t: ForgeTarget, body: string): Promise<string> {
    this.calls.push('post');
    const id = String(this.comments.length + 1);
    this.comments.push({ id, body });
    return id;
  }
}

class MemoryRecords implements ReportRecords {
  readonly entries: ForgeReport[] = [];
  readonly warnings: string[] = [];
  async record(_h: ReportRequest['heldJob'], entry: ForgeReport): Promise<void> {
    this.entries.push(entry);
  }
  async warn(_h: ReportRequest['heldJob'], message: string): Promise<void> {
    this.warnings.push(message);
  }
}

function setUp(forge: MemoryForge) {
  const records = new MemoryRecords();
  const sleeps: number[] = [];
  const reporter = new ForgeReporter({
    comments: { github: forge },
    records,
    policy: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 10_000 },
    now: () => NOW,
    sleep: async (ms) => void sleeps.push(ms),
    log: pino({ level: 'silent' }),
  });
  return { reporter, records, sleeps };
}

describe('ForgeReporter', () => {
  test('posts once and records the comment', async () => {
    const forge = new MemoryForge();
    const { reporter, records } = setUp(forge);
    reporter.submit(report);
    reporter.submit(report); // the same report while the first is under way: not a second post
    await reporter.idle();
    expect(forge.calls).toEqual(['list', 'post']);
    expect(records.entries).toEqual([
      { transition: 'refused', outcome: 'Posted', at: new Date(NOW).toISOString(), commentId: '1', attempts: 1 },
    ]);
  });

  test('a skipped report sends nothing to the forge, not even a look, and records Skipped with its reason', async () => {
    const forge = new MemoryForge();
    const { reporter, records } = setUp(forge);
    reporter.submit({ ...report, skipped: 'not reported: not made by the receiver' });
    await reporter.idle();
    expect(forge.calls).toEqual([]);
    expect(records.entries).toEqual([
      { transition: 'refused', outcome: 'Skipped', at: new Date(NOW).toISOString(), skipped: 'not reported: not made by the receiver' },
    ]);
  });

  test('a comment already there (posted before a crash) is recorded, not posted again', async () => {
    const forge = new MemoryForge();
    forge.comments.push({ id: '77', body: `earlier\n${report.marker}` });
    const { reporter, records } = setUp(forge);
    reporter.submit(report);
    await reporter.idle();
    expect(forge.calls).toEqual(['list']);
    expect(records.entries[0]?.commentId).toBe('77');
  });

  test('5xx and rate limits are tried again with backoff', async () => {
    const forge = new MemoryForge([new ForgeHttpError(502, {}, 'list'), new ForgeHttpError(429, { 'retry-after': '2' }, 'list')]);
    const { reporter, records, sleeps } = setUp(forge);
    reporter.submit(report);
    await reporter.idle();
    expect(sleeps).toEqual([100, 2000]);
    expect(forge.comments).toHaveLength(1);
    expect(records.entries[0]).toMatchObject({ outcome: 'Posted', attempts: 3 });
  });

  test('gives up after the bound, records it and warns', async () => {
    const down = () => new Error('connect ECONNREFUSED 127.0.0.1:1');
    const forge = new MemoryForge([down(), down(), down(), down()]);
    const { reporter, records, sleeps } = setUp(forge);
    reporter.submit(report);
    await reporter.idle();
    expect(sleeps).toEqual([100, 200]);
    expect(forge.comments).toHaveLength(0);
    expect(records.entries).toEqual([
      { transition: 'refused', outcome: 'GaveUp', at: new Date(NOW).toISOString(), attempts: 3, error: 'connect ECONNREFUSED 127.0.0.1:1' },
    ]);
    expect(records.warnings).toEqual(['Gave up reporting refused to github after 3 attempt(s): connect ECONNREFUSED 127.0.0.1:1']);
  });

  test('a refusal from the forge (404) gives up at once', async () => {
    const forge = new MemoryForge([new ForgeHttpError(404, {}, 'list comments')]);
    const { reporter, records, sleeps } = setUp(forge);
    reporter.submit(report);
    await reporter.idle();
    expect(sleeps).toEqual([]);
    expect(records.entries[0]).toMatchObject({ outcome: 'GaveUp', attempts: 1, error: 'HTTP 404' });
  });
});
