// Issue #30, findings 1 and 2, tried as an attacker would against the chart installed with its
// DEFAULT values (no watchNamespace, the trial Valkey): with the operator's ServiceAccount token
// and with the receiver's. With no watchNamespace the chart's HeldJob policies are bound in every
// namespace, so this file runs in the serial lane (test/serial, after the parallel e2e run), where
// no other test's HeldJobs share the cluster with them.
import { describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { heldJob } from '../support/builders.js';
import { join } from 'node:path';
import { kubectl, OPERATOR_SA, RECEIVER_SA, runTool, serviceAccountKubeconfig, withChart, type ToolResult } from '../support/chart.js';
import { kubeconfigPath, ROOT } from '../support/env.js';
import { TestKube } from '../support/kube.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

type PodSpec = k8s.V1PodSpec;
const OWNER = {
  apiVersion: 'waitgate.dev/v1alpha1',
  kind: 'HeldJob',
  name: 'h',
  uid: '00000000-0000-4000-8000-000000000002',
  controller: true,
};

/** A Job as the operator would create it (controlled by a HeldJob) unless `owned` is false; `f` shapes its Pod. */
function job(name: string, f: (s: PodSpec) => void = () => {}, owned = true): k8s.V1Job {
  const spec: PodSpec = { restartPolicy: 'Never', containers: [{ name: 'x', image: 'busybox:1.36', command: ['true'] }] };
  f(spec);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, ...(owned ? { ownerReferences: [OWNER] } : {}) },
    spec: { backoffLimit: 0, template: { spec } },
  };
}
const c0 = (s: PodSpec) => s.containers[0] as k8s.V1Container;

function dryRun(kubeconfig: string, obj: object, namespace: string): Promise<ToolResult> {
  return kubectl(['create', '-n', namespace, '-f', '-', '-o', 'name', '--dry-run=server'], { kubeconfig, input: JSON.stringify(obj) });
}

const verdict = (r: ToolResult, line?: RegExp) =>
  r.code === 0 ? 'admitted' : line === undefined || line.test(r.stderr) ? 'refused' : `refused otherwise: ${r.stderr.trim()}`;

