// Credentials for pod-mode checks on the real node: a profile names a Secret of the operator's
// namespace labelled waitgate.dev/check-secret, its check Pod reads the token from the mounted
// file and from the variable the profile asks for, and the hold launches; a profile naming an
// unlabelled Secret has its check Pod refused by the check-pod-secrets admission policy
// (installed here from policies/, bound to the test's namespace) and its hold pauses with a
// Warning, counting nothing; `waitgate check --pod` runs the same check Pod and explains exit 0.
// Skipped, with the reason, where there is no real node.
import { describe, expect } from '@jest/globals';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CHECK_SECRET_LABEL, secretFilePath } from '../../api/check-secrets.js';
import { ConditionReason, EventReason, Phase } from '../../api/vocabulary.js';
import { heldJob } from '../support/builders.js';
import { kubectl } from '../support/chart.js';
import { kubeconfigPath, ROOT } from '../support/env.js';
import { REAL_NODE_IMAGE, REAL_NODE_NAMESPACE_ANNOTATIONS, realNodeTest } from '../support/real-node.js';
import { withScenario, type Scenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const CLI = join(ROOT, 'bin', 'waitgate.js');
const LABELLED = 'jira';
const UNLABELLED = 'plain-token';
const CHECK_TIMEOUT_MS = '20000';

/** Exits 0 only when the file and the variable both carry the token; 1 (could not tell) otherwise. */
function tokenScript(token: string): string {
  return `#!/bin/sh
file=$(cat ${secretFilePath(LABELLED, 'token')} 2>/dev/null) || { echo "no file"; exit 1; }
[ "$file" = "${token}" ] || { echo "file differs"; exit 1; }
[ "$JIRA_TOKEN" = "${token}" ] || { echo "env differs"; exit 1; }
# The HTTP shape of docs/checks.md keeps its answer in a private file: mktemp must work.
out=$(mktemp) || { echo "no mktemp"; exit 1; }
printf '%s' "$JIRA_TOKEN" > "$out" && [ "$(cat "$out")" = "${token}" ] || exit 1
rm -f "$out"
exit 0
`;
}

function profilesData(token: string): Record<string, string> {
  return {
    'check.sh': tokenScript(token),
    'profiles.json': JSON.stringify({
      api: { script: 'check.sh', image: REAL_NODE_IMAGE, secrets: [LABELLED], env: { JIRA_TOKEN: { secret: LABELLED, key: 'token' } } },
      plain: { script: 'check.sh', image: REAL_NODE_IMAGE, secrets: [UNLABELLED] },
    }),
  };
}

/** policies/' check-pod-secrets, named and bound for this namespace alone (its params: this namespace's unlabelled Secrets). */
async function installPolicy(namespace: string): Promise<() => Promise<void>> {
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'policies', 'waitgate-admission-policies.yaml'), 'utf8'))
    .map((d) => d.toJS() as { kind: string; metadata: { name: string }; spec: Record<string, unknown> } | null)
    .filter((m) => m !== null && m.metadata.name === 'waitgate-check-pod-secrets') as {
    kind: string;
    metadata: { name: string };
    spec: Record<string, unknown>;
  }[];
  expect(docs.map((d) => d.kind).sort()).toEqual(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
  const name = `${namespace}-check-pod-secrets`;
  const objects = docs.map((d) => {
    const o = structuredClone(d);
    o.metadata.name = name;
    if (o.kind === 'ValidatingAdmissionPolicyBinding') {
      o.spec['policyName'] = name;
      (o.spec['paramRef'] as Record<string, unknown>)['namespace'] = namespace;
      o.spec['matchResources'] = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } } };
    }
    return { apiVersion: 'admissionregistration.k8s.io/v1', ...o };
  });
  const input = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects });
  const r = await kubectl(['apply', '-f', '-'], { input });
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  return async () => {
    await kubectl(['delete', '--ignore-not-found', '-f', '-'], { input });
  };
}

async function secrets(s: Scenario, token: string): Promise<void> {
  await s.kube.core.createNamespacedSecret({
    namespace: s.namespace,
    body: { metadata: { name: LABELLED, labels: { [CHECK_SECRET_LABEL]: 'true' } }, stringData: { token } },
  });
  await s.kube.core.createNamespacedSecret({ namespace: s.namespace, body: { metadata: { name: UNLABELLED }, stringData: { token } } });
}

