import type { WaitCondition } from './heldjob-schema.js';
import { parseInstant } from './instant.js';

/** `after 2026-09-01T09:00Z + jira + approval release-managers`: the conditions in one line, in UTC. */
export function waitLabel(conditions: readonly WaitCondition[]): string {
  if (conditions.length === 0) return '-';
  return conditions
    .map((c) => {
      if ('after' in c) {
        const p = parseInstant(c.after);
        return `after ${p.ok ? formatUtc(p.epochMs) : c.after}`;
      }
      if ('approval' in c) return `approval ${c.approval}`;
      return c.profile;
    })
    .join(' + ');
}

function formatUtc(epochMs: number): string {
  const iso = new Date(epochMs).toISOString(); // 2026-09-01T09:00:00.000Z
  if (iso.endsWith(':00.000Z')) return `${iso.slice(0, 16)}Z`;
  if (iso.endsWith('.000Z')) return `${iso.slice(0, 19)}Z`;
  return iso;
}
