// One chaos run on the local cluster: holds of every kind (after, exec and pod profiles,
// direct and through the receiver), two operator replicas with leader election, and faults
// on a schedule: the leader SIGKILLed at chosen moments, Valkey restarted, kube-apiserver
// restarted and frozen, running Jobs deleted, deliveries sent again after their dedup window.
// Everything seen on the way is recorded; audit.ts judges it.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { API_GROUP, API_VERSION, ConditionType, HELDJOB_PLURAL, isTerminal, type Phase } from '../../api/vocabulary.js';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { loadKubeConfig, statusCodeOf } from '../../lib/kube/client.js';
import { RestartingInformer } from '../../lib/kube/informer.js';
import { audit, type FaultSpan, type Limits, type SeenHeldJob, type SeenJob, type Verdict } from './audit.js';
import { ApiserverFaults } from './control-plane-faults.js';
import {
  DeliveryTrigger,
  EXEC_PROFILE,
  HoldKind,
  HoldSource,
  planPopulation,
  POD_PROFILE,
  targetKey,
  type PlannedHold,
} from './population.js';
import { OwnRedisServer } from './redis-server.js';
import { TcpProxy } from '../../lib/net/tcp-proxy.js';
import { freePort, inParallel, seededRandom, sleep } from '../common.js';

export const KillMoment = { Check: 'mid-check', Launch: 'mid-launch', StatusWrite: 'mid-status-write' } as const;
export type KillMoment = (typeof KillMoment)[keyof typeof KillMoment];
const KILL_MOMENTS = Object.values(KillMoment);

export interface ChaosOptions {
  readonly holds: number;
  readonly seed: number;
  /** Conditions clear over this span; the faults other than kills fall inside it. */
  readonly spreadMs: number;
  readonly kills: number;
  /** Valkey restarts, in order: `true` keeps its keys (a snapshot is loaded), `false` loses them. */
  readonly valkeyRestarts: readonly boolean[];
  readonly apiserverRestarts: number;
  /** One SIGSTOP of kube-apiserver this long; 0 for none. */
  readonly apiserverFreezeMs: number;
  readonly jobDeletions: number;
  readonly redeliveries: number;
  /** Holds whose spec a user edits in the middle of their launch (status says Launched Unknown). */
  readonly launchEdits: number;
  /** Holds a user cancels (kubectl delete) in the middle of their launch. */
  readonly launchCancels: number;
  /** Finished holds a GitOps tool applies again (server-side apply), half of them with a changed spec. */
  readonly reapplies: number;
  /**
   * One partition of the operators from Valkey (stalled, then cut), the apiserver still
   * reachable, this long; 0 for none. Longer than a lease (120 s), it adds a repository whose
   * two places are held by Jobs running through it and two more holds due during it.
   */
  readonly valkeyPartitionMs: number;
  readonly limits: Limits;
  readonly kubeconfig: string;
  /** The local cluster's state folder: needed to restart or freeze kube-apiserver. */
  readonly clusterDir: string | undefined;
  /** Operator and receiver logs, scripts' state. */
  readonly workDir: string;
  /** How long, after the last fault, every hold has to end. */
  readonly settleMs: number;
  readonly say: (line: string) => void;
}

export interface FaultCounts {
  kills: Record<string, number>;
  valkeyRestarts: { keptKeys: number; lostKeys: number };
  apiserverRestarts: number;
  apiserverFreezes: number;
  jobDeletions: number;
  redeliveries: number;
  launchEdits: number;
  launchCancels: number;
  reapplies: number;
  valkeyPartitions: number;
  /** Longest a leaderless gap lasted after a kill, ms. */
  longestTakeoverMs: number;
}

export interface ChaosReport {
  readonly verdict: Verdict;
  readonly faults: FaultCounts;
  readonly seconds: number;
  readonly namespace: string;
}

const GITHUB_SECRET = 'chaos-github-secret';
const LEASE_NAME = 'waitgate-operator';

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, stepMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await Promise.resolve(probe()).catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(stepMs);
  }
}

/** The exec profile: counts its own runs (the audit's side of "checks lost"), answers go once its target's instant has come. */
function execScript(dir: string): string {
  return `#!/bin/sh
t=$(printf '%s' "$1" | tr '/#!' '___')
date +%s%N >> "${dir}/runs/$t"
at=$(cat "${dir}/clear-at/$t" 2>/dev/null) || exit 1
[ "$(date +%s)" -ge "$at" ] && exit 0
exit 3
`;
}

function jobTemplate(runForS: number): object {
  return {
    backoffLimit: 0,
    template: {
      metadata: { annotations: { 'waitgate.dev/run-for': `${runForS}s` } },
      spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] },
    },
  };
}

