// Builders for fixtures.
import { API_GROUP, API_VERSION, HELDJOB_KIND } from '../../api/vocabulary.js';

export interface HeldJobFixture {
  name?: string;
  target?: string;
  trigger?: string;
  waitFor?: object[];
  /** Exit code the kwok Stage ends the Job's Pod with; "never" keeps it running. */
  exitCode?: number | 'never';
  /** How long the Pod runs before it exits (Go duration). */
  runFor?: string;
  /** The Job's ttlSecondsAfterFinished: the TTL controller removes it that long after it ends. */
  jobTtlSeconds?: number;
  /** The forge label the receiver puts on what it makes (waitgate.dev/forge); none by hand. */
  forge?: string;
}

export function heldJob(f: HeldJobFixture = {}): Record<string, unknown> {
  const annotations: Record<string, string> = {};
  if (f.exitCode !== undefined) annotations['waitgate.dev/exit-code'] = String(f.exitCode);
  if (f.runFor !== undefined) annotations['waitgate.dev/run-for'] = f.runFor;
  return {
    apiVersion: `${API_GROUP}/${API_VERSION}`,
    kind: HELDJOB_KIND,
    metadata: { name: f.name ?? 'web-7-deploy', ...(f.forge ? { labels: { 'waitgate.dev/forge': f.forge } } : {}) },
    spec: {
      target: f.target ?? 'acme/web#7',
      trigger: f.trigger ?? 'deploy',
      ...(f.waitFor ? { waitFor: f.waitFor } : {}),
      job: {
        backoffLimit: 0,
        ...(f.jobTtlSeconds === undefined ? {} : { ttlSecondsAfterFinished: f.jobTtlSeconds }),
        template: {
          metadata: { annotations },
          spec: { restartPolicy: 'Never', containers: [{ name: 'deploy', image: 'busybox' }] },
        },
      },
    },
  };
}

/** An `after` instant `ms` from now, to the second (rounded up), in UTC. */
export function afterIn(ms: number): { after: string; atMs: number } {
  const atMs = Math.ceil((Date.now() + ms) / 1000) * 1000;
  return { after: new Date(atMs).toISOString().replace('.000Z', 'Z'), atMs };
}
