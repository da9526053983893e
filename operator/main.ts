// The operator's entry point: configuration, wiring, and nothing else.
import * as k8s from '@kubernetes/client-node';
import type { HeldJobObject } from './api/heldjob-schema.js';
import { API_GROUP, API_VERSION, HELDJOB_PLURAL, Labels } from './api/vocabulary.js';
import { RestartingInformer } from './adapters/informer.js';
import { loadKubeConfig } from './adapters/kube-client.js';
import { KubeHeldJobs } from './adapters/kube-heldjobs.js';
import { buildJob, JOB_LABEL_SELECTOR, KubeJobs, observeJob } from './adapters/kube-jobs.js';
import { ConfigError, parseOperatorConfig, type OperatorConfig } from './config/config.js';
import { systemClock } from './controller/clock.js';
import { keyOf, Reconciler } from './controller/reconciler.js';
import { WakeTimers } from './controller/wake-timers.js';
import { WorkQueue } from './controller/work-queue.js';
import { createRootLogger } from './logger.js';

type HeldJobK8s = HeldJobObject & k8s.KubernetesObject;

function readConfig(): OperatorConfig {
  try {
    return parseOperatorConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const p of err.problems) process.stderr.write(`waitgate-operator: ${p.variable}: ${p.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  const log = createRootLogger('waitgate-operator', config.logLevel);
  if (config.wait.intervalFloored) {
    log.warn({ variable: 'WAITGATE_WAIT_INTERVAL_MS', floorMs: config.wait.intervalMs }, 'Raised wait interval to its floor');
  }
  const kc = loadKubeConfig(config.kubeconfigPath);
  const ns = config.watchNamespace;
  const heldJobsApi = new KubeHeldJobs(kc, 'waitgate-operator');
  const jobsApi = new KubeJobs(kc);

  const queue = new WorkQueue(
    (key) => reconciler.reconcile(key),
    { workers: config.reconcileWorkers, retryBaseMs: 250, retryMaxMs: 60_000 },
    (key, err, retryInMs) => log.error({ heldjob: key, err, retryInMs }, 'Failed to reconcile'),
  );
  const waker = new WakeTimers(systemClock, (key) => queue.add(key));

  const jobInformer = new RestartingInformer<k8s.V1Job>({
    kubeConfig: kc,
    path: ns ? `/apis/batch/v1/namespaces/${ns}/jobs` : '/apis/batch/v1/jobs',
    list: () => jobsApi.list(ns),
    labelSelector: JOB_LABEL_SELECTOR,
    log,
    onEvent: (_event, job) => {
      const owner = job.metadata?.labels?.[Labels.heldJob];
      if (owner && job.metadata?.namespace) queue.add(keyOf(job.metadata.namespace, owner));
    },
  });
  const heldJobInformer = new RestartingInformer<HeldJobK8s>({
    kubeConfig: kc,
    path: ns
      ? `/apis/${API_GROUP}/${API_VERSION}/namespaces/${ns}/${HELDJOB_PLURAL}`
      : `/apis/${API_GROUP}/${API_VERSION}/${HELDJOB_PLURAL}`,
    list: () => heldJobsApi.list(ns),
    log,
    onEvent: (event, hj) => {
      const key = keyOf(hj.metadata.namespace, hj.metadata.name);
      if (event === 'delete') waker.cancel(key);
      queue.add(key);
    },
  });

  const reconciler = new Reconciler({
    heldJobs: { get: (name, namespace) => heldJobInformer.get(name, namespace) },
    jobs: { get: (name, namespace) => jobInformer.get(name, namespace) },
    writer: heldJobsApi,
    launcher: jobsApi,
    buildJob,
    observeJob,
    waker,
    clock: systemClock,
    config: { afterMaxMs: config.wait.afterMaxMs },
    log,
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'Stopping');
    queue.stop();
    waker.stop();
    await Promise.allSettled([heldJobInformer.stop(), jobInformer.stop()]);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // Jobs first, so the first pass over HeldJobs already sees what was launched before a restart.
  await jobInformer.start();
  await heldJobInformer.start();
  log.info(
    { watchNamespace: ns || '(all)', workerName: config.workerName, heldJobs: heldJobInformer.list().length },
    'Started',
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`waitgate-operator: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
