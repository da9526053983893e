// Check Pods placed like the chart's own: operator.checkPods renders WAITGATE_CHECK_POD_DEFAULTS
// (the pull secrets falling back to the chart's and a parent chart's global ones), the operator
// started with that env, as the chart's ServiceAccount, makes check Pods carrying them, a
// profile's own nodeSelector, tolerations and priorityClassName replace them, and the chart's
// admission policy admits those Pods on the real apiserver.
import { describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { parseCheckPodDefaults } from '../../api/check-pod-placement.js';
import { heldJob } from '../support/builders.js';
import {
  baseValues,
  CHART_DIR,
  deploymentEnv,
  manifest,
  OPERATOR_SA,
  kubectl,
  RELEASE,
  renderChart,
  runTool,
  serviceAccountKubeconfig,
  valuesFile,
  withChart,
} from '../support/chart.js';
import { requireEnv } from '../support/env.js';
import { fixtureScript } from '../support/profiles.js';
import { operatorProcess } from '../support/service-process.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

type Container = { name: string; env?: { name: string; value?: string }[] };
/** The operator Deployment's WAITGATE_CHECK_POD_DEFAULTS, as `helm template` renders it. */
async function renderedDefaults(ns: string, values: object): Promise<string | undefined> {
  const ms = await renderChart(ns, ['-f', valuesFile(ns, { ...baseValues(ns), ...values })]);
  const d = manifest(ms, 'Deployment', `${RELEASE}-operator`) as unknown as {
    spec: { template: { spec: { containers: Container[] } } };
  };
  return d.spec.template.spec.containers[0]?.env?.find((e) => e.name === 'WAITGATE_CHECK_POD_DEFAULTS')?.value;
}

const toleration = { key: 'dedicated', operator: 'Equal', value: 'checks', effect: 'NoSchedule' };
const affinity = {
  nodeAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      { weight: 1, preference: { matchExpressions: [{ key: 'waitgate.dev/test-zone', operator: 'In', values: ['a'] }] } },
    ],
  },
};

describe('operator.checkPods renders WAITGATE_CHECK_POD_DEFAULTS', () => {
  test.concurrent.each<[string, object, object]>([
    ['nothing set: empty (no defaults)', {}, {}],
    [
      "the chart's own imagePullSecrets when checkPods names none",
      { imagePullSecrets: [{ name: 'own' }] },
      { imagePullSecrets: [{ name: 'own' }] },
    ],
    [
      "a parent chart's global.imagePullSecrets too, plain names or {name}, each once",
      { imagePullSecrets: [{ name: 'own' }], global: { imagePullSecrets: ['parent', { name: 'own' }] } },
      { imagePullSecrets: [{ name: 'own' }, { name: 'parent' }] },
    ],
    [
      "checkPods.imagePullSecrets set: only those, not the chart's",
      { imagePullSecrets: [{ name: 'own' }], operator: { checkPods: { imagePullSecrets: [{ name: 'checks' }] } } },
      { imagePullSecrets: [{ name: 'checks' }] },
    ],
    [
      'all five keys',
      {
        operator: {
          checkPods: {
            imagePullSecrets: [{ name: 'registry' }],
            nodeSelector: { pool: 'checks' },
            tolerations: [toleration],
            affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } },
            priorityClassName: 'waitgate-checks',
          },
        },
      },
      {
        imagePullSecrets: [{ name: 'registry' }],
        nodeSelector: { pool: 'checks' },
        tolerations: [toleration],
        affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } },
        priorityClassName: 'waitgate-checks',
      },
    ],
  ])(
    '%s, and the operator accepts it',
    async (_what, values, expected) => {
      const raw = await renderedDefaults('chart-checkpods', values);
      expect(raw === '' || raw === undefined ? {} : JSON.parse(raw)).toEqual(expected);
      expect(parseCheckPodDefaults(raw)).toEqual({ ok: true, defaults: expected });
    },
    Timeouts.testMs,
  );

  test.concurrent.each<[string, object, RegExp]>([
    ['an unknown key', { operator: { checkPods: { nodeName: 'n1' } } }, /checkPods.*nodeName/s],
    ['a toleration operator not Exists or Equal', { operator: { checkPods: { tolerations: [{ key: 'a', operator: 'In' }] } } }, /operator/],
    ['a pull secret as a plain name', { operator: { checkPods: { imagePullSecrets: ['registry'] } } }, /imagePullSecrets/],
    ['a PriorityClass name with capitals', { operator: { checkPods: { priorityClassName: 'High' } } }, /priorityClassName/],
  ])(
    'the schema refuses %s',
    async (_what, values, message) => {
      const r = await runTool('helm', [
        'template',
        RELEASE,
        CHART_DIR,
        '-f',
        valuesFile('checkpods-bad', { ...baseValues('x'), ...values }),
      ]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(message);
    },
    Timeouts.testMs,
  );
});

