// The operator's entry point: configuration, wiring, and nothing else.
import * as k8s from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectValkey } from '../lib/valkey/connection.js';
import { ValkeyKeys } from '../lib/valkey/keys.js';
import { Slots } from '../lib/valkey/slots.js';
import type { HeldJobObject } from '../api/heldjob-schema.js';
import type { Profile } from '../api/profiles.js';
import { API_GROUP, API_VERSION, HELDJOB_PLURAL } from '../api/vocabulary.js';
import { ConfigMapViews } from './adapters/config-maps.js';
import { PodCheckRunner } from './checks/pod-check.js';
import { DEFAULT_LEADER_TIMING, KubeLeases, LeaderElector } from './adapters/leader-election.js';
import { RestartingInformer } from '../lib/kube/informer.js';
import { loadKubeConfig } from '../lib/kube/client.js';
import { KubeHeldJobs } from './adapters/kube-heldjobs.js';
import { JOB_LABEL_SELECTOR, KubeJobs } from './adapters/kube-jobs.js';
import { mountedScriptPath, ProfileScripts } from './checks/profile-scripts.js';
import { configOrExit } from '../lib/config/env.js';
import { checkEnvironment } from '../api/check-env.js';
import { parseOperatorConfig } from '../api/config/operator-config.js';
import { systemClock } from './controller/clock.js';
import { keyOf, splitKey } from './controller/object-key.js';
import { Reconciler } from './controller/reconciler.js';
import { JobTombstones } from './controller/job-tombstones.js';
import { heldJobOwnerOf } from './decide/job.js';
import { HeldJobTally } from './controller/held-job-gauges.js';
import { runningHolders, ScopeRenewal, scopeRenewEveryMs } from './controller/scope-renewal.js';
import { ModeCheckRunner } from './checks/mode-runner.js';
import { WakeTimers } from './controller/wake-timers.js';
import { RECONCILE_RETRY_BASE_MS, RECONCILE_RETRY_MAX_MS, WorkQueue } from './controller/work-queue.js';
import { effectiveCheckSlots } from '../api/cadence.js';
import { overallJobLimit } from '../api/job-cap.js';
import { checkLeaseTtlMs, SlottedCheckGate } from './checks/slotted-check-runner.js';
import { ValkeyMarkers } from './adapters/valkey-markers.js';
import { LEADERS_ON_AN_INDEX, ValkeyScopeSlots } from './adapters/valkey-scope-slots.js';
import { ScopeOvercommitReporter } from './controller/scope-overcommit.js';
import { createOperatorServer } from './http-server.js';
import { createRootLogger } from '../lib/logger.js';
import { OperatorMetrics } from './metrics.js';
import { reportingForges } from '../api/config/operator-config.js';
import { GitHubForge } from './forge/github.js';
import { forgeClientsOf } from './forge/index.js';
import { Redeliverer } from './forge/redeliverer.js';
import { ForgeReporter } from './forge/reporter.js';
import { DEFAULT_RETRY_POLICY } from './forge/retry-policy.js';
import { StatusReportRecords } from './forge/status-records.js';

/**
 * On SIGTERM, in-flight reconciles get this long to finish (inside the Pod's 30 s grace period)
 * before they are abandoned. Only a drained operator releases its Lease.
 */
const SHUTDOWN_DRAIN_MS = 20_000;

/** One call to a forge's API gives up after this long (and may be tried again). */
const FORGE_CALL_TIMEOUT_MS = 10_000;

type HeldJobK8s = HeldJobObject & k8s.KubernetesObject;