function waitFor(h: PlannedHold): object[] {
  const w: object[] = [];
  if (h.afterAt !== undefined) w.push({ after: new Date(h.afterAt).toISOString() });
  if (h.kind === HoldKind.Exec || h.kind === HoldKind.AfterExec) w.push({ profile: EXEC_PROFILE });
  if (h.kind === HoldKind.Pod) w.push({ profile: POD_PROFILE });
  return w;
}

interface Delivery {
  readonly target: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

function githubLabeled(h: PlannedHold): Delivery {
  const [repo, number] = h.target.split('#') as [string, string];
  const trigger = DeliveryTrigger[h.kind as keyof typeof DeliveryTrigger];
  const body = Buffer.from(
    JSON.stringify({
      action: 'labeled',
      label: { name: trigger.label },
      repository: { full_name: repo },
      issue: { number: Number(number), title: 'chaos', user: { login: 'chaos' } },
    }),
  );
  return {
    target: h.target,
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'issues',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${createHmac('sha256', GITHUB_SECRET).update(body).digest('hex')}`,
    },
  };
}

/** One of the two operator replicas: restarted after a kill, as a kubelet would. */
class Replica {
  child: ChildProcess | undefined;
  private starts = 0;
  constructor(
    private readonly id: string,
    private readonly env: Record<string, string>,
    private readonly logDir: string,
  ) {}

  start(): void {
    const child = spawn(process.execPath, ['dist/operator/main.js'], { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = createWriteStream(join(this.logDir, `operator-${this.id}-${this.starts++}.log`), { flags: 'a' });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
    this.child = child;
  }

  get pid(): number | undefined {
    const c = this.child;
    return c && c.exitCode === null && c.signalCode === null ? c.pid : undefined;
  }

  async kill(signal: NodeJS.Signals): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill(signal);
    await exited;
  }

  /** Started again once it has exited: killed, or a leader that lost its lease and stepped down by exiting. */
  keepAlive(): void {
    if (this.child && this.pid === undefined) this.start();
  }
}

/** Whether a process has a child right now: for an operator, a check script running. */
function hasChild(pid: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/task`).some((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim() !== '');
  } catch {
    return false;
  }
}

const SAMPLE_SLOTS_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function live(k) return redis.call('ZCOUNT', k, '(' .. now, '+inf') end
local scope = 0
for _, k in ipairs(redis.call('KEYS', ARGV[1] .. ':{scope}:key:*')) do
  local n = live(k)
  if n > scope then scope = n end
end
return {live(ARGV[1] .. ':{checks}:slots'), live(ARGV[1] .. ':{scope}:all'), scope}
`;

/** Where in the spread the Valkey partition begins. */
const PARTITION_AT = 0.55;

/**
 * The holds of the repository the Valkey partition is about: `scope` of them launch 20 s
 * before it and run through it and a minute past, so its places are all taken while their
 * leases cannot be renewed; two more come due 10 s into it. Those two must wait for the long
 * ones to end, partition or not: the audit's "Jobs running for one scope" says if not.
 */
export function partitionHolds(partitionAt: number, partitionMs: number, scope: number): PlannedHold[] {
  const hold = (i: number, afterAt: number, runForS: number): PlannedHold => ({
    name: `cp-${i}`,
    source: HoldSource.Direct,
    kind: HoldKind.After,
    target: `acme/partitioned#${i + 1}`,
    repo: 'acme/partitioned',
    afterAt,
    clearAt: undefined,
    runForS,
  });
  const long = Math.ceil((partitionMs + 80_000) / 1000);
  return [
    ...Array.from({ length: scope }, (_, i) => hold(i, partitionAt - 20_000, long)),
    ...Array.from({ length: 2 }, (_, i) => hold(scope + i, partitionAt + 10_000, 10)),
  ];
}