describe('the chart with its default values, attacked', () => {
  test(
    "as the operator's ServiceAccount: no Job in kube-system, none unowned, none past Pod Security baseline but where a namespace is widened; Events about HeldJobs only; as the receiver's: no HeldJob without its label, and the label stays",
    async () => {
      const kube = new TestKube();
      const served = await kube.createNamespace('atk-served');
      const wide = await kube.createNamespace('atk-wide');
      try {
        await withChart(
          'atk-default',
          // The defaults, but for the test's Valkey key prefix, the CRD left to the cluster, and one
          // namespace of the test's own widened to privileged (to show the widening reaches it only).
          (ns) => ({
            valkey: { deploy: true, prefix: `test-${ns}` },
            crds: { enabled: false },
            admissionPolicy: { jobPodSecurity: { namespaces: { [wide]: 'privileged' } } },
          }),
          async (c) => {
            const ns = c.namespace;
            const op = await serviceAccountKubeconfig(c.kube, ns, OPERATOR_SA);
            const privileged = job('priv', (s) => (c0(s).securityContext = { privileged: true }));
            const cases: [string, string, k8s.V1Job, 'admitted' | RegExp][] = [
              [
                'privileged hostNetwork Job in kube-system',
                'kube-system',
                job('a', (s) => {
                  s.hostNetwork = true;
                  c0(s).securityContext = { privileged: true };
                }),
                /the operator creates no Job in namespace kube-system/,
              ],
              ['a Job in kube-public', 'kube-public', job('b'), /no Job in namespace kube-public/],
              ['a privileged Job', served, privileged, /has no privileged container/],
              [
                'a SYS_ADMIN Job',
                served,
                job('c', (s) => (c0(s).securityContext = { capabilities: { add: ['SYS_ADMIN'] } })),
                /adds no capability beyond Pod Security baseline's/,
              ],
              [
                'a hostPath: / Job',
                served,
                job('d', (s) => (s.volumes = [{ name: 'h', hostPath: { path: '/' } }])),
                /mounts no hostPath volume/,
              ],
              ['a Job no HeldJob owns', served, job('e', () => {}, false), /is controlled by a HeldJob/],
              ['a hostPort Job', served, job('f', (s) => (c0(s).ports = [{ containerPort: 80, hostPort: 80 }])), /opens no hostPort/],
              [
                'an Unconfined seccomp Job',
                served,
                job('g', (s) => (s.securityContext = { seccompProfile: { type: 'Unconfined' } })),
                /no Unconfined seccomp profile/,
              ],
              [
                'a baseline Job owned by a HeldJob',
                served,
                job('ok', (s) => (c0(s).securityContext = { capabilities: { add: ['NET_BIND_SERVICE'] } })),
                'admitted',
              ],
              ['a privileged Job in the widened namespace', wide, privileged, 'admitted'],
              ['an unowned Job in the widened namespace', wide, job('h', () => {}, false), /is controlled by a HeldJob/],
            ];
            // The policies take effect a moment after they are made (a dry run stores nothing).
            await eventually(
              'the operator-jobs policy to take effect',
              async () => {
                const r = await dryRun(op, cases[0]?.[2] as object, 'kube-system');
                return r.code !== 0 && /no Job in namespace kube-system/.test(r.stderr) ? r : undefined;
              },
              Timeouts.shortMs,
            );
            const got = await Promise.all(
              cases.map(async ([what, n, j, want]) => {
                const r = await dryRun(op, j, n);
                return [what, want === 'admitted' ? verdict(r) : verdict(r, want)] as const;
              }),
            );
            expect(Object.fromEntries(got)).toEqual(
              Object.fromEntries(cases.map(([what, , , want]) => [what, want === 'admitted' ? 'admitted' : 'refused'])),
            );

            // Events: about a HeldJob, yes; dressed up as about a Pod, no.
            const event = (kind: string, apiVersion: string) => ({
              apiVersion: 'v1',
              kind: 'Event',
              metadata: { name: `e-${kind.toLowerCase()}` },
              involvedObject: { apiVersion, kind, name: 'x', namespace: served },
              reason: 'Test',
              message: 'm',
              type: 'Normal',
            });
            expect(verdict(await dryRun(op, event('HeldJob', 'waitgate.dev/v1alpha1'), served))).toBe('admitted');
            expect(verdict(await dryRun(op, event('Pod', 'v1'), served), /an Event the operator writes is about a HeldJob or a Job/)).toBe(
              'refused',
            );

            // The receiver: its HeldJobs carry waitgate.dev/made-by: receiver, and the label stays.
            const rc = await serviceAccountKubeconfig(c.kube, ns, RECEIVER_SA);
            const bare = heldJob({ name: 'ghost' });
            expect(
              verdict(await dryRun(rc, bare, ns), /a HeldJob the receiver writes carries the label waitgate\.dev\/made-by: receiver/),
            ).toBe('refused');
            const labelled = heldJob({ name: 'mine' }) as { metadata: { labels?: Record<string, string> } };
            labelled.metadata.labels = { ...labelled.metadata.labels, 'waitgate.dev/made-by': 'receiver' };
            const made = await kubectl(['create', '-n', ns, '-f', '-', '-o', 'name'], { kubeconfig: rc, input: JSON.stringify(labelled) });
            expect({ stderr: made.stderr, code: made.code }).toEqual({ stderr: '', code: 0 });
            const patch = (kc: string | undefined, labels: object) =>
              kubectl(
                ['patch', 'heldjobs.waitgate.dev', 'mine', '-n', ns, '--type=merge', '-p', JSON.stringify({ metadata: { labels } })],
                kc ? { kubeconfig: kc } : {},
              );
            const unlabel = /the label waitgate\.dev\/made-by is set when a HeldJob is created and never added, changed or removed/;
            expect(
              verdict(
                await patch(rc, { 'waitgate.dev/made-by': null }),
                /carries the label waitgate\.dev\/made-by: receiver|never added, changed or removed/,
              ),
            ).toBe('refused');
            expect(verdict(await patch(undefined, { 'waitgate.dev/made-by': null }), unlabel)).toBe('refused');
            expect(verdict(await patch(undefined, { 'waitgate.dev/made-by': 'someone' }), unlabel)).toBe('refused');
            // The receiver writes a status only to mark its own record Refused: a merge patch of
            // the status subresource, as its code sends (it has patch there, not get).
            const asReceiver = new k8s.KubeConfig();
            asReceiver.loadFromFile(rc);
            const custom = asReceiver.makeApiClient(k8s.CustomObjectsApi);
            const status = async (phase: string): Promise<string> => {
              try {
                await custom.patchNamespacedCustomObjectStatus(
                  {
                    group: 'waitgate.dev',
                    version: 'v1alpha1',
                    plural: 'heldjobs',
                    namespace: ns,
                    name: 'mine',
                    body: { status: { phase } },
                  },
                  k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
                );
                return 'admitted';
              } catch (err) {
                return /the receiver writes a status only to mark a record of its own/.test(String((err as { body?: unknown }).body ?? err))
                  ? 'refused'
                  : `refused otherwise: ${String((err as { body?: unknown }).body ?? err)}`;
              }
            };
            expect(await status('Running')).toBe('refused');
            expect(await status('Refused')).toBe('admitted');

            // And doctor says so, from what the chart recorded on the operator-jobs policy.
            const doctor = await runTool(process.execPath, [
              join(ROOT, 'bin', 'waitgate.js'),
              'doctor',
              '--kubeconfig',
              kubeconfigPath(),
              '--waitgate-namespace',
              ns,
            ]);
            expect(doctor.stdout).toMatch(
              /^ok {4}protection: the operator's Jobs meet Pod Security baseline and are created only under a HeldJob/m,
            );
            expect(doctor.stdout).toContain(
              `WARN  protection: Jobs in ${wide} may be privileged (admissionPolicy.jobPodSecurity.namespaces): whoever may write a HeldJob there may run one`,
            );
          },
        );
      } finally {
        await kube.deleteNamespace(served);
        await kube.deleteNamespace(wide);
      }
    },
    Timeouts.testMs,
  );
});
