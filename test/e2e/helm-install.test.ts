// waitgate as a platform team installs it: the image built from this checkout (hack/image.sh,
// loaded into the real node by hack/test.sh), `helm install` of the chart with its trial Valkey,
// and every Pod (operator, receiver, Valkey, helm test's doctor, check Pods, launched Jobs) on
// the real node, where they reach the apiserver through the `kubernetes` Service, Valkey by its
// Service's DNS name, and the receiver through a port-forward. Nothing runs as a host process.
// Skipped, with the reason, where the machine cannot run containers or no image was built.
import { describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { spawn, type ChildProcess } from 'node:child_process';
import { Phase, RefusalToken } from '../../api/vocabulary.js';
import { afterIn, heldJob } from '../support/builders.js';
import { CHART_DIR, helm, kubectl, mustRun, RELEASE, valuesFile } from '../support/chart.js';
import { kubeconfigPath } from '../support/env.js';
import { githubLabeled, GITHUB_SECRET, post } from '../support/forge.js';
import { TestKube } from '../support/kube.js';
import { REAL_NODE_IMAGE, REAL_NODE_NAME, REAL_NODE_NAMESPACE_ANNOTATIONS, realNodeState } from '../support/real-node.js';
import { eventually, staysTrue } from '../support/wait.js';

/** The images hack/test.sh built and loaded: this checkout's, a second tag of it, the trial Valkey's. */
const IMAGE = process.env['WAITGATE_E2E_IMAGE'] ?? '';
const IMAGE_NEXT = process.env['WAITGATE_E2E_IMAGE_NEXT'] ?? '';
const VALKEY_IMAGE = process.env['WAITGATE_E2E_VALKEY_IMAGE'] ?? '';

/** Installing, upgrading and uninstalling on the real node, with image starts and rollouts. */
const INSTALL_MS = 300_000;
const HOLD_MS = 120_000;
const TEST_MS = 1_200_000;

function splitRef(ref: string): { repository: string; tag: string } {
  const at = ref.lastIndexOf(':');
  return { repository: ref.slice(0, at), tag: ref.slice(at + 1) };
}

/** Skipped with its reason where no real node or no image; fails instead with WAITGATE_REAL_NODE_REQUIRED=1. */
function installTest(name: string, fn: () => Promise<void>): void {
  const node = realNodeState();
  const reason = !node.ready
    ? `no real node: ${node.reason}`
    : !IMAGE || !IMAGE_NEXT || !VALKEY_IMAGE
      ? 'no image built (hack/test.sh builds and loads it where the real node runs; WAITGATE_E2E_IMAGE is unset)'
      : undefined;
  if (!reason) test(name, fn, TEST_MS);
  else if (process.env['WAITGATE_REAL_NODE_REQUIRED'] === '1') test(name, () => Promise.reject(new Error(reason)), TEST_MS);
  else test.skip(`${name} [skipped: ${reason}]`, fn);
}

/** The job every hold here launches: busybox on the real node, printing its target. */
const JOB = {
  backoffLimit: 0,
  template: {
    spec: {
      restartPolicy: 'Never',
      containers: [
        { name: 'deploy', image: REAL_NODE_IMAGE, imagePullPolicy: 'Never', command: ['sh', '-c', 'echo "deploying $WAITGATE_TARGET"'] },
      ],
    },
  },
};

/** The chart's values: this checkout's image, the trial Valkey, a pod-mode go check, an exec check with curl and jq. */
function values(namespace: string, tag: string): object {
  const image = splitRef(IMAGE);
  const valkey = splitRef(VALKEY_IMAGE);
  return {
    crds: { enabled: false },
    // This install's operator really runs: it watches its own namespace only, or it would
    // reconcile (and refuse, its profiles not theirs) the HeldJobs of every test running beside
    // it. Its admission policies would bind every namespace too, so they stay off here
    // (test/e2e/admission-policy.test.ts covers them).
    watchNamespace: namespace,
    admissionPolicy: { enabled: false },
    image: { repository: image.repository, tag, pullPolicy: 'Never' },
    valkey: { deploy: true, prefix: `test-${namespace}`, image: { repository: valkey.repository, tag: valkey.tag, pullPolicy: 'Never' } },
    operator: { replicas: 2 },
    receiver: { replicas: 1, github: { webhookSecret: GITHUB_SECRET } },
    tests: { enabled: true },
    profiles: {
      // Silent on mode and image, as a new install writes it: a check Pod of the chart's own image
      // (WAITGATE_CHECK_IMAGE) on the real node, no token. Go at once.
      'pod-go': { script: '#!/bin/sh\necho "checking $1"\nexit 0\n' },
      // In the operator's own container: curl reaches the receiver by its Service's DNS name and
      // jq reads its answer; a missing tool exits 127, a fault, never go.
      'exec-tools': {
        mode: 'exec',
        script: `#!/bin/sh
set -e
answer=$(curl -fsS --max-time 5 http://${RELEASE}-receiver.${namespace}.svc/healthz)
[ "$(printf '%s' "$answer" | jq -r .status)" = ok ] && exit 0
exit 3
`,
      },
    },
    triggers: [
      {
        name: 'deploy',
        on: { type: 'label', any: ['waitgate:deploy'] },
        run: { kind: 'github', flow: 'deploy', waitFor: [{ profile: 'pod-go' }], job: JOB },
      },
      // Its record is an OnceRecord the receiver's Pod creates with the chart's RBAC.
      {
        name: 'deploy-once',
        on: { type: 'label', any: ['waitgate:deploy'], once: true },
        run: { kind: 'github', flow: 'deploy', job: JOB },
      },
    ],
  };
}

/**
 * A trigger naming a profile nobody declares, for an edit of waitgate-triggers after helm test
 * (whose doctor would fail it). The receiver refuses its deliveries only if it read the
 * profiles: profiles it cannot read refuse nothing.
 */
const UNDECLARED = {
  name: 'refuse-undeclared',
  on: { type: 'label', any: ['waitgate:refuse'] },
  run: { kind: 'github', flow: 'deploy', waitFor: [{ profile: 'undeclared' }], job: JOB },
};

/** `kubectl port-forward` to the receiver's Service on a free loopback port; resolves with its URL. */
function portForward(namespace: string): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'kubectl',
      ['--kubeconfig', kubeconfigPath(), '-n', namespace, 'port-forward', '--address', '127.0.0.1', `svc/${RELEASE}-receiver`, ':80'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    const timer = setTimeout(() => reject(new Error(`port-forward printed no port within 30 s: ${out}`)), 30_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: `http://127.0.0.1:${m[1]}`, child });
      }
    });
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`port-forward exited ${String(code)}: ${out}`));
    });
  });
}