async function main(): Promise<void> {
  const config = configOrExit('waitgate-operator', () => parseOperatorConfig(process.env));
  // Exec checks see an allow-list of the operator's environment (all of it only when opted in),
  // chosen here and nowhere else.
  const checkEnv: Readonly<Record<string, string>> = checkEnvironment(process.env, config.checkEnv);
  const log = createRootLogger('waitgate-operator', config.logLevel);
  if (process.pid === 1) {
    // Killed check processes whose parent already exited are reparented to PID 1; node never
    // waits for them, so each would stay a zombie holding a pid.
    log.warn({ pid: process.pid }, 'Started as PID 1 without an init: processes ended with a check will stay zombies; run under tini');
  }
  if (config.checkEnv.inherit) {
    log.warn(
      { variable: 'WAITGATE_CHECK_ENV_INHERIT' },
      "Passed the operator's whole environment to exec checks, Valkey URL and every secret in it included",
    );
  }
  if (config.wait.intervalFloored) {
    log.warn({ variable: 'WAITGATE_WAIT_INTERVAL_MS', floorMs: config.wait.intervalMs }, 'Raised wait interval to its floor');
  }
  const slotLimit = effectiveCheckSlots(config.wait.checkSlots, config.concurrency);
  // No cap unless set: the overall scope semaphore then gets a limit no fleet reaches.
  const jobLimit = overallJobLimit(config.concurrency);
  if (config.concurrency === 1) {
    log.warn(
      { checkSlots: slotLimit },
      'WAITGATE_CONCURRENCY is 1: one check slot all the same, the one configuration where checks cannot be kept below the Jobs',
    );
  } else if (slotLimit < config.wait.checkSlots) {
    log.warn({ configured: config.wait.checkSlots, effective: slotLimit }, 'Held check slots below WAITGATE_CONCURRENCY');
  }

  const kc = loadKubeConfig(config.kubeconfigPath);
  const ns = config.watchNamespace;
  const metrics = new OperatorMetrics();
  const redis = connectValkey(config.valkeyUrl, { caFile: config.valkeyCaFile });
  redis.on('error', (err) => log.debug({ err }, 'Valkey connection error'));
  const slots = new Slots(redis);
  const keys = new ValkeyKeys(config.valkeyPrefix);
  // The pod's hostname is its name: which replica recorded an Event (reportingInstance).
  const heldJobsApi = new KubeHeldJobs(kc, { component: 'waitgate-operator', instance: hostname() });
  const jobsApi = new KubeJobs(kc, () => systemClock.now());
  const scripts = config.profilesDir ? undefined : new ProfileScripts(mkdtempSync(join(tmpdir(), 'waitgate-profiles-')));
  const scriptPath = (p: Profile) =>
    config.profilesDir ? mountedScriptPath(config.profilesDir, p.script) : (scripts as ProfileScripts).pathOf(p.script);

  const podChecks = new PodCheckRunner({
    kubeConfig: kc,
    namespace: config.namespace,
    configMap: config.configMaps.profiles,
    worker: config.workerName,
    timeoutMs: config.wait.checkTimeoutMs,
    startTimeoutMs: config.podStartTimeoutMs,
    sweepIntervalMs: config.checkPodSweepMs,
    defaults: config.checkPodDefaults,
    log,
  });
  const checkGate = new SlottedCheckGate({
    slots,
    runner: new ModeCheckRunner(
      { scriptPath, timeoutMs: config.wait.checkTimeoutMs, killGraceMs: config.wait.killGraceMs, env: checkEnv },
      podChecks,
    ),
    metrics: {
      checked: (profile, verdict, seconds) => metrics.checked(profile, verdict, seconds),
      slotDenied: () => metrics.slotDenials.inc(),
      capacityExceeded: () => metrics.capacityExceeded.inc(),
      queued: () => metrics.checksQueuedTotal.inc(),
      started: (seconds) => metrics.checkLateness.observe(seconds),
    },
    log,
    now: () => systemClock.now(),
    // Each namespace's checks within its fair share of the fleet's slots (docs/gate.md#check-slots).
    slotKeys: { fleet: keys.checkSlots(), active: keys.checkActive(), ofNamespace: (namespace) => keys.checkSlotsOf(namespace) },
    slotLimit,
    workerName: config.workerName,
    uidOf: (key) => heldJobInformer.get(splitKey(key).name, splitKey(key).namespace)?.metadata.uid,
    checksOf: (key) => heldJobInformer.get(splitKey(key).name, splitKey(key).namespace)?.status?.checks,
    // A pod check may take its start timeout before its own timeout begins: the slot outlives both.
    leaseTtlMs: checkLeaseTtlMs(config.podStartTimeoutMs + config.wait.checkTimeoutMs, config.wait.killGraceMs),
    knobs: { checkSlots: config.wait.checkSlots, intervalMs: config.wait.intervalMs, concurrency: config.concurrency },
    onPlaceFreed: (key) => queue.addFirst(key),
  });

  metrics.checksQueuedNow = () => checkGate.queuedChecks;

  const queue = new WorkQueue(
    (key) => metrics.timeReconcile(() => reconciler.reconcile(key)),
    {
      workers: config.reconcileWorkers,
      retryBaseMs: RECONCILE_RETRY_BASE_MS,
      retryMaxMs: RECONCILE_RETRY_MAX_MS,
      laneOf: (key) => reconciler.lane(key),
    },
    (key, err, retryInMs) => {
      metrics.workQueueRetries.inc();
      log.error({ heldjob: key, err, retryInMs }, 'Failed to reconcile');
    },
  );
  metrics.queueDepth = () => queue.length;
  const waker = new WakeTimers(systemClock, (key) => queue.add(key));
  metrics.wakesArmed = () => waker.size;

  const enqueueAll = () => {
    for (const hj of heldJobInformer.list()) queue.add(keyOf(hj.metadata.namespace, hj.metadata.name));
  };
  const views = new ConfigMapViews({
    kubeConfig: kc,
    namespace: config.namespace,
    names: config.configMaps,
    log,
    checkImage: config.checkImage,
    onChange: (data, profiles) => {
      if (scripts && data) scripts.sync(data, profiles);
      metrics.triggersReadable.set(views.triggers().state === 'ok' ? 1 : 0);
      metrics.profilesReadable.set(views.profiles().state === 'ok' ? 1 : 0);
      if (heldJobInformer.hasSynced) enqueueAll();
    },
  });

  const tombstones = new JobTombstones(() => systemClock.now());
  const jobInformer = new RestartingInformer<k8s.V1Job>({
    kubeConfig: kc,
    path: ns ? `/apis/batch/v1/namespaces/${ns}/jobs` : '/apis/batch/v1/jobs',
    list: (page) => jobsApi.list(ns, page),
    labelSelector: JOB_LABEL_SELECTOR,
    // The decisions read a Job's metadata and status only (observeJob); its pod template is
    // the largest part of it and is never read back.
    trim: (job) => {
      delete job.spec;
    },
    log,
    onRestart: () => metrics.informerRestarts.inc({ informer: 'jobs' }),
    onEvent: (event, job) => {
      if (event === 'delete') tombstones.remember(job);
      else if (event === 'add') tombstones.forget(job);
      // Found by its owner reference (the label holds a hashed name when the name is long).
      const owner = heldJobOwnerOf(job);
      if (owner && job.metadata?.namespace) {
        queue.add(keyOf(job.metadata.namespace, owner));
        if (event !== 'delete' && heldJobsSynced) liftOrphanedFence(job);
      }
    },
  });
  // A fenced Job being deleted whose HeldJob is gone has its fence lifted; judged only once the
  // HeldJob informer has listed (before that, every owner looks gone).
  let heldJobsSynced = false;
  const liftOrphanedFence = (job: k8s.V1Job): void => {
    const owner = heldJobOwnerOf(job);
    const namespace = job.metadata?.namespace;
    if (!owner || !namespace || !job.metadata?.deletionTimestamp) return;
    const seen = heldJobInformer.get(owner, namespace)?.metadata.uid;
    void reconciler
      .liftOrphanedFence(job, seen)
      .catch((err: unknown) => log.warn({ job: job.metadata?.name, err }, 'Failed to lift the launch fence of an orphaned Job'));
  };
  const heldJobTally = new HeldJobTally({ list: () => heldJobInformer.list() });
  const heldJobInformer: RestartingInformer<HeldJobK8s> = new RestartingInformer<HeldJobK8s>({
    kubeConfig: kc,
    path: ns
      ? `/apis/${API_GROUP}/${API_VERSION}/namespaces/${ns}/${HELDJOB_PLURAL}`
      : `/apis/${API_GROUP}/${API_VERSION}/${HELDJOB_PLURAL}`,
    list: (page) => heldJobsApi.list(ns, page),
    log,
    onRestart: () => metrics.informerRestarts.inc({ informer: 'heldjobs' }),
    onListed: () => heldJobTally.relisted(),
    onEvent: (event, hj) => {
      heldJobTally.observe(event, hj);
      const key = keyOf(hj.metadata.namespace, hj.metadata.name);
      if (event === 'delete') waker.cancel(key);
      // A cancel must not wait behind the check it cancels: stop that check now.
      if (event === 'delete' || hj.metadata.deletionTimestamp) checkGate.cancel(key);
      if (event === 'delete') {
        void reconciler.forget(hj).catch((err: unknown) => log.warn({ heldjob: key, err }, 'Failed to clean up after a deleted HeldJob'));
        return;
      }
      queue.add(key);
    },
  });

  // Reporting back to the forges: only those with credentials; only the leader (it alone runs
  // the reconciler and this loop). Both run beside the gate, never in its way.
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  const comments = forgeClientsOf(config.forge, FORGE_CALL_TIMEOUT_MS);
  const github = comments.github instanceof GitHubForge ? comments.github : undefined;
  const forges = reportingForges(config.forge);
  const reporter =
    forges.length > 0
      ? new ForgeReporter({
          comments,
          records: new StatusReportRecords(
            { get: (name, namespace) => heldJobInformer.get(name, namespace) },
            heldJobsApi,
            () => systemClock.now(),
            sleep,
          ),
          policy: DEFAULT_RETRY_POLICY,
          now: () => systemClock.now(),
          sleep,
          metrics: { reported: (forge, outcome) => metrics.forgeReports.inc({ forge, outcome }) },
          log,
        })
      : undefined;
  const redeliverer = github
    ? new Redeliverer({
        github,
        hooks: config.forge.redeliverHooks,
        intervalMs: config.forge.redeliverIntervalMs,
        now: () => systemClock.now(),
        log,
        metrics: { redelivered: (outcome) => metrics.redeliveries.inc({ outcome }) },
      })
    : undefined;

  const heldJobByUid = (uid: string) => heldJobInformer.list().find((hj) => hj.metadata.uid === uid);
  const overcommits = new ScopeOvercommitReporter({
    limits: { all: jobLimit, scope: config.scopeLimit },
    heldJobOf: heldJobByUid,
    events: heldJobsApi,
    metrics: { overcommitted: () => metrics.scopeOvercommits.inc(), overLimits: (n) => metrics.scopesOvercommitted.set(n) },
    log,
    now: () => systemClock.now(),
  });
  const scope = new ValkeyScopeSlots(slots, keys, jobLimit, config.scopeLimit, () => runningHolders(heldJobInformer.list()), {
    leaseTtlMs: config.scopeLeaseTtlMs,
    deployment: { worker: config.workerName, watchNamespace: ns },
    presence: {
      leaders: {
        here: async (key, token, ttlMs) => {
          await slots.acquire([key], [LEADERS_ON_AN_INDEX], token, ttlMs);
          return slots.holders(key);
        },
      },
      token: randomBytes(9).toString('hex'),
    },
    onKept: (places, complete) => overcommits.report(places, complete),
  });
  const reconciler = new Reconciler({
    heldJobs: { get: (name, namespace) => heldJobInformer.get(name, namespace) },
    jobs: { get: (name, namespace) => jobInformer.get(name, namespace), lastSeen: (name, namespace) => tombstones.get(name, namespace) },
    writer: heldJobsApi,
    launcher: jobsApi,
    scope,
    checks: checkGate,
    markers: new ValkeyMarkers(redis, keys),
    views,
    metrics: {
      refused: (token) => metrics.refused(token),
      afterLateness: (ms) => metrics.afterLateness.observe(ms / 1000),
      scopeDeferred: () => metrics.scopeDeferrals.inc(),
      holdEnded: (outcome, seconds) => metrics.holdEnded(outcome, seconds),
    },
    waker,
    clock: systemClock,
    random: Math.random,
    config: {
      afterMaxMs: config.wait.afterMaxMs,
      intervalMs: config.wait.intervalMs,
      maxMs: config.wait.maxMs,
      maxChecks: config.wait.maxChecks,
      maxFaults: config.wait.maxFaults,
      pauseWindows: config.pauseWindows,
      reports: forges.length > 0 ? { transitions: config.forge.report, forges, namespaces: config.forge.reportNamespaces } : undefined,
      finishedTtlMs: config.finishedTtlMs,
    },
    log,
    reports: reporter,
    requeue: (key) => queue.add(key),
  });

  // The held-job gauges are kept from the informer's events; a scrape reads the counts only.
  metrics.countHeldJobsFrom(heldJobTally);
  const renewal = new ScopeRenewal(
    () => heldJobInformer.list(),
    scope,
    log,
    () => systemClock.now(),
    scopeRenewEveryMs(config.scopeLeaseTtlMs),
    () => heldJobInformer.hasSynced && metrics.isLeader(),
  );
  renewal.start();

  const lease = `${config.namespace}/${config.leaderElection.leaseName}`;
  const elector = config.leaderElection.enabled
    ? new LeaderElector({
        ...DEFAULT_LEADER_TIMING,
        leases: new KubeLeases(kc, config.namespace, config.leaderElection.leaseName),
        lease,
        identity: `${config.workerName}-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
        log,
        now: () => systemClock.now(),
      })
    : undefined;

  metrics.isLeader = () => elector === undefined || elector.isLeader;

  // A follower is ready: it stands by. The leader is ready once its caches are synced.
  const server = createOperatorServer(
    metrics.registry,
    () => (elector !== undefined && !elector.isLeader) || (heldJobInformer.hasSynced && redis.status === 'ready'),
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'Stopping');
    // Take no new work, let what is running finish (or give up on it), and only then let a
    // follower lead: releasing first would let two reconcile at once.
    queue.stop();
    waker.stop();
    renewal.stop();
    void redeliverer?.stop();
    let drainTimer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      queue.whenIdle().then(() => true),
      new Promise<boolean>((resolve) => (drainTimer = setTimeout(() => resolve(false), SHUTDOWN_DRAIN_MS))),
    ]);
    clearTimeout(drainTimer);
    if (drained) await elector?.release();
    else log.warn({ drainMs: SHUTDOWN_DRAIN_MS }, 'Abandoned in-flight reconciles; left the Lease to expire');
    server.close();
    await Promise.allSettled([heldJobInformer.stop(), jobInformer.stop(), views.stop(), podChecks.stop()]);
    redis.disconnect();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await new Promise<void>((resolve) => server.listen(config.metricsPort, config.metricsHost, resolve));
  const addr = server.address();
  if (elector) {
    log.info({ lease }, 'Waiting to lead');
    // A leader that has not renewed within the renew deadline exits there and then, before any
    // follower may take over, so two never reconcile together.
    await elector.run(() => process.exit(1));
  }
  // The ConfigMaps and the Jobs first, so the first pass over HeldJobs sees what is already there.
  await views.start();
  await podChecks.start();
  await jobInformer.start();
  await heldJobInformer.start();
  heldJobsSynced = true;
  for (const job of jobInformer.list()) liftOrphanedFence(job);
  redeliverer?.start();
  log.info(
    {
      reportsTo: forges,
      redeliverHooks: config.forge.redeliverHooks.length,
      watchNamespace: ns || '(all)',
      workerName: config.workerName,
      concurrency: config.concurrency ?? 'none',
      scopeLimit: config.scopeLimit,
      checkSlots: slotLimit,
      heldJobs: heldJobInformer.list().length,
      metricsPort: typeof addr === 'object' && addr ? addr.port : config.metricsPort,
    },
    'Started',
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`waitgate-operator: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
