// Deliveries: signed GitHub label deliveries sent to a real receiver process, 32 at a time,
// each for a target of its own, beside raw creates of the same number of HeldJobs at the
// same width in the same run. The receiver's rate is HeldJobs made a second (every 202 that
// says `held`, checked against the apiserver's count); its answer times are each request's.
// The receiver's costs (its CPU, the apiserver's requests per delivery) are taken beside the
// raw creates' and, with BENCH_CPU_PROF, it is profiled as the operators are.
import { createHmac, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { createHeldJobs, inParallel, listHeldJobs } from '../common.js';
import { startReceiverProcess } from '../receiver-process.js';
import { startCostMeter } from './cost-meter.js';
import { costLines } from './costs.js';
import { deleteNamespaceAndWait } from './measure.js';
import { cpuProfileFlags } from './operator.js';
import { Better, percentile, Target, type Row } from './report.js';

const LABEL = 'bench:deploy';
const WIDTH = 32;
/** GitHub marks a delivery failed when it is not answered within ten seconds. */
const GITHUB_TIMEOUT_MS = 10_000;

export interface DeliveriesOptions {
  readonly kc: k8s.KubeConfig;
  readonly count: number;
  readonly log: (line: string) => void;
}

/** One signed `issues labeled` delivery for `owner/repo-i#1`, as GitHub sends it. */
function labelDelivery(i: number, secret: string): { headers: Record<string, string>; body: Buffer } {
  const body = Buffer.from(
    JSON.stringify({
      action: 'labeled',
      label: { name: LABEL },
      repository: { full_name: `bench/repo-${String(i)}` },
      issue: { number: 1, title: 'bench', updated_at: new Date().toISOString(), node_id: randomUUID() },
    }),
  );
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'issues',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    },
  };
}

async function withNamespace<T>(kc: k8s.KubeConfig, prefix: string, fn: (ns: string) => Promise<T>): Promise<T> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const ns = `${prefix}-${Date.now().toString(36)}`;
  await core.createNamespace({ body: { metadata: { name: ns } } });
  try {
    return await fn(ns);
  } finally {
    await deleteNamespaceAndWait(kc, ns);
  }
}

export async function deliveryRows(o: DeliveriesOptions): Promise<Row[]> {
  const custom = o.kc.makeApiClient(k8s.CustomObjectsApi);
  const core = o.kc.makeApiClient(k8s.CoreV1Api);
  const indexes = Array.from({ length: o.count }, (_, i) => i);

  const { rawS, rawCosts } = await withNamespace(o.kc, 'bench-rawcreate', async (ns) => {
    const meter = await startCostMeter();
    const s = await createHeldJobs(custom, ns, 'd', indexes, () => [{ after: new Date(Date.now() + 3_600_000).toISOString() }]);
    return { rawS: s, rawCosts: await meter.stop(o.count, 'create') };
  });
  const rawRate = o.count / rawS;
  o.log(
    `deliveries: raw: ${o.count} HeldJobs created in ${rawS.toFixed(1)} s (${rawRate.toFixed(0)}/s); ${costLines(rawCosts).join('; ')}`,
  );

  return withNamespace(o.kc, 'bench-deliveries', async (ns) => {
    const job = { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } };
    const triggers = [{ name: 'bench', on: { type: 'label', any: [LABEL] }, run: { kind: 'github', flow: 'bench', job } }];
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'waitgate-triggers' }, data: { 'triggers.json': JSON.stringify(triggers) } },
    });
    const secrets = { githubSecret: `bench-${randomUUID()}`, gitlabToken: `bench-${randomUUID()}` };
    const receiver = await startReceiverProcess({
      namespace: ns,
      secrets,
      logPath: join(tmpdir(), `receiver-${ns}.log`),
      nodeOptions: cpuProfileFlags('receiver'),
    });
    try {
      const answers: number[] = [];
      let held = 0;
      const failed: string[] = [];
      const meter = await startCostMeter({ processes: { receiver: receiver.pid } });
      const t0 = Date.now();
      await inParallel(indexes, WIDTH, async (i) => {
        const d = labelDelivery(i, secrets.githubSecret);
        const sent = Date.now();
        const res = await fetch(`http://127.0.0.1:${String(receiver.port)}/webhooks/github`, {
          method: 'POST',
          headers: d.headers,
          body: d.body,
        });
        const text = await res.text();
        answers.push(Date.now() - sent);
        if (res.status === 202 && text.includes('"outcome":"held"')) held++;
        else if (failed.length < 5) failed.push(`${String(res.status)} ${text.slice(0, 200)}`);
      });
      const elapsedS = (Date.now() - t0) / 1000;
      const costs = await meter.stop(o.count, 'delivery');
      const made = (await listHeldJobs(custom, ns)).length;
      const rate = made / elapsedS;
      const p50 = percentile(answers, 50);
      const p99 = percentile(answers, 99);
      o.log(
        `deliveries: ${o.count} sent in ${elapsedS.toFixed(1)} s; ${held} answered held, ${made} HeldJobs exist (${rate.toFixed(0)}/s); answers p50 ${p50} ms, p99 ${p99} ms; ${costLines(costs).join('; ')}`,
      );
      if (failed.length > 0) o.log(`deliveries: not held: ${failed.join(' | ')}`);
      const n = o.count.toLocaleString('en-US');
      return [
        {
          what: `deliveries: HeldJobs made a second (${n} signed deliveries)`,
          how: `signed GitHub label deliveries to a receiver process, ${WIDTH} at a time; peer: the same number of HeldJobs created by a plain client at the same width`,
          figure: rate,
          unit: 'HeldJobs/s',
          against: { label: 'raw creates', value: rawRate },
          better: Better.Higher,
          target: Target.deliveries,
          note: `${held} answered held, ${made} HeldJobs in the apiserver`,
          costs,
          peerCosts: rawCosts,
        },
        {
          what: `deliveries: receiver answer time (${n} signed deliveries)`,
          how: `each delivery's time to its answer, ${WIDTH} at a time; limit: GitHub gives up on a delivery not answered within 10 s`,
          figure: p99,
          unit: 'ms (p99)',
          against: { label: "GitHub's timeout", value: GITHUB_TIMEOUT_MS },
          better: Better.Lower,
          target: Target.limit,
          note: `p50 ${p50} ms, p99 ${p99} ms, max ${Math.max(...answers)} ms`,
        },
      ];
    } finally {
      await receiver.stop();
    }
  });
}