/** `node bin/waitgate.js ...args`, as a user runs it; never rejects. */
function waitgate(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env['PATH'] ?? '', KUBECONFIG: kubeconfigPath(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), Timeouts.testMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const setup = (token: string) => ({
  namespaceAnnotations: { ...REAL_NODE_NAMESPACE_ANNOTATIONS },
  configMaps: { 'waitgate-profiles': profilesData(token) },
  env: { WAITGATE_WAIT_MAX_FAULTS: '1', WAITGATE_WAIT_CHECK_TIMEOUT_MS: CHECK_TIMEOUT_MS, WAITGATE_WAIT_INTERVAL_MS: '60000' },
});

describe('credentials for checks, on the real node', () => {
  realNodeTest(
    'a check reads its token from a labelled Secret (file and env) and the hold launches; `waitgate check --pod` explains exit 0',
    async () => {
      const token = `tok-${randomBytes(8).toString('hex')}`;
      await withScenario(
        'secrets-go',
        async (s) => {
          await secrets(s, token);
          const uninstall = await installPolicy(s.namespace);
          try {
            await s.kube.createHeldJob(s.namespace, heldJob({ name: 'api-go', waitFor: [{ profile: 'api' }] }));
            // Launched: its Job created (how the Job then ends is not this test's business).
            const hj = await eventually(
              'api-go to launch',
              async () => {
                const h = await s.kube.getHeldJob(s.namespace, 'api-go');
                return [Phase.Running, Phase.Succeeded, Phase.Failed].some((p) => p === h?.status?.phase) ? h : undefined;
              },
              Timeouts.testMs / 2,
            );
            expect(hj.status?.lastExitCode).toBe(0);
            expect(hj.status?.faults ?? 0).toBe(0);

            const run = await waitgate(['check', '--pod', 'api', 'acme/web#7', '--waitgate-namespace', s.namespace], {
              WAITGATE_WAIT_CHECK_TIMEOUT_MS: CHECK_TIMEOUT_MS,
            });
            expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
            expect(run.stdout).toMatch(/check api on acme\/web#7 in a Pod of /);
            expect(run.stdout).toMatch(/Secrets jira \(env JIRA_TOKEN\)/);
            expect(run.stdout).toMatch(/^exit 0 after .*: go\.$/m);
            // The token is in no output, and the CLI's check Pod is gone.
            expect(run.stdout + run.stderr).not.toContain(token);
            const left = await s.kube.core.listNamespacedPod({ namespace: s.namespace, labelSelector: 'waitgate.dev/check=true' });
            expect(left.items.map((p) => p.metadata?.name)).toEqual([]);
          } finally {
            await uninstall();
          }
        },
        setup(token),
      );
    },
    Timeouts.testMs * 2,
  );

  realNodeTest(
    'a profile naming an unlabelled Secret: its check Pod is refused at admission, the hold pauses with a Warning, nothing counted',
    async () => {
      const token = `tok-${randomBytes(8).toString('hex')}`;
      await withScenario(
        'secrets-refused',
        async (s) => {
          await secrets(s, token);
          const uninstall = await installPolicy(s.namespace);
          try {
            // The policy sees the Secrets through the apiserver's cache: a dry run shows when it is in force.
            await eventually(
              'the check-pod-secrets policy to refuse a check Pod naming the unlabelled Secret',
              async () => {
                const pod = {
                  apiVersion: 'v1',
                  kind: 'Pod',
                  metadata: { generateName: 'probe-', labels: { 'waitgate.dev/check': 'true' } },
                  spec: {
                    containers: [{ name: 'c', image: REAL_NODE_IMAGE }],
                    volumes: [{ name: 's', secret: { secretName: UNLABELLED } }],
                  },
                };
                const r = await kubectl(['create', '-n', s.namespace, '--dry-run=server', '-f', '-'], { input: JSON.stringify(pod) });
                return r.code !== 0 && /not labelled waitgate\.dev\/check-secret=true/.test(r.stderr) ? true : undefined;
              },
              Timeouts.shortMs,
            );
            await s.kube.createHeldJob(s.namespace, heldJob({ name: 'api-plain', waitFor: [{ profile: 'plain' }] }));
            const hj = await eventually(
              'the hold to pause (CheckSecretRefused)',
              async () => {
                const h = await s.kube.getHeldJob(s.namespace, 'api-plain');
                const w = h?.status?.conditions?.find((c) => c.type === 'Waiting');
                return w?.reason === ConditionReason.CheckSecretRefused ? h : undefined;
              },
              Timeouts.jobMs,
            );
            expect(hj.status?.phase).toBe(Phase.Held);
            expect(hj.status?.checks ?? 0).toBe(0);
            expect(hj.status?.faults ?? 0).toBe(0);
            const waiting = hj.status?.conditions?.find((c) => c.type === 'Waiting');
            expect(waiting?.message).toMatch(new RegExp(`names Secret "${UNLABELLED}", which is not labelled`));
            await eventually('the Warning naming the Secret', async () => {
              const events = await s.kube.core.listNamespacedEvent({ namespace: s.namespace });
              return events.items.find(
                (e) => e.reason === EventReason.CheckSecretRefused && e.type === 'Warning' && (e.message ?? '').includes(UNLABELLED),
              );
            });
            // `waitgate check --pod` is refused the same way, and says why.
            const run = await waitgate(['check', '--pod', 'plain', 'acme/web#7', '--waitgate-namespace', s.namespace], {
              WAITGATE_WAIT_CHECK_TIMEOUT_MS: CHECK_TIMEOUT_MS,
            });
            expect(run.code).toBe(1);
            expect(run.stdout).toMatch(new RegExp(`check Pod refused: it names Secret ${UNLABELLED}, which is not labelled`));
          } finally {
            await uninstall();
          }
        },
        setup(token),
      );
    },
    Timeouts.testMs * 2,
  );
});
