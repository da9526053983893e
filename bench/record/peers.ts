// The peers of the `after` precision row, measured the way waitgate's lateness is:
// - BullMQ delayed jobs on the same redis-server: lateness = when the worker starts the job
//   minus the instant it was delayed to.
// - CronJobs due at the next whole minute, run by the cluster's own cronjob controller:
//   lateness = when a watcher sees each Job minus that minute.
import * as k8s from '@kubernetes/client-node';
import { Queue, Worker } from 'bullmq';
import { deleteNamespaceAndWait, JobSightings, until } from './measure.js';
import { percentile } from './report.js';
import type { Lateness } from './wake-precision.js';

function summarize(late: readonly number[], count: number): Lateness {
  return { seen: late.length, missing: count - late.length, p50: percentile(late, 50), p99: percentile(late, 99), max: Math.max(...late) };
}

export async function bullmqLateness(valkeyUrl: string, count: number, windowMs: number): Promise<Lateness> {
  const url = new URL(valkeyUrl);
  const connection = { host: url.hostname, port: Number(url.port), maxRetriesPerRequest: null };
  const name = `bench-${Date.now().toString(36)}`;
  const queue = new Queue(name, { connection });
  const late: number[] = [];
  const worker = new Worker(
    name,
    (job) => {
      late.push(Date.now() - (job.data as { at: number }).at);
      return Promise.resolve();
    },
    { connection, concurrency: 50 },
  );
  try {
    await worker.waitUntilReady();
    const start = Math.ceil((Date.now() + 20_000) / 1000) * 1000;
    const at = Array.from({ length: count }, (_, i) => start + 7 + Math.floor((i * windowMs) / count));
    await queue.addBulk(at.map((instant, i) => ({ name: `d-${i}`, data: { at: instant }, opts: { delay: instant - Date.now() } })));
    await until(() => late.length >= count, start + windowMs + 60_000, 250);
    return summarize(late, count);
  } finally {
    await worker.close();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
  }
}

export async function cronJobLateness(kc: k8s.KubeConfig, count: number): Promise<Lateness> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const batch = kc.makeApiClient(k8s.BatchV1Api);
  const ns = `bench-cron-${Date.now().toString(36)}`;
  await core.createNamespace({ body: { metadata: { name: ns } } });
  const sightings = new JobSightings(kc, ns);
  await sightings.start();
  try {
    // The next whole minute at least 20 s away, so every CronJob exists before it.
    const minute = Math.ceil((Date.now() + 20_000) / 60_000) * 60_000;
    const d = new Date(minute);
    const schedule = `${d.getUTCMinutes()} ${d.getUTCHours()} * * *`;
    for (let i = 0; i < count; i++) {
      await batch.createNamespacedCronJob({
        namespace: ns,
        body: {
          metadata: { name: `c-${i}` },
          spec: {
            schedule,
            timeZone: 'Etc/UTC',
            jobTemplate: {
              spec: { suspend: true, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
            },
          },
        },
      });
    }
    await until(() => sightings.seen.size >= count, minute + 120_000, 250);
    return summarize(
      [...sightings.seen.values()].map((seen) => seen - minute),
      count,
    );
  } finally {
    sightings.stop();
    await deleteNamespaceAndWait(kc, ns);
  }
}