async function phaseOf(kube: TestKube, namespace: string, name: string): Promise<string | undefined> {
  return (await kube.getHeldJob(namespace, name))?.status?.phase;
}

async function jobsOf(kube: TestKube, namespace: string, heldJob: string): Promise<k8s.V1Job[]> {
  return (await kube.listJobs(namespace)).filter((j) =>
    j.metadata?.ownerReferences?.some((o) => o.kind === 'HeldJob' && o.name === heldJob),
  );
}

async function succeeded(kube: TestKube, namespace: string, name: string): Promise<void> {
  await eventually(
    `HeldJob ${name} Succeeded`,
    async () => {
      const phase = await phaseOf(kube, namespace, name);
      if (phase === Phase.Failed || phase === Phase.Refused) {
        throw new Error(`HeldJob ${name} ended ${phase}: ${JSON.stringify((await kube.getHeldJob(namespace, name))?.status)}`);
      }
      return phase === Phase.Succeeded ? true : undefined;
    },
    HOLD_MS,
  );
}

/** A HeldJob (as the builders make one) whose Job is JOB, on the real node. */
function hold(name: string, target: string, waitFor: object[]): Record<string, unknown> {
  const hj = heldJob({ name, target, waitFor });
  return { ...hj, spec: { ...(hj['spec'] as object), job: JOB } };
}

async function chartPods(kube: TestKube, namespace: string): Promise<k8s.V1Pod[]> {
  return (await kube.core.listNamespacedPod({ namespace, labelSelector: `app.kubernetes.io/instance=${RELEASE}` })).items;
}

