// What a stolen operator token reaches, tried as an attacker would, with the chart installed
// against the real apiserver: the operator's ServiceAccount reads no Secret, creates Jobs only
// where it serves HeldJobs, and a Job it creates in the release namespace (which it serves, and
// where the release's own Secrets are) cannot read those Secrets, run as one of the chart's
// ServiceAccounts or reach the node. The same token is what an exec-mode check script can read,
// so this is also the ceiling of such a script. The operator itself, run as that ServiceAccount,
// ends a hold whose Job would cross that line JobRejected, with the reason.
import { describe, expect, test } from '@jest/globals';
import type * as k8s from '@kubernetes/client-node';
import { jobNameFor } from '../../api/job-name.js';
import { FailureReason, Phase } from '../../api/vocabulary.js';
import { heldJob } from '../support/builders.js';
import {
  baseValues,
  canI,
  deploymentEnv,
  kubectl,
  OPERATOR_SA,
  RECEIVER_SA,
  serviceAccountKubeconfig,
  withChart,
  type ToolResult,
} from '../support/chart.js';
import { kubeconfigPath, requireEnv } from '../support/env.js';
import { operatorProcess } from '../support/service-process.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

/** The release's webhook Secret (receiver.github.webhookSecret below makes the chart create it). */
const WEBHOOK_SECRET = 'waitgate-receiver-webhooks';
/** The one Secret the install below lets Jobs in the release namespace use. */
const ALLOWED_SECRET = 'deploy-token';

const values = (ns: string) => ({
  ...baseValues(ns),
  watchNamespace: ns,
  receiver: { github: { webhookSecret: 'not-for-jobs' } },
  admissionPolicy: { releaseNamespaceJobSecrets: [ALLOWED_SECRET] },
});

type PodSpec = k8s.V1PodSpec;

/** A plain Job; `f` changes its Pod spec into what is tried. */
function job(name: string, f: (spec: PodSpec) => void = () => {}): k8s.V1Job {
  const spec: PodSpec = { restartPolicy: 'Never', containers: [{ name: 'x', image: 'busybox:1.36', command: ['cat', '/s/token'] }] };
  f(spec);
  // Controlled by a HeldJob, as the operator's are (operator-jobs refuses any other); admission cannot ask whether it exists.
  const owner = {
    apiVersion: 'waitgate.dev/v1alpha1',
    kind: 'HeldJob',
    name: 'h',
    uid: '00000000-0000-4000-8000-000000000001',
    controller: true,
  };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, ownerReferences: [owner] },
    spec: { backoffLimit: 0, template: { spec } },
  };
}

const container = (spec: PodSpec) => spec.containers[0] as k8s.V1Container;

function createAs(kubeconfig: string, obj: object, namespace: string, dryRun: boolean): Promise<ToolResult> {
  return kubectl(['create', '-n', namespace, '-f', '-', '-o', 'name', ...(dryRun ? ['--dry-run=server'] : [])], {
    kubeconfig,
    input: JSON.stringify(obj),
  });
}