export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  const random = seededRandom(o.seed ^ 0x5eed);
  const log = pino({ level: 'error' });
  const kc = loadKubeConfig(o.kubeconfig, { requestTimeoutMs: 10_000 });
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const batch = kc.makeApiClient(k8s.BatchV1Api);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const coord = kc.makeApiClient(k8s.CoordinationV1Api);
  const ns = `chaos-${Date.now().toString(36)}`;
  const prefix = `chaos-${ns}`;
  mkdirSync(join(o.workDir, 'runs'), { recursive: true });
  mkdirSync(join(o.workDir, 'clear-at'), { recursive: true });
  await core.createNamespace({ body: { metadata: { name: ns } } });

  const valkey = await OwnRedisServer.start();
  const sampler = new Redis(valkey.url, { maxRetriesPerRequest: 1, retryStrategy: () => 200 });
  sampler.on('error', () => undefined);

  // --- the plan ---------------------------------------------------------------------------
  const creatingMs = Math.max(10_000, o.holds * 30);
  const t0 = Date.now() + creatingMs;
  const deliveryAfterAt = Math.ceil((t0 + o.spreadMs / 3) / 1000) * 1000;
  const partitionAt = Math.ceil((t0 + PARTITION_AT * o.spreadMs) / 1000) * 1000;
  const plan = [
    ...planPopulation({ holds: o.holds, seed: o.seed, t0, spreadMs: o.spreadMs, perRepo: 10, deliveryAfterAt }),
    ...(o.valkeyPartitionMs > 0 ? partitionHolds(partitionAt, o.valkeyPartitionMs, o.limits.scope) : []),
  ];
  const planByTarget = new Map(plan.map((h) => [h.target, h]));
  for (const h of plan)
    if (h.clearAt !== undefined) writeFileSync(join(o.workDir, 'clear-at', targetKey(h.target)), `${h.clearAt / 1000}\n`);

  const profiles = {
    [EXEC_PROFILE]: { mode: 'exec', script: 'chaos-exec.sh' },
    [POD_PROFILE]: { mode: 'pod', script: 'chaos-pod.sh', image: 'busybox', annotations: { 'waitgate.dev/exit-code': 'never' } },
  };
  await core.createNamespacedConfigMap({
    namespace: ns,
    body: {
      metadata: { name: 'waitgate-profiles' },
      data: { 'profiles.json': JSON.stringify(profiles), 'chaos-exec.sh': execScript(o.workDir), 'chaos-pod.sh': '#!/bin/sh\nexit 0\n' },
    },
  });
  const triggers = Object.entries(DeliveryTrigger).map(([kind, t]) => ({
    name: t.name,
    on: { type: 'label', any: [t.label] },
    run: {
      kind: 'github',
      flow: 'deploy',
      waitFor: waitFor({ kind: kind as HoldKind, afterAt: kind === HoldKind.After ? deliveryAfterAt : undefined } as PlannedHold),
      job: jobTemplate(8),
    },
  }));
  await core.createNamespacedConfigMap({
    namespace: ns,
    body: { metadata: { name: 'waitgate-triggers' }, data: { 'triggers.json': JSON.stringify(triggers) } },
  });

  // --- what is seen on the way ------------------------------------------------------------
  const terminalPhasesSeen = new Map<string, Set<string>>();
  const jobsSeen = new Map<
    string,
    { name: string; owner: string; createdAt: number; endedAt: number | undefined; completedAt: number | undefined; remained?: boolean }
  >();
  const checkPods = new Map<string, Map<string, number>>(); // HeldJob name -> check Pod uid -> when first seen
  const answered = new Set<string>();
  const heldJobWaiters: ((h: HeldJobObject) => boolean)[] = [];
  const heldJobs = new RestartingInformer<HeldJobObject & k8s.KubernetesObject>({
    kubeConfig: kc,
    path: `/apis/${API_GROUP}/${API_VERSION}/namespaces/${ns}/${HELDJOB_PLURAL}`,
    list: () =>
      custom.listNamespacedCustomObject({ group: API_GROUP, version: API_VERSION, plural: HELDJOB_PLURAL, namespace: ns }) as Promise<
        k8s.KubernetesListObject<HeldJobObject & k8s.KubernetesObject>
      >,
    log,
    onEvent: (event, h) => {
      const phase = h.status?.phase;
      if (isTerminal(phase)) {
        const seen = terminalPhasesSeen.get(h.metadata.name) ?? new Set<string>();
        seen.add(phase as Phase);
        terminalPhasesSeen.set(h.metadata.name, seen);
      }
      if (event !== 'update') return;
      for (let i = heldJobWaiters.length - 1; i >= 0; i--)
        if ((heldJobWaiters[i] as (h: HeldJobObject) => boolean)(h)) heldJobWaiters.splice(i, 1);
    },
  });
  const jobEnd = (j: k8s.V1Job): number | undefined => {
    if (j.status?.completionTime) return new Date(j.status.completionTime).getTime();
    const failed = j.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
    return failed?.lastTransitionTime ? new Date(failed.lastTransitionTime).getTime() : undefined;
  };
  const jobs = new RestartingInformer<k8s.V1Job>({
    kubeConfig: kc,
    path: `/apis/batch/v1/namespaces/${ns}/jobs`,
    list: () => batch.listNamespacedJob({ namespace: ns }),
    log,
    onEvent: (event, j) => {
      const uid = j.metadata?.uid as string;
      const owner = j.metadata?.ownerReferences?.find((r) => r.kind === 'HeldJob')?.name ?? '?';
      const prev = jobsSeen.get(uid);
      const completedAt = j.status?.completionTime ? new Date(j.status.completionTime).getTime() : prev?.completedAt;
      jobsSeen.set(uid, {
        name: j.metadata?.name as string,
        owner,
        createdAt: new Date(j.metadata?.creationTimestamp as Date).getTime(),
        // A Job deleted before it ended (a cancel's, the garbage collector's) stops running then.
        endedAt: jobEnd(j) ?? prev?.endedAt ?? (event === 'delete' ? Math.floor(Date.now() / 1000) * 1000 : undefined),
        completedAt,
      });
    },
  });
  const answerPod = async (pod: k8s.V1Pod) => {
    const a = pod.metadata?.annotations ?? {};
    const uid = pod.metadata?.uid as string;
    if (a['waitgate.dev/profile'] !== POD_PROFILE || pod.metadata?.deletionTimestamp) return;
    const holdName = (a['waitgate.dev/heldjob'] ?? '').split('/').pop() ?? '';
    const ofHold = checkPods.get(holdName) ?? new Map<string, number>();
    if (!ofHold.has(uid)) ofHold.set(uid, Date.now());
    checkPods.set(holdName, ofHold);
    if (a['waitgate.dev/exit-code'] !== 'never' || answered.has(uid)) return;
    answered.add(uid);
    const target = heldJobs.get(holdName, ns)?.spec as { target?: string } | undefined;
    const plan = target?.target ? planByTarget.get(target.target) : undefined;
    const code = plan?.clearAt !== undefined && Date.now() >= plan.clearAt ? '0' : '3';
    await core
      .patchNamespacedPod(
        { name: pod.metadata?.name as string, namespace: ns, body: { metadata: { annotations: { 'waitgate.dev/exit-code': code } } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      )
      .catch(() => answered.delete(uid)); // answered again on its next event
  };
  const pods = new RestartingInformer<k8s.V1Pod>({
    kubeConfig: kc,
    path: `/api/v1/namespaces/${ns}/pods`,
    list: () => core.listNamespacedPod({ namespace: ns }),
    log,
    onEvent: (event, p) => {
      if (event !== 'delete') void answerPod(p);
    },
  });
  await Promise.all([heldJobs.start(), jobs.start(), pods.start()]);
  // Pods whose patch failed are answered again here, not only on their next event.
  const reanswer = setInterval(() => pods.list(ns).forEach((p) => void answerPod(p)), 2_000);

  const highs = { checkSlots: 0, all: 0, scope: 0, samples: 0 };
  let sampling = true;
  const sampling$ = (async () => {
    while (sampling) {
      try {
        const [c, a, s] = (await sampler.eval(SAMPLE_SLOTS_LUA, 0, prefix)) as [number, number, number];
        highs.checkSlots = Math.max(highs.checkSlots, c);
        highs.all = Math.max(highs.all, a);
        highs.scope = Math.max(highs.scope, s);
        highs.samples++;
      } catch {
        // Valkey restarting: no sample.
      }
      await sleep(100);
    }
  })();

  // --- the processes ----------------------------------------------------------------------
  const receiverPort = await freePort();
  const common = {
    PATH: process.env['PATH'] ?? '',
    KUBECONFIG: o.kubeconfig,
    VALKEY_URL: valkey.url,
    WAITGATE_VALKEY_PREFIX: prefix,
    WAITGATE_NAMESPACE: ns,
    WAITGATE_LOG_LEVEL: 'info',
  };
  const receiver = spawn(process.execPath, ['dist/receiver/main.js'], {
    env: {
      ...common,
      WAITGATE_JOB_NAMESPACE: ns,
      WAITGATE_RECEIVER_HOST: '127.0.0.1',
      WAITGATE_RECEIVER_PORT: String(receiverPort),
      WAITGATE_RECEIVER_METRICS_HOST: '127.0.0.1',
      WAITGATE_RECEIVER_METRICS_PORT: '0',
      WAITGATE_GITHUB_WEBHOOK_SECRET: GITHUB_SECRET,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const receiverLog = createWriteStream(join(o.workDir, 'receiver.log'));
  receiver.stdout?.pipe(receiverLog);
  receiver.stderr?.pipe(receiverLog);
  const receiverUrl = `http://127.0.0.1:${receiverPort}`;
  // The operators reach Valkey through a proxy the partition cuts; the receiver goes direct.
  const valkeyProxy = new TcpProxy('127.0.0.1', valkey.port);
  await valkeyProxy.start();
  const operatorEnv = {
    ...common,
    VALKEY_URL: `redis://127.0.0.1:${valkeyProxy.port}`,
    WAITGATE_WATCH_NAMESPACE: ns,
    WAITGATE_LEADER_ELECTION: 'true',
    WAITGATE_METRICS_HOST: '127.0.0.1',
    WAITGATE_METRICS_PORT: '0',
    WAITGATE_CONCURRENCY: String(o.limits.concurrency),
    WAITGATE_SCOPE_LIMIT: String(o.limits.scope),
    WAITGATE_WAIT_CHECK_SLOTS: String(o.limits.checkSlots),
    WAITGATE_WAIT_INTERVAL_MS: '30000',
  };
  const replicas = [new Replica('a', operatorEnv, o.workDir), new Replica('b', operatorEnv, o.workDir)];
  replicas.forEach((r) => r.start());
  const keepAlive = setInterval(() => replicas.forEach((r) => r.keepAlive()), 1_000);

  const faults: FaultCounts = {
    kills: Object.fromEntries(KILL_MOMENTS.map((m) => [m, 0])),
    valkeyRestarts: { keptKeys: 0, lostKeys: 0 },
    apiserverRestarts: 0,
    apiserverFreezes: 0,
    jobDeletions: 0,
    redeliveries: 0,
    launchEdits: 0,
    launchCancels: 0,
    reapplies: 0,
    valkeyPartitions: 0,
    longestTakeoverMs: 0,
  };
  /** Holds cancelled mid-launch, by target; holds edited mid-launch, by name. */
  const cancelled = new Map<string, { name: string; at: number }>();
  const edited = new Set<string>();
  const jobsDeleted = new Set<string>();
  const faultSpans: FaultSpan[] = [];
  /** Runs a fault, noting when it began and when it was over. */
  const spanOf = async <T>(fault: () => Promise<T>): Promise<T> => {
    const start = Date.now();
    try {
      return await fault();
    } finally {
      faultSpans.push({ start, end: Date.now() });
    }
  };
  const redeliveries = { sent: 0, answered2xx: 0 };
  let verdict: Verdict;
  try {
    await until('the receiver to answer', async () => ((await fetch(`${receiverUrl}/healthz`)).ok ? true : undefined), 60_000);

    // --- the holds ------------------------------------------------------------------------
    const deliveries: Delivery[] = [];
    const post = async (d: Delivery) => {
      const res = await fetch(`${receiverUrl}/webhooks/github`, { method: 'POST', headers: d.headers, body: d.body });
      await res.text();
      return res.status;
    };
    await inParallel(plan, 16, async (h) => {
      if (h.source === HoldSource.Direct) {
        await until(
          `HeldJob ${h.name} to be created`,
          async () => {
            try {
              await custom.createNamespacedCustomObject({
                group: API_GROUP,
                version: API_VERSION,
                plural: HELDJOB_PLURAL,
                namespace: ns,
                body: {
                  apiVersion: `${API_GROUP}/${API_VERSION}`,
                  kind: 'HeldJob',
                  metadata: { name: h.name },
                  spec: { target: h.target, trigger: 'chaos', waitFor: waitFor(h), job: jobTemplate(h.runForS) },
                },
              });
              return true;
            } catch (err) {
              if ((err as { code?: number }).code === 409) return true;
              throw err;
            }
          },
          60_000,
          1_000,
        );
      } else {
        const d = githubLabeled(h);
        deliveries.push(d);
        await until(
          `the delivery for ${h.target} to be answered 2xx`,
          async () => ((await post(d)) < 300 ? true : undefined),
          60_000,
          1_000,
        );
      }
    });
    o.say(
      `chaos: ${plan.length} holds in ${ns} (seed ${o.seed}) created in ${Math.round((Date.now() - started) / 1000)}s; conditions clear over ${o.spreadMs / 1000}s from ${new Date(t0).toISOString()}`,
    );

    // --- the faults -----------------------------------------------------------------------
    const at = (fraction: number) => sleep(Math.max(0, t0 + fraction * o.spreadMs - Date.now()));
    const apiserver = o.clusterDir
      ? new ApiserverFaults(o.clusterDir, async () => {
          await core.readNamespace({ name: ns });
          return true;
        })
      : undefined;
    if ((o.apiserverRestarts > 0 || o.apiserverFreezeMs > 0) && !apiserver) throw new Error('apiserver faults need the cluster folder');

    const leader = async (): Promise<Replica | undefined> => {
      const lease = await coord.readNamespacedLease({ name: LEASE_NAME, namespace: ns }).catch(() => undefined);
      const pid = Number((lease?.spec?.holderIdentity ?? '').split('-').at(-2));
      return replicas.find((r) => r.pid === pid);
    };
    const moment = (m: KillMoment, pid: number): Promise<void> => {
      switch (m) {
        case KillMoment.Check:
          // No check within the 20 s the caller waits (Valkey cut off, say): the caller's "no
          // moment" answers, never this wait's timeout (the two used to race, and the run died).
          return until('a check to run', () => (hasChild(pid) || pods.list(ns).some(isRunningCheckPod) ? true : undefined), 25_000, 5).then(
            () => undefined,
            () => new Promise<void>(() => undefined),
          );
        case KillMoment.Launch:
          return new Promise((resolve) =>
            heldJobWaiters.push((h) => {
              const launched = h.status?.conditions?.find((c) => c.type === ConditionType.Launched);
              if (launched?.status !== 'Unknown') return false;
              resolve();
              return true;
            }),
          );
        case KillMoment.StatusWrite:
          return new Promise((resolve) =>
            heldJobWaiters.push(() => {
              resolve();
              return true;
            }),
          );
      }
    };
    const killing = (async () => {
      await at(0.02);
      for (let k = 0; k < o.kills; k++) {
        const victim = await until('a leader', leader, 120_000, 250);
        const m = KILL_MOMENTS[k % KILL_MOMENTS.length] as KillMoment;
        await sleep(1_000 + random() * 4_000);
        const pid = victim.pid;
        if (pid === undefined) continue;
        // At the moment asked for, or after 20 s without one (then counted as it is).
        const hit = await Promise.race([moment(m, pid).then(() => m), sleep(20_000).then(() => 'no moment' as const)]);
        faultSpans.push({ start: Date.now(), end: Date.now() });
        await victim.kill('SIGKILL');
        faults.kills[hit] = (faults.kills[hit] ?? 0) + 1;
        const killedAt = Date.now();
        await until('another leader', async () => ((await leader()) ? true : undefined), 120_000, 250);
        faults.longestTakeoverMs = Math.max(faults.longestTakeoverMs, Date.now() - killedAt);
      }
    })();
    const restartingValkey = (async () => {
      for (const [i, keep] of o.valkeyRestarts.entries()) {
        await at(0.15 + 0.35 * i);
        await spanOf(() => valkey.restart({ keepKeys: keep }));
        if (keep) faults.valkeyRestarts.keptKeys++;
        else faults.valkeyRestarts.lostKeys++;
        o.say(`chaos: Valkey restarted, ${keep ? 'keys kept' : 'keys lost'}`);
      }
    })();
    const apiserverFaults = (async () => {
      for (let i = 0; i < o.apiserverRestarts; i++) {
        await at(0.35 + 0.1 * i);
        await spanOf(async () => apiserver?.restart());
        faults.apiserverRestarts++;
        o.say('chaos: kube-apiserver restarted');
      }
      if (o.apiserverFreezeMs > 0) {
        await at(0.7);
        await spanOf(async () => apiserver?.freeze(o.apiserverFreezeMs));
        faults.apiserverFreezes++;
        o.say(`chaos: kube-apiserver frozen for ${o.apiserverFreezeMs / 1000}s`);
      }
    })();
    const deletingJobs = (async () => {
      for (let i = 0; i < o.jobDeletions; i++) {
        await at(0.1 + (0.8 * i) / Math.max(1, o.jobDeletions));
        await until(
          'a running Job to delete',
          async () => {
            const running = heldJobs
              .list(ns)
              .filter((h) => h.status?.phase === 'Running' && h.status.jobName && !jobsDeleted.has(h.metadata.name))
              .filter((h) => [...jobsSeen.values()].some((j) => j.name === h.status?.jobName && j.endedAt === undefined));
            const h = running[Math.floor(random() * running.length)];
            if (!h) return undefined;
            await batch.deleteNamespacedJob({ name: h.status?.jobName as string, namespace: ns, propagationPolicy: 'Background' });
            jobsDeleted.add(h.metadata.name);
            for (const j of jobsSeen.values()) if (j.name === h.status?.jobName) j.endedAt = Math.floor(Date.now() / 1000) * 1000;
            faults.jobDeletions++;
            return true;
          },
          60_000,
          1_000,
        ).catch(() => o.say('chaos: no running Job to delete within 60s'));
      }
    })();
    const redelivering = (async () => {
      for (let i = 0; i < o.redeliveries && deliveries.length > 0; i++) {
        await at(0.05 + (0.85 * i) / Math.max(1, o.redeliveries));
        const d = deliveries[Math.floor(random() * deliveries.length)] as Delivery;
        // The dedup window has passed: its markers are gone, as they would be by expiry.
        const keys = await sampler.keys(`${prefix}:delivery:*`).catch(() => [] as string[]);
        if (keys.length > 0) await sampler.del(...keys).catch(() => undefined);
        redeliveries.sent++;
        faults.redeliveries++;
        const ok = await until(
          `the redelivery for ${d.target} to be answered 2xx`,
          async () => ((await post(d)) < 300 ? true : undefined),
          120_000,
          2_000,
        )
          .then(() => true)
          .catch(() => false);
        if (ok) redeliveries.answered2xx++;
      }
    })();
    /**
     * The next hold seen in the middle of its launch (Launched Unknown: armed ahead of its
     * instant, or launched by an older operator and not yet recorded) that nothing else has
     * touched. An armed hold is armed in the write that holds it, long before its instant, so
     * the ones already armed are looked at first, the one whose instant is nearest first.
     */
    const touched = new Set<string>();
    const launching = (h: HeldJobObject): boolean => {
      const launched = h.status?.conditions?.find((c) => c.type === ConditionType.Launched);
      const target = (h.spec as { target?: string } | undefined)?.target ?? '';
      return launched?.status === 'Unknown' && !touched.has(h.metadata.name) && planByTarget.has(target) && !h.metadata.deletionTimestamp;
    };
    const instantOf = (h: HeldJobObject): number => {
      const after = (h.spec as { waitFor?: { after?: string }[] } | undefined)?.waitFor?.find((c) => c.after !== undefined)?.after;
      const ms = after === undefined ? Number.NaN : Date.parse(after);
      return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
    };
    const nextLaunching = (): Promise<HeldJobObject> => {
      const now = Date.now();
      const armed = heldJobs
        .list(ns)
        .filter((h) => launching(h) && instantOf(h) > now)
        .sort((a, b) => instantOf(a) - instantOf(b))[0];
      if (armed) {
        touched.add(armed.metadata.name);
        return Promise.resolve(armed);
      }
      return new Promise((resolve) =>
        heldJobWaiters.push((h) => {
          if (!launching(h)) return false;
          touched.add(h.metadata.name);
          resolve(h);
          return true;
        }),
      );
    };
    const midLaunch = (count: number, first: number, act: (h: HeldJobObject) => Promise<void>) =>
      (async () => {
        for (let i = 0; i < count; i++) {
          await at(first + (0.6 * i) / Math.max(1, count));
          const h = await Promise.race([nextLaunching(), sleep(60_000).then(() => undefined)]);
          if (!h) {
            o.say('chaos: no launch to catch within 60s');
            continue;
          }
          await act(h).catch((err: unknown) => o.say(`chaos: ${h.metadata.name}: ${String(err)}`));
        }
      })();
    const editing = midLaunch(o.launchEdits, 0.12, async (h) => {
      edited.add(h.metadata.name);
      // An unknown field and a changed Job: the launch goes on with the Job it built.
      await custom.patchNamespacedCustomObject(
        {
          group: API_GROUP,
          version: API_VERSION,
          plural: HELDJOB_PLURAL,
          namespace: ns,
          name: h.metadata.name,
          body: { spec: { note: 'edited mid-launch by chaos', job: { backoffLimit: 2 } } },
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      faults.launchEdits++;
    });
    const cancelling = midLaunch(o.launchCancels, 0.14, async (h) => {
      const target = (h.spec as { target: string }).target;
      // As a user would: a delete the apiserver did not answer (restarted, frozen) is sent again
      // until it is answered; the cancel counts from the send that was. Counted from a send that
      // never arrived, a hold that then launched as it should would read as cancelled and run on.
      const deadline = Date.now() + 90_000;
      for (;;) {
        const at = Date.now();
        try {
          await custom.deleteNamespacedCustomObject({
            group: API_GROUP,
            version: API_VERSION,
            plural: HELDJOB_PLURAL,
            namespace: ns,
            name: h.metadata.name,
          });
        } catch (err) {
          const code = statusCodeOf(err);
          // 404: an earlier send was carried out, its answer lost.
          if (code !== 404) {
            if ((code !== undefined && code < 500 && code !== 429) || Date.now() > deadline) throw err;
            o.say(`chaos: ${h.metadata.name}: cancel not answered (${String(err)}); sending it again`);
            await sleep(1_000);
            continue;
          }
        }
        cancelled.set(target, { name: h.metadata.name, at });
        break;
      }
      faults.launchCancels++;
    });
    const reapplied = new Set<string>();
    const reapplying = (async () => {
      // A GitOps tool syncing its manifests again once the holds it made have run: the same
      // manifest (a label of its own added), or one changed since it ran. Neither runs anything.
      for (let i = 0; i < o.reapplies; i++) {
        await at(0.5 + (0.45 * i) / Math.max(1, o.reapplies));
        // A finished direct hold not applied again yet: there may be none for a while.
        const p = await until(
          'a finished hold to apply again',
          () => {
            const done = plan.filter(
              (x) =>
                x.source === HoldSource.Direct &&
                x.name !== undefined &&
                !reapplied.has(x.name) &&
                heldJobs.get(x.name, ns)?.status?.phase === 'Succeeded',
            );
            return done[Math.floor(random() * done.length)];
          },
          120_000,
          1_000,
        ).catch(() => undefined);
        if (!p?.name) {
          o.say('chaos: no finished hold to apply again within 120s');
          continue;
        }
        reapplied.add(p.name);
        const changed = i % 2 === 1;
        await custom
          .patchNamespacedCustomObject(
            {
              group: API_GROUP,
              version: API_VERSION,
              plural: HELDJOB_PLURAL,
              namespace: ns,
              name: p.name,
              fieldManager: 'chaos-gitops',
              force: true,
              body: {
                apiVersion: `${API_GROUP}/${API_VERSION}`,
                kind: 'HeldJob',
                metadata: { name: p.name, labels: { 'app.kubernetes.io/managed-by': 'chaos-gitops' } },
                spec: {
                  target: p.target,
                  trigger: 'chaos',
                  waitFor: waitFor(p),
                  job: changed ? jobTemplate(p.runForS + 1) : jobTemplate(p.runForS),
                },
              },
            },
            k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply),
          )
          .then(() => faults.reapplies++)
          .catch((err: unknown) => o.say(`chaos: re-apply of ${p.name ?? '?'}: ${String(err)}`));
      }
    })();
    const partitioning = (async () => {
      if (o.valkeyPartitionMs <= 0) return;
      await sleep(Math.max(0, partitionAt - Date.now()));
      await spanOf(async () => {
        // Black-holed first (a partition drops packets), then the stalled connections cut, as
        // their keepalives would, and the way open again.
        valkeyProxy.stall();
        await sleep(o.valkeyPartitionMs);
        await valkeyProxy.cut();
        await valkeyProxy.restore();
      });
      faults.valkeyPartitions++;
      o.say(`chaos: the operators were cut off from Valkey for ${o.valkeyPartitionMs / 1000}s (the apiserver reachable)`);
    })();
    await Promise.all([
      killing,
      restartingValkey,
      apiserverFaults,
      deletingJobs,
      redelivering,
      editing,
      cancelling,
      reapplying,
      partitioning,
    ]);
    o.say(`chaos: faults done at ${Math.round((Date.now() - started) / 1000)}s; waiting up to ${o.settleMs / 1000}s for every hold to end`);

    // --- the end --------------------------------------------------------------------------
    const settleBy = Math.max(Date.now(), t0 + o.spreadMs) + o.settleMs;
    let lastProgress = Date.now();
    await until(
      'every hold to end',
      () => {
        const all = heldJobs.list(ns);
        if (Date.now() - lastProgress >= 60_000) {
          lastProgress = Date.now();
          const byPhase: Record<string, number> = {};
          for (const h of all) byPhase[h.status?.phase ?? 'none'] = (byPhase[h.status?.phase ?? 'none'] ?? 0) + 1;
          o.say(
            `chaos: ${Object.entries(byPhase)
              .map(([p, n]) => `${p} ${n}`)
              .join(', ')}`,
          );
        }
        return all.length >= plan.length - cancelled.size && all.every((h) => isTerminal(h.status?.phase)) ? true : undefined;
      },
      Math.max(0, settleBy - Date.now()),
      1_000,
    ).catch(() => undefined);
    const final = await until(
      'the HeldJobs',
      () =>
        custom.listNamespacedCustomObject({ group: API_GROUP, version: API_VERSION, plural: HELDJOB_PLURAL, namespace: ns }) as Promise<{
          items: HeldJobObject[];
        }>,
      60_000,
      1_000,
    );
    for (const j of (await until('the Jobs', () => batch.listNamespacedJob({ namespace: ns }), 60_000, 1_000)).items) {
      const seen = jobsSeen.get(j.metadata?.uid as string);
      if (seen && seen.endedAt === undefined) seen.endedAt = jobEnd(j);
      if (seen && !j.metadata?.deletionTimestamp) seen.remained = true;
    }
    const seenHeld: SeenHeldJob[] = final.items.map((h) => ({
      name: h.metadata.name,
      target: (h.spec as { target?: string } | undefined)?.target ?? '?',
      phase: h.status?.phase,
      reason: h.status?.reason || undefined,
      checks: h.status?.checks ?? 0,
    }));
    const checksRun = new Map<string, number[]>();
    for (const h of plan) {
      let lines: string[] = [];
      try {
        lines = readFileSync(join(o.workDir, 'runs', targetKey(h.target)), 'utf8')
          .split('\n')
          .filter(Boolean);
      } catch {
        // never ran
      }
      checksRun.set(
        h.target,
        lines.map((ns) => Math.floor(Number(ns) / 1e6)),
      );
    }
    for (const h of seenHeld) {
      const pods = checkPods.get(h.name);
      if (pods) checksRun.set(h.target, [...(checksRun.get(h.target) ?? []), ...pods.values()]);
    }
    verdict = audit({
      plan,
      heldJobs: seenHeld,
      terminalPhasesSeen,
      jobs: [...jobsSeen.values()] satisfies SeenJob[],
      checksRun,
      faultSpans,
      jobsDeleted,
      cancelled,
      edited,
      slotHighs: { ...highs },
      limits: o.limits,
      redeliveries,
    });
  } finally {
    clearInterval(keepAlive);
    clearInterval(reanswer);
    sampling = false;
    await sampling$;
    await Promise.all(replicas.map((r) => r.kill('SIGTERM')));
    receiver.kill('SIGTERM');
    await Promise.all([heldJobs.stop(), jobs.stop(), pods.stop()]);
    sampler.disconnect();
    await valkeyProxy.cut();
    await valkey.stop();
    await core.deleteNamespace({ name: ns }).catch(() => undefined);
  }
  return { verdict, faults, seconds: Math.round((Date.now() - started) / 1000), namespace: ns };
}

function isRunningCheckPod(p: k8s.V1Pod): boolean {
  return p.metadata?.annotations?.['waitgate.dev/profile'] === POD_PROFILE && !['Succeeded', 'Failed'].includes(p.status?.phase ?? '');
}
