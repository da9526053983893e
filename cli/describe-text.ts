// `waitgate describe NAME`: one HeldJob in words, as kubectl describe lays a resource out. Pure.
// The data is describe_held_job's (cli/mcp/describe.ts: one home for what a HeldJob shows, its
// strings already one line and bounded); this adds the layout and the HeldJob's last Events.
import { formatDuration, oneLine } from './format.js';
import { nextCheckText } from './held-output.js';
import type { DescribeData } from './mcp/schemas.js';

/** One Event of the HeldJob, as the apiserver keeps it (core/v1). */
export interface HeldJobEvent {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  /** The last time it was said (lastTimestamp, else eventTime, else its creation). */
  readonly at: string | undefined;
  readonly count: number;
}

/** Events shown, the newest last. */
export const DESCRIBE_EVENTS = 10;

function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r) => `  ${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] as number))).join('   ')}`.trimEnd());
}

const ago = (at: string | undefined, nowMs: number): string => {
  const ms = at === undefined ? NaN : Date.parse(at);
  return Number.isFinite(ms) ? `${formatDuration(nowMs - ms)} ago` : '-';
};

const counter = (n: number | null, max: number | null): string => `${n ?? 0}${max === null ? '' : `/${max}`}`;

export function describeLines(d: DescribeData, events: readonly HeldJobEvent[], nowMs: number): string[] {
  const s = d.status;
  const field = (label: string, value: string) => `${`${label}:`.padEnd(13)}${value}`;
  const lines = [
    field('Name', d.name),
    field('Namespace', d.namespace),
    field('Target', d.spec.target ?? '(unreadable target)'),
    ...(d.spec.trigger !== null ? [field('Trigger', d.spec.trigger)] : []),
    field('Wait for', d.spec.waitFor.map((w) => `${w.condition}: ${w.value}`).join(' + ') || '-'),
    field('Phase', `${s.phase}${s.reason !== null ? ` (${s.reason})` : ''}${d.deleting ? ', being deleted' : ''}`),
    ...(s.message !== null ? [field('Message', s.message)] : []),
    ...(s.heldSince !== null ? [field('Held since', `${s.heldSince} (waited ${formatDuration((s.waitedSeconds ?? 0) * 1000)})`)] : []),
    field('Next check', s.nextCheckAt === null ? '-' : `${s.nextCheckAt} (${nextCheckText(s.nextCheckAt, nowMs)})`),
    ...(s.releaseAt !== null ? [field('Releases at', s.releaseAt)] : []),
    ...(s.givesUpAt !== null ? [field('Gives up at', s.givesUpAt)] : []),
    ...(s.jobName !== null ? [field('Job', s.jobName)] : []),
    field(
      'Counters',
      [
        `checks ${counter(s.counters.checks, s.counters.maxChecks)}`,
        `faults ${counter(s.counters.faults, s.counters.maxFaults)}`,
        ...(s.counters.lastExitCode !== null ? [`last exit code ${s.counters.lastExitCode}`] : []),
        ...s.counters.profileFaults.map((p) => `${p.profile} faults ${p.faults}`),
      ].join(' · '),
    ),
    'Waits:',
    ...(s.waits.length === 0
      ? ['  (none)']
      : table(
          ['CONDITION', 'STATE', 'DETAIL'],
          s.waits.map((w) => [w.condition, w.state, w.detail ?? '']),
        )),
    'Conditions:',
    ...(s.conditions.length === 0
      ? ['  (none)']
      : table(
          ['TYPE', 'STATUS', 'REASON', 'MESSAGE'],
          s.conditions.map((c) => [c.type, c.status, c.reason ?? '', c.message ?? '']),
        )),
    'Events:',
    ...(events.length === 0
      ? ['  (none)']
      : table(
          ['LAST SEEN', 'TYPE', 'REASON', 'MESSAGE'],
          events.map((e) => [
            ago(e.at, nowMs),
            oneLine(e.type, 16),
            oneLine(e.reason, 64),
            `${oneLine(e.message, 300)}${e.count > 1 ? ` (x${e.count})` : ''}`,
          ]),
        )),
  ];
  return lines;
}