describe('a stolen operator token, with the chart installed', () => {
  test.concurrent(
    'reads no Secret: not directly, and not through a Job it creates in the release namespace; Jobs only where it serves HeldJobs',
    () =>
      withChart('op-token', values, async (c) => {
        const ns = c.namespace;
        const op = await serviceAccountKubeconfig(c.kube, ns, OPERATOR_SA);
        // Directly: nothing on Secrets, anywhere. Jobs: where it serves HeldJobs (here, ns) only.
        const asked: [string[], boolean][] = [
          [['get', 'secrets', '-n', ns], false],
          [['get', `secrets/${WEBHOOK_SECRET}`, '-n', ns], false],
          [['list', 'secrets', '-n', ns], false],
          [['list', 'secrets', '--all-namespaces'], false],
          [['create', 'jobs.batch', '-n', 'default'], false],
          [['create', 'jobs.batch', '-n', 'kube-system'], false],
          [['create', 'jobs.batch', '--all-namespaces'], false],
          [['create', 'cronjobs.batch', '-n', ns], false],
          [['create', 'deployments.apps', '-n', ns], false],
          [['create', 'jobs.batch', '-n', ns], true],
        ];
        const answers = await Promise.all(asked.map(async ([a]) => [a.join(' '), await canI(op, a)] as const));
        expect(Object.fromEntries(answers)).toEqual(Object.fromEntries(asked.map(([a, want]) => [a.join(' '), want])));
        const read = await kubectl(['get', 'secret', WEBHOOK_SECRET, '-n', ns, '-o', 'json'], { kubeconfig: op });
        expect(read.code).not.toBe(0);
        expect(read.stderr).toMatch(/forbidden/i);

        // Through a Job in the release namespace: every way to the release's Secrets, its
        // ServiceAccounts or the node is refused, naming the line crossed.
        const secretLine = /mounts no Secret but those admissionPolicy\.releaseNamespaceJobSecrets names/;
        const envLine = /reads no Secret into its environment but those admissionPolicy\.releaseNamespaceJobSecrets names/;
        const accountLine = /does not run as one of waitgate's own ServiceAccounts/;
        const hostPathLine = /mounts no hostPath volume: Pod Security baseline/;
        const privilegedLine = /has no privileged container: Pod Security baseline/;
        const hostLine = /shares no host namespace \(hostNetwork, hostPID, hostIPC\): Pod Security baseline/;
        const cases: [string, k8s.V1Job, RegExp][] = [
          [
            'the webhook Secret as a volume',
            job('a', (s) => {
              s.volumes = [{ name: 's', secret: { secretName: WEBHOOK_SECRET } }];
              container(s).volumeMounts = [{ name: 's', mountPath: '/s' }];
            }),
            secretLine,
          ],
          [
            'the webhook Secret in a projected volume',
            job('b', (s) => (s.volumes = [{ name: 's', projected: { sources: [{ secret: { name: WEBHOOK_SECRET } }] } }])),
            secretLine,
          ],
          [
            'a Secret key in the environment',
            job('c', (s) => (container(s).env = [{ name: 'T', valueFrom: { secretKeyRef: { name: WEBHOOK_SECRET, key: 'github' } } }])),
            envLine,
          ],
          ['a whole Secret as envFrom', job('d', (s) => (container(s).envFrom = [{ secretRef: { name: WEBHOOK_SECRET } }])), envLine],
          [
            'an init container reading it',
            job(
              'e',
              (s) => (s.initContainers = [{ name: 'i', image: 'busybox:1.36', envFrom: [{ secretRef: { name: WEBHOOK_SECRET } }] }]),
            ),
            envLine,
          ],
          ["the operator's ServiceAccount", job('f', (s) => (s.serviceAccountName = OPERATOR_SA)), accountLine],
          ["the receiver's, by the old field", job('g', (s) => (s.serviceAccount = RECEIVER_SA)), accountLine],
          ['a hostPath of the node', job('h', (s) => (s.volumes = [{ name: 'h', hostPath: { path: '/' } }])), hostPathLine],
          ['a privileged container', job('i', (s) => (container(s).securityContext = { privileged: true })), privilegedLine],
          ["the node's PID namespace", job('j', (s) => (s.hostPID = true)), hostLine],
        ];
        // The first refusal waits for the policy to take effect (a dry run stores nothing).
        const [first] = cases;
        await eventually(
          'the operator-jobs policy to take effect',
          async () => {
            const r = await createAs(op, first?.[1] as object, ns, true);
            return r.code !== 0 && (first?.[2] as RegExp).test(r.stderr) ? r : undefined;
          },
          Timeouts.shortMs,
        );
        const results = await Promise.all(
          cases.map(async ([what, j, line]) => {
            const r = await createAs(op, j, ns, true);
            return [what, r.code !== 0 && line.test(r.stderr) ? 'refused' : `code ${String(r.code)}: ${r.stderr}`] as const;
          }),
        );
        expect(Object.fromEntries(results)).toEqual(Object.fromEntries(cases.map(([what]) => [what, 'refused'])));

        // For real, too: refused as Invalid (so the operator gives up rather than retrying), nothing stored.
        const real = await createAs(op, cases[0]?.[1] as object, ns, false);
        expect(real.stderr).toMatch(/is invalid/);
        expect((await kubectl(['get', 'job', 'a', '-n', ns])).stderr).toMatch(/NotFound/);

        // What the policy lets through: a plain Job, and the one Secret the install names.
        const allowed: [string, k8s.V1Job][] = [
          ['a plain Job', job('ok-1')],
          [
            'the Secret releaseNamespaceJobSecrets names',
            job('ok-2', (s) => (container(s).env = [{ name: 'T', valueFrom: { secretKeyRef: { name: ALLOWED_SECRET, key: 't' } } }])),
          ],
        ];
        for (const [what, j] of allowed) {
          const r = await createAs(op, j, ns, true);
          expect({ what, stderr: r.stderr, code: r.code }).toEqual({ what, stderr: '', code: 0 });
        }
        // Other users' Jobs are not the operator's policy's business.
        const admin = await createAs(kubeconfigPath(), cases[0]?.[1] as object, ns, true);
        expect({ stderr: admin.stderr, code: admin.code }).toEqual({ stderr: '', code: 0 });
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    "the operator, run as its ServiceAccount, ends a hold whose Job would read the release's Secret JobRejected, naming the setting",
    () =>
      withChart('op-token-hold', values, async (c) => {
        const ns = c.namespace;
        const kc = await serviceAccountKubeconfig(c.kube, ns, OPERATOR_SA);
        const operator = operatorProcess(
          {
            ...(await deploymentEnv(c.kube, ns, 'waitgate-operator')),
            KUBECONFIG: kc,
            VALKEY_URL: requireEnv('VALKEY_URL'),
            WAITGATE_PROFILES_DIR: '',
            WAITGATE_METRICS_HOST: '127.0.0.1',
            WAITGATE_METRICS_PORT: '0',
          },
          `${ns}-operator-token`,
        );
        await operator.start();
        try {
          const reads = heldJob({ name: 'reads-secret' }) as { spec: { job: { template: { spec: PodSpec } } } };
          container(reads.spec.job.template.spec).envFrom = [{ secretRef: { name: WEBHOOK_SECRET } }];
          const created = await c.kube.createHeldJob(ns, reads);
          await c.kube.createHeldJob(ns, heldJob({ name: 'plain', target: 'acme/api#1' }));
          const hj = await eventually(
            'the hold to end',
            async () => {
              const h = await c.kube.getHeldJob(ns, 'reads-secret');
              return h?.status?.phase === Phase.Failed ? h : undefined;
            },
            Timeouts.jobMs,
          );
          expect(hj.status?.reason).toBe(FailureReason.JobRejected);
          expect(hj.status?.message).toMatch(/admissionPolicy\.releaseNamespaceJobSecrets/);
          const jobName = jobNameFor({ name: 'reads-secret', uid: created.metadata.uid });
          expect((await kubectl(['get', 'job', jobName, '-n', ns])).stderr).toMatch(/NotFound/);
          // The policy stops that Job only: a plain hold beside it launches.
          await eventually(
            'the plain hold to launch',
            async () => {
              const h = await c.kube.getHeldJob(ns, 'plain');
              return h?.status?.phase === Phase.Running || h?.status?.phase === Phase.Succeeded ? h : undefined;
            },
            Timeouts.jobMs,
          );
        } catch (err) {
          throw new Error(`${(err as Error).message}\n(operator log: ${operator.logPath})`, { cause: err });
        } finally {
          await operator.stop();
        }
      }),
    Timeouts.testMs,
  );
});
