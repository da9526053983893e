// Pod-mode checks and launched Jobs on the cluster's real node (a kubelet on containerd, see
// hack/cluster/real-node.sh), where scripts and containers really run: every exit code of the
// check contract comes from a real process, the check Pod's hardening is proven from inside it,
// the launched Job's WAITGATE_* context is read back from its container's log through the
// apiserver, and a failing Job fails its HeldJob. Skipped, with the reason, on a machine that
// cannot run containers.
import { describe, expect } from '@jest/globals';
import type * as k8s from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { Annotations, Forge, Labels, Phase, RefusalToken, TargetKind } from '../../api/vocabulary.js';
import { heldJob } from '../support/builders.js';
import { followPodLog, REAL_NODE_IMAGE, REAL_NODE_NAME, REAL_NODE_NAMESPACE_ANNOTATIONS, realNodeTest } from '../support/real-node.js';
import { phaseReached, withScenario, type Scenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const NAME = 'web-7-deploy';
/** How long the go check lingers after its output, so the test's log stream opens before its Pod is deleted. */
const CHECK_PAUSE_S = 8;
const TARGET = 'acme/web#7';

/**
 * What the check Pod's hardening looks like from inside: the user id, no service-account token,
 * a read-only root. Prints one line per finding and exits `broken` when any is missing.
 */
function hardeningProbe(broken: number): string {
  return `bad=""
uid=$(id -u)
echo "uid $uid"
[ "$uid" != 0 ] || { echo "runs as root"; bad=1; }
if test -e /var/run/secrets/kubernetes.io/serviceaccount/token; then echo "token mounted"; bad=1; else echo "no service-account token"; fi
# /tmp is world-writable in the image, so only a read-only root stops this write.
root_opts=$(awk '$2 == "/" { print $4 }' /proc/mounts)
if touch /tmp/waitgate-probe 2>/dev/null; then echo "root filesystem writable ($root_opts)"; bad=1
else case ",$root_opts," in *,ro,*) echo "root filesystem read-only ($root_opts)" ;; *) echo "root mounted $root_opts"; bad=1 ;; esac; fi
[ -z "$bad" ] || exit ${broken}
`;
}

/**
 * A check script that prints a canary (which waitgate must never copy anywhere), proves the
 * Pod's hardening from inside, then answers `answer`. A hardening it cannot prove is "never"
 * (2), or "could not tell" (1) in the profile that answers 2 itself, so no verdict comes out
 * right by accident.
 */
function checkScript(canary: string, answer: number | 'hang', pauseS = 0): string {
  return `#!/bin/sh
echo "canary ${canary}"
echo "canary ${canary} on stderr" >&2
${hardeningProbe(answer === 2 ? 1 : 2)}echo "target $1"
${pauseS > 0 ? `sleep ${pauseS}\n` : ''}${answer === 'hang' ? 'exec sleep 3600' : `echo "answer ${answer}"\nexit ${answer}`}
`;
}

function podProfiles(scripts: Record<string, string>): Record<string, string> {
  const data: Record<string, string> = {};
  const profiles: Record<string, object> = {};
  for (const [name, text] of Object.entries(scripts)) {
    data[`${name}.sh`] = text;
    profiles[name] = { mode: 'pod', script: `${name}.sh`, image: REAL_NODE_IMAGE };
  }
  data['profiles.json'] = JSON.stringify(profiles);
  return data;
}

const DELIVERY = '0f3c6a52-8d1e-4b7a-9c2f-1e5d7a9b3c4d';

/** A HeldJob as the receiver makes one for a GitHub pull request, whose Job runs `script` in busybox. */
function realHeldJob(profile: string | undefined, script: string): Record<string, unknown> {
  const hj = heldJob({ name: NAME, target: TARGET, ...(profile ? { waitFor: [{ profile }] } : {}) });
  hj['metadata'] = {
    name: NAME,
    labels: { [Labels.forge]: Forge.GitHub },
    annotations: { [Annotations.targetKind]: TargetKind.PullRequest, [Annotations.delivery]: DELIVERY },
  };
  const spec = hj['spec'] as { job: { template: { spec: Record<string, unknown> } } };
  spec.job.template.spec = {
    restartPolicy: 'Never',
    containers: [{ name: 'deploy', image: REAL_NODE_IMAGE, imagePullPolicy: 'Never', command: ['/bin/sh', '-c', script] }],
  };
  return hj;
}

async function checkPods(s: Scenario): Promise<k8s.V1Pod[]> {
  return (await s.kube.core.listNamespacedPod({ namespace: s.namespace, labelSelector: 'waitgate.dev/check=true' })).items;
}

/**
 * The log of a Pod's container, through the apiserver and the real node's kubelet (`kubectl
 * logs`), polled until it holds `last`, the last line the container writes.
 */
function podLog(s: Scenario, name: string, last: RegExp): Promise<string> {
  return eventually(`the log of ${name} to hold ${String(last)}`, async () => {
    const text = await s.kube.core.readNamespacedPodLog({ namespace: s.namespace, name });
    return last.test(text) ? text : undefined;
  });
}

/** What waitgate itself recorded about a scenario: the operator's log, the HeldJob, the namespace's Events. */
async function waitgateRecords(s: Scenario): Promise<string> {
  const hj = await s.kube.getHeldJob(s.namespace, NAME);
  const events = await s.kube.core.listNamespacedEvent({ namespace: s.namespace });
  return [s.operator.logText(), JSON.stringify(hj), JSON.stringify(events.items)].join('\n');
}

function scenarioSetup(configMaps: Record<string, string>, env: Record<string, string> = {}) {
  return {
    namespaceAnnotations: { ...REAL_NODE_NAMESPACE_ANNOTATIONS },
    configMaps: { 'waitgate-profiles': configMaps },
    env: { WAITGATE_WAIT_MAX_FAULTS: '1', WAITGATE_WAIT_CHECK_TIMEOUT_MS: '20000', ...env },
  };
}

describe('the real node', () => {
  realNodeTest(
    'a check script runs hardened on the real node and says go; the launched Job prints its WAITGATE_* context',
    async () => {
      const canary = `canary-${randomBytes(8).toString('hex')}`;
      const profiles = podProfiles({ proves: checkScript(canary, 0, CHECK_PAUSE_S) });
      await withScenario(
        'real-go',
        async (s) => {
          await s.kube.createHeldJob(s.namespace, realHeldJob('proves', 'env | grep "^WAITGATE_" | sort'));
          // The check Pod's output, followed from its start (it is deleted once it has answered).
          const check = await eventually(
            'the check Pod running on the real node',
            async () => {
              const pod = (await checkPods(s))[0];
              return pod?.status?.containerStatuses?.[0]?.state?.running ? pod : undefined;
            },
            Timeouts.jobMs,
          );
          expect(check.spec?.nodeName).toBe(REAL_NODE_NAME);
          expect(check.status?.containerStatuses?.[0]?.containerID).toMatch(/^containerd:\/\//);
          const checkOutput = await followPodLog(s.kube.kc, s.namespace, check.metadata?.name ?? '', 'check', Timeouts.jobMs);
          process.stdout.write(`check script output, from the real node:\n${checkOutput}`);
          expect(checkOutput).toContain(`canary ${canary}`);
          expect(checkOutput).toMatch(/^uid 65532$/m);
          expect(checkOutput).toContain('no service-account token');
          expect(checkOutput).toMatch(/^root filesystem read-only \(ro,/m);
          // Line by line: the log interleaves stdout and stderr in the order the node read them.
          expect(checkOutput.split('\n')).toEqual(expect.arrayContaining([`target ${TARGET}`, 'answer 0']));

          const hj = await phaseReached(s, NAME, Phase.Succeeded, Timeouts.jobMs);
          expect(hj.status?.lastExitCode).toBe(0);
          const { items } = await s.kube.core.listNamespacedPod({ namespace: s.namespace, labelSelector: `waitgate.dev/heldjob=${NAME}` });
          const jobPod = items.find((p) => p.metadata?.labels?.['waitgate.dev/check'] !== 'true');
          expect(jobPod?.spec?.nodeName).toBe(REAL_NODE_NAME);
          // Sorted, WAITGATE_TRIGGER comes last.
          const jobOutput = await podLog(s, jobPod?.metadata?.name ?? '', /^WAITGATE_TRIGGER=/m);
          process.stdout.write(`Job output, from the real node:\n${jobOutput}`);
          const env = Object.fromEntries(
            jobOutput
              .trim()
              .split('\n')
              .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
          );
          expect(env).toEqual({
            WAITGATE_TARGET: TARGET,
            WAITGATE_FORGE: 'github',
            WAITGATE_REPOSITORY: 'acme/web',
            WAITGATE_NUMBER: '7',
            WAITGATE_KIND: 'pull_request',
            WAITGATE_TRIGGER: 'deploy',
            WAITGATE_DELIVERY: DELIVERY,
            WAITGATE_HELDJOB: NAME,
          });
          expect(await waitgateRecords(s)).not.toContain(canary);
        },
        scenarioSetup(profiles),
      );
    },
    Timeouts.testMs,
  );

  const verdicts: [string, number | 'hang', string, number | undefined][] = [
    ['exit 3 (not yet) until the maximum: wait-expired', 3, RefusalToken.Expired, 3],
    ['exit 2 (never): wait-refused', 2, RefusalToken.Refused, 2],
    ['exit 1 (could not tell): wait-unanswerable', 1, RefusalToken.Unanswerable, 1],
    ['a script that hangs past its timeout: wait-unanswerable, its Pod deleted', 'hang', RefusalToken.Unanswerable, undefined],
  ];
  for (const [title, answer, reason, lastExit] of verdicts) {
    realNodeTest(
      `a check script on the real node: ${title}; its canary is nowhere in waitgate's records`,
      async () => {
        const canary = `canary-${randomBytes(8).toString('hex')}`;
        const profiles = podProfiles({ answers: checkScript(canary, answer) });
        await withScenario(
          `real-${answer}`,
          async (s) => {
            await s.kube.createHeldJob(s.namespace, realHeldJob('answers', 'echo launched'));
            const hj = await phaseReached(s, NAME, Phase.Refused, Timeouts.jobMs);
            expect(hj.status?.reason).toBe(reason);
            if (lastExit !== undefined) expect(hj.status?.lastExitCode).toBe(lastExit);
            await eventually('every check Pod to be deleted', async () => ((await checkPods(s)).length === 0 ? true : undefined));
            expect(await s.kube.jobExists(s.namespace, NAME)).toBe(false);
            expect(await waitgateRecords(s)).not.toContain(canary);
          },
          scenarioSetup(profiles, {
            WAITGATE_WAIT_MAX_MS: '6000',
            ...(answer === 'hang' ? { WAITGATE_WAIT_CHECK_TIMEOUT_MS: '3000' } : {}),
          }),
        );
      },
      Timeouts.testMs,
    );
  }

  realNodeTest(
    'a Job whose container exits non-zero on the real node ends its HeldJob Failed; run as a Job, the hardening probe finds root, a token and a writable root',
    () =>
      withScenario(
        'real-fail',
        async (s) => {
          // The control of the check Pods' hardening probe: a plain Job's container, with the
          // token volume the ServiceAccount admission plugin would add (this cluster runs
          // without it), finds everything the check Pod lacks, and exits 2.
          const hj = realHeldJob(undefined, hardeningProbe(2));
          const pod = (hj['spec'] as { job: { template: { spec: Record<string, unknown> } } }).job.template.spec;
          pod['serviceAccountName'] = 'default';
          pod['volumes'] = [
            { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }] } },
          ];
          (pod['containers'] as Record<string, unknown>[])[0]!['volumeMounts'] = [
            { name: 'token', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
          ];
          await eventually('the default ServiceAccount', () =>
            s.kube.core.readNamespacedServiceAccount({ namespace: s.namespace, name: 'default' }),
          );
          await s.kube.createHeldJob(s.namespace, hj);
          await phaseReached(s, NAME, Phase.Failed, Timeouts.jobMs);
          const { items } = await s.kube.core.listNamespacedPod({ namespace: s.namespace, labelSelector: `waitgate.dev/heldjob=${NAME}` });
          const term = items[0]?.status?.containerStatuses?.[0]?.state?.terminated;
          expect(items[0]?.spec?.nodeName).toBe(REAL_NODE_NAME);
          expect(term?.exitCode).toBe(2);
          const output = await podLog(s, items[0]?.metadata?.name ?? '', /^root (filesystem|mounted)/m);
          process.stdout.write(`failing Job output, from the real node:\n${output}`);
          expect(output.split('\n')).toEqual(expect.arrayContaining(['uid 0', 'runs as root', 'token mounted']));
          expect(output).toMatch(/^root filesystem writable \(rw,/m);
        },
        scenarioSetup(podProfiles({})),
      ),
    Timeouts.testMs,
  );
});