describe('helm install on the real node', () => {
  installTest(
    'the image and the chart with a trial Valkey: Ready, helm test, a delivery to a Job, a leader killed, an upgrade, an uninstall',
    async () => {
      const kube = new TestKube();
      const namespace = await kube.createNamespace('helm-install', { ...REAL_NODE_NAMESPACE_ANNOTATIONS });
      const first = splitRef(IMAGE).tag;
      const next = splitRef(IMAGE_NEXT).tag;
      let forward: ChildProcess | undefined;
      let installed = false;
      try {
        // helm install, and every Deployment Ready on the real node.
        await mustRun('helm', [
          'install',
          RELEASE,
          CHART_DIR,
          '-n',
          namespace,
          '-f',
          valuesFile(namespace, values(namespace, first)),
          '--kubeconfig',
          kubeconfigPath(),
        ]);
        installed = true;
        await mustRun('kubectl', [
          '--kubeconfig',
          kubeconfigPath(),
          '-n',
          namespace,
          'rollout',
          'status',
          'deployment',
          `--timeout=${INSTALL_MS / 1000}s`,
        ]);
        const pods = await chartPods(kube, namespace);
        const running = pods.filter((p) => p.status?.phase === 'Running');
        expect(running.map((p) => p.spec?.nodeName)).toEqual(running.map(() => REAL_NODE_NAME));
        const byComponent = (c: string) => running.filter((p) => p.metadata?.labels?.['app.kubernetes.io/component'] === c).length;
        expect({ operator: byComponent('operator'), receiver: byComponent('receiver') }).toEqual({ operator: 2, receiver: 1 });

        // helm test: doctor in a Pod of the image, with the operator's settings and rights.
        const tested = await helm(['test', RELEASE, '-n', namespace, '--timeout', '4m']);
        expect({ code: tested.code, out: tested.stdout + tested.stderr }).toMatchObject({ code: 0 });

        // A signed GitHub delivery to the receiver's Service becomes a HeldJob; its pod-mode
        // check and its Job run on the real node; the Job prints its target.
        const pf = await portForward(namespace);
        forward = pf.child;
        // Its triggers are the ConfigMap the kubelet mounted (the receiver may not read
        // ConfigMaps); a once trigger is recorded as an OnceRecord with the chart's RBAC.
        const triggersBefore = (await kube.core.readNamespacedConfigMap({ name: 'waitgate-triggers', namespace })).data?.['triggers.json'];
        const answered = await post(pf.url, githubLabeled({ repo: 'acme/helm', number: 5, label: 'waitgate:deploy' }));
        expect(answered.status).toBeLessThan(300);
        const results = answered.json['results'] as { trigger: string; outcome: string; heldJob?: string; token?: string }[];
        expect(results).toEqual([
          expect.objectContaining({ trigger: 'deploy', outcome: 'held' }),
          expect.objectContaining({ trigger: 'deploy-once', outcome: 'held' }),
        ]);
        const onceRecords = await kubectl(['-n', namespace, 'get', 'oncerecords', '-o', 'jsonpath={.items[*].spec.trigger}']);
        expect(onceRecords.stdout).toBe('deploy-once');
        const delivered = results.find((r) => r.trigger === 'deploy')?.heldJob ?? '';

        // An edit of waitgate-triggers reaches the receiver's Pod with the kubelet's sync; it
        // refuses a profile the mounted waitgate-profiles does not declare, so it read those too.
        await kube.core.patchNamespacedConfigMap(
          { name: 'waitgate-triggers', namespace, body: { data: { 'triggers.json': JSON.stringify([UNDECLARED]) } } },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        );
        await eventually(
          'the receiver to load the edited triggers',
          async () => {
            const logs = await kubectl(['-n', namespace, 'logs', `deployment/${RELEASE}-receiver`]);
            return logs.stdout.split('\n').filter((l) => l.includes('"msg":"Loaded triggers"')).length >= 2 ? true : undefined;
          },
          INSTALL_MS,
        );
        const refused = await post(pf.url, githubLabeled({ repo: 'acme/helm', number: 8, label: 'waitgate:refuse' }));
        expect(refused.json['results']).toEqual([
          expect.objectContaining({ trigger: 'refuse-undeclared', outcome: 'refused', token: RefusalToken.ProfileUnknown }),
        ]);
        // Back as the chart made it (the upgrade below renders it again in any case).
        await kube.core.patchNamespacedConfigMap(
          { name: 'waitgate-triggers', namespace, body: { data: { 'triggers.json': triggersBefore ?? '[]' } } },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        );
        await succeeded(kube, namespace, delivered);
        const [job] = await jobsOf(kube, namespace, delivered);
        expect(job).toBeDefined();
        const jobPods = (await kube.core.listNamespacedPod({ namespace, labelSelector: `job-name=${job?.metadata?.name ?? ''}` })).items;
        expect(jobPods.map((p) => p.spec?.nodeName)).toEqual([REAL_NODE_NAME]);
        await eventually("the Job's output to say what it deployed", async () => {
          const log = await kube.core.readNamespacedPodLog({ namespace, name: jobPods[0]?.metadata?.name ?? '' });
          return log.includes('deploying acme/helm#5') ? true : undefined;
        });
        expect((await kube.getHeldJob(namespace, delivered))?.status?.checks).toBeGreaterThanOrEqual(1);

        // An exec check in the operator's container: curl (by the receiver's Service name) and jq say go.
        await kube.createHeldJob(namespace, hold('exec-tools', 'acme/helm#6', [{ profile: 'exec-tools' }]));
        await succeeded(kube, namespace, 'exec-tools');

        // The leader's Pod deleted at once (--grace-period=0) while a hold waits: one Job, no more.
        const lease = await kube.kc.makeApiClient(k8s.CoordinationV1Api).readNamespacedLease({ name: 'waitgate-operator', namespace });
        const holder = lease.spec?.holderIdentity ?? '';
        const leader = (await chartPods(kube, namespace)).find((p) => p.metadata?.name && holder.includes(p.metadata.name))?.metadata?.name;
        expect(leader).toBeDefined();
        await kube.createHeldJob(namespace, hold('leader-kill', 'acme/helm#7', [{ after: afterIn(15_000).after }]));
        await mustRun('kubectl', [
          '--kubeconfig',
          kubeconfigPath(),
          '-n',
          namespace,
          'delete',
          'pod',
          leader ?? '',
          '--grace-period=0',
          '--force',
        ]);
        await succeeded(kube, namespace, 'leader-kill');
        await staysTrue(
          'one Job for leader-kill',
          async () => (await jobsOf(kube, namespace, 'leader-kill')).length === 1,
          Date.now() + 10_000,
        );

        // helm upgrade to a second tag of the image while three holds wait: each launches once.
        const waiting = ['upgrade-a', 'upgrade-b', 'upgrade-c'];
        const { after } = afterIn(45_000);
        for (const [i, name] of waiting.entries()) await kube.createHeldJob(namespace, hold(name, `acme/helm#${10 + i}`, [{ after }]));
        await mustRun('helm', [
          'upgrade',
          RELEASE,
          CHART_DIR,
          '-n',
          namespace,
          '-f',
          valuesFile(`${namespace}-next`, values(namespace, next)),
          '--wait',
          '--timeout',
          '5m',
          '--kubeconfig',
          kubeconfigPath(),
        ]);
        // The old replicas go once the new ones are Ready (a Pod being deleted still says Running).
        await eventually(
          'only operator Pods of the second tag left',
          async () => {
            const images = (await chartPods(kube, namespace))
              .filter((p) => p.metadata?.labels?.['app.kubernetes.io/component'] === 'operator')
              .map((p) => p.spec?.containers[0]?.image);
            return images.length === 2 && images.every((i) => i === IMAGE_NEXT) ? true : undefined;
          },
          INSTALL_MS,
        );
        for (const name of waiting) await succeeded(kube, namespace, name);
        await staysTrue(
          'one Job for each hold across the upgrade',
          async () => (await Promise.all(waiting.map((n) => jobsOf(kube, namespace, n)))).every((js) => js.length === 1),
          Date.now() + 10_000,
        );

        // Holds go while the operator runs (it takes its finalizers off), then helm uninstall
        // leaves no Pod of the chart.
        await kubectl(['-n', namespace, 'delete', 'heldjobs', '--all', '--wait=true', '--timeout=120s']);
        const gone = await helm(['uninstall', RELEASE, '-n', namespace, '--wait', '--timeout', '3m']);
        expect(gone.code).toBe(0);
        installed = false;
        await eventually(
          'no Pod of the chart left',
          async () => ((await chartPods(kube, namespace)).length === 0 ? true : undefined),
          INSTALL_MS,
        );
      } finally {
        forward?.kill();
        if (installed) {
          await kubectl(['-n', namespace, 'delete', 'heldjobs', '--all', '--wait=true', '--timeout=60s']);
          await helm(['uninstall', RELEASE, '-n', namespace, '--wait', '--timeout', '2m']);
        }
        await kube.deleteNamespace(namespace);
      }
    },
  );
});