describe("check Pods carry the chart's pull secret, node selector, toleration and priority class", () => {
  test.concurrent(
    "the defaults on one profile's check Pod, a profile's own nodeSelector, tolerations and priorityClassName on the other's; the admission policy admits both",
    async () => {
      // Cluster-scoped: a name of this run's own, deleted at the end.
      const suffix = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
      const defaultClass = `waitgate-checks-${suffix}`;
      const ownClass = `waitgate-urgent-${suffix}`;
      let schedulingApi: k8s.SchedulingV1Api | undefined;
      try {
        await withChart(
          'chart-checkpods',
          (ns) => ({
            ...baseValues(ns),
            watchNamespace: ns,
            // Both checks at once: each Pod stays Pending (no node matches) until its start timeout.
            wait: { checkSlots: 2 },
            imagePullSecrets: [{ name: 'registry' }],
            operator: {
              checkPods: {
                // No node has these labels: the Pods stay Pending, read while they wait.
                nodeSelector: { 'waitgate.dev/test-pool': 'checks' },
                tolerations: [toleration],
                affinity,
                priorityClassName: defaultClass,
              },
            },
            profiles: {
              plain: { mode: 'pod', image: 'busybox:1.36', script: fixtureScript('exit-0.sh') },
              own: {
                mode: 'pod',
                image: 'busybox:1.36',
                script: fixtureScript('exit-0.sh'),
                nodeSelector: { 'waitgate.dev/test-pool': 'urgent' },
                tolerations: [{ key: 'urgent', operator: 'Exists', effect: 'NoExecute' }],
                priorityClassName: ownClass,
              },
            },
            triggers: [],
          }),
          async (c) => {
            schedulingApi = c.kube.kc.makeApiClient(k8s.SchedulingV1Api);
            for (const [name, value] of [
              [defaultClass, 1000],
              [ownClass, 2000],
            ] as const) {
              await schedulingApi.createPriorityClass({ body: { metadata: { name }, value, globalDefault: false } });
            }
            const kubeconfig = await serviceAccountKubeconfig(c.kube, c.namespace, OPERATOR_SA);
            const env = await deploymentEnv(c.kube, c.namespace, `${RELEASE}-operator`);
            expect(JSON.parse(env['WAITGATE_CHECK_POD_DEFAULTS'] ?? '{}')).toMatchObject({ imagePullSecrets: [{ name: 'registry' }] });
            const operator = operatorProcess(
              {
                ...env,
                KUBECONFIG: kubeconfig,
                VALKEY_URL: requireEnv('VALKEY_URL'),
                WAITGATE_LOG_LEVEL: 'debug',
                WAITGATE_PROFILES_DIR: '',
                WAITGATE_METRICS_HOST: '127.0.0.1',
                WAITGATE_METRICS_PORT: '0',
              },
              `${c.namespace}-operator-checkpods`,
            );
            try {
              await operator.start();
              for (const profile of ['plain', 'own']) {
                await c.kube.createHeldJob(c.namespace, heldJob({ name: `hold-${profile}`, waitFor: [{ profile }], exitCode: 0 }));
              }
              const pods = await eventually(
                'a check Pod for each profile',
                async () => {
                  const items = (await c.kube.core.listNamespacedPod({ namespace: c.namespace, labelSelector: 'waitgate.dev/check=true' }))
                    .items;
                  const byProfile = new Map(items.map((p) => [p.metadata?.annotations?.['waitgate.dev/profile'] ?? '', p]));
                  const plain = byProfile.get('plain');
                  const own = byProfile.get('own');
                  return plain && own ? { plain, own } : undefined;
                },
                Timeouts.jobMs,
              );
              const placement = (p: k8s.V1Pod) => ({
                imagePullSecrets: p.spec?.imagePullSecrets,
                nodeSelector: p.spec?.nodeSelector,
                // The apiserver adds its own not-ready/unreachable tolerations; ours are first.
                tolerations: p.spec?.tolerations?.filter((t) => !t.key?.startsWith('node.kubernetes.io/')),
                affinity: p.spec?.affinity,
                priorityClassName: p.spec?.priorityClassName,
                priority: p.spec?.priority,
              });
              expect(placement(pods.plain)).toEqual({
                imagePullSecrets: [{ name: 'registry' }],
                nodeSelector: { 'waitgate.dev/test-pool': 'checks' },
                tolerations: [toleration],
                affinity,
                priorityClassName: defaultClass,
                priority: 1000,
              });
              expect(placement(pods.own)).toEqual({
                imagePullSecrets: [{ name: 'registry' }],
                nodeSelector: { 'waitgate.dev/test-pool': 'urgent' },
                tolerations: [{ key: 'urgent', operator: 'Exists', effect: 'NoExecute' }],
                affinity,
                priorityClassName: ownClass,
                priority: 2000,
              });
              // Created by the operator's ServiceAccount, through the chart's admission policy;
              // that the policy is in force is shown by its refusing the same Pod with a node named.
              expect(operator.logText()).not.toMatch(/PodCreate/);
              const again = (p: k8s.V1Pod, nodeName?: string) => ({
                apiVersion: 'v1',
                kind: 'Pod',
                metadata: { name: `${p.metadata?.name ?? 'x'}-again`, labels: p.metadata?.labels, annotations: p.metadata?.annotations },
                spec: { ...p.spec, ...(nodeName ? { nodeName } : {}) },
              });
              const dryRun = (body: object) =>
                kubectl(['create', '--dry-run=server', '-n', c.namespace, '-f', '-'], { kubeconfig, input: JSON.stringify(body) });
              await eventually(
                'the operator-pods policy to refuse a check Pod with a node named',
                async () => {
                  const r = await dryRun(again(pods.plain, 'node-1'));
                  return r.code !== 0 && /is placed only by imagePullSecrets/.test(r.stderr) ? true : undefined;
                },
                Timeouts.jobMs,
              );
              for (const p of [pods.plain, pods.own]) {
                const r = await dryRun(again(p));
                expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
              }
            } finally {
              await operator.stop();
            }
          },
        );
      } finally {
        for (const name of [defaultClass, ownClass]) await schedulingApi?.deletePriorityClass({ name }).catch(() => undefined);
      }
    },
    Timeouts.testMs,
  );
});
