// Who may launch what, against the real apiserver with the chart installed: the chart's
// ValidatingAdmissionPolicies refuse a HeldJob from whoever may not create Jobs in its namespace
// (the receiver's ServiceAccount excepted), and refuse any Pod from the operator's
// ServiceAccount that is not a check Pod; the chart's RBAC keeps the operator away from Secrets
// and from Pods outside its namespace. policies/ holds the same policies as plain manifests.
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { Profile } from '../../api/profiles.js';
import { checkPod } from '../../operator/checks/pod-check.js';
import { CHECK_SECRET_LABEL } from '../../api/check-secrets.js';
import { afterIn, heldJob } from '../support/builders.js';
import {
  baseValues,
  canI,
  CHART_DIR,
  installNotes,
  kubectl,
  mustRun,
  runTool,
  OPERATOR_SA,
  RECEIVER_SA,
  RELEASE,
  serviceAccountKubeconfig,
  withChart,
  type ChartInstall,
  type ToolResult,
} from '../support/chart.js';
import { kubeconfigPath, ROOT } from '../support/env.js';
import { operatorProcess } from '../support/service-process.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

type Manifest = { kind: string; metadata: { name: string }; spec: Record<string, unknown> };

async function render(ns: string, args: readonly string[] = []): Promise<Manifest[]> {
  const r = await mustRun('helm', ['template', RELEASE, CHART_DIR, '-n', ns, '--set', 'valkey.url=redis://valkey:6379', ...args]);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

/** A Secret of the release namespace labelled for checks, and one that is not. */
const CHECK_SECRET = 'jira';
const PLAIN_SECRET = 'plain-token';

const policyKinds = new Set(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);

/** kubectl create of one object as whoever the kubeconfig names; `dryRun` asks the server to admit it without storing it. */
function createAs(kubeconfig: string, obj: object, namespace: string, dryRun = false): Promise<ToolResult> {
  return kubectl(['create', '-n', namespace, '-f', '-', '-o', 'name', ...(dryRun ? ['--dry-run=server'] : [])], {
    kubeconfig,
    input: JSON.stringify(obj),
  });
}

/** A ServiceAccount of the test namespace bound to a Role with these rules; its kubeconfig. */
async function userWith(c: ChartInstall, name: string, rules: object[]): Promise<string> {
  const n = c.namespace;
  const docs = [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: n } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace: n }, rules },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name, namespace: n },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace: n }],
    },
  ];
  await mustRun(
    'kubectl',
    ['--kubeconfig', kubeconfigPath(), 'apply', '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: docs }),
  );
  return serviceAccountKubeconfig(c.kube, n, name);
}

/** A RuntimeClass the tests create (cluster-scoped, shared, harmless: no node runs it). */
const RUNTIME_CLASS = 'waitgate-test-gvisor';

const heldJobRules = { apiGroups: ['waitgate.dev'], resources: ['heldjobs'], verbs: ['create', 'get', 'update', 'patch'] };
const jobRules = { apiGroups: ['batch'], resources: ['jobs'], verbs: ['create'] };
const randomName = (p: string) => `${p}-${Math.random().toString(36).slice(2, 8)}`;

/** Admission policies take effect a moment after they are made: wait until this one refuses (a dry run stores nothing). */
async function refusedOnceActive(kubeconfig: string, obj: object, namespace: string, message: RegExp): Promise<ToolResult> {
  return eventually(
    'the admission policy to refuse',
    async () => {
      const r = await createAs(kubeconfig, obj, namespace, true);
      return r.code !== 0 && message.test(r.stderr) ? r : undefined;
    },
    Timeouts.shortMs,
  );
}

describe('the chart and policies/ ship the same admission policies', () => {
  test.concurrent(
    "policies/ equals the chart's rendering for a release named waitgate in waitgate-system",
    async () => {
      const chart = (await render('waitgate-system')).filter((m) => policyKinds.has(m.kind));
      const plain = parseAllDocuments(readFileSync(join(ROOT, 'policies', 'waitgate-admission-policies.yaml'), 'utf8'))
        .map((d) => d.toJS() as Manifest | null)
        .filter((m): m is Manifest => m !== null);
      const byName = (ms: Manifest[], strip: string) =>
        Object.fromEntries(
          ms.map((m) => {
            const spec = { ...m.spec };
            if (typeof spec['policyName'] === 'string') spec['policyName'] = spec['policyName'].replace(strip, '');
            return [`${m.kind}/${m.metadata.name.replace(strip, '')}`, spec];
          }),
        );
      expect(byName(plain, 'waitgate-')).toEqual(byName(chart, 'waitgate-system-waitgate-'));
      expect(Object.keys(byName(plain, 'waitgate-')).sort()).toEqual([
        'ValidatingAdmissionPolicy/check-pod-secrets',
        'ValidatingAdmissionPolicy/heldjob-approval',
        'ValidatingAdmissionPolicy/heldjob-launchers',
        'ValidatingAdmissionPolicy/heldjob-made-by',
        'ValidatingAdmissionPolicy/heldjob-spec-immutable',
        'ValidatingAdmissionPolicy/heldjob-status',
        'ValidatingAdmissionPolicy/operator-events',
        'ValidatingAdmissionPolicy/operator-jobs',
        'ValidatingAdmissionPolicy/operator-pods',
        'ValidatingAdmissionPolicyBinding/check-pod-secrets',
        'ValidatingAdmissionPolicyBinding/heldjob-approval',
        'ValidatingAdmissionPolicyBinding/heldjob-launchers',
        'ValidatingAdmissionPolicyBinding/heldjob-made-by',
        'ValidatingAdmissionPolicyBinding/heldjob-spec-immutable',
        'ValidatingAdmissionPolicyBinding/heldjob-status',
        'ValidatingAdmissionPolicyBinding/operator-events',
        'ValidatingAdmissionPolicyBinding/operator-jobs',
        'ValidatingAdmissionPolicyBinding/operator-pods',
      ]);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'the HeldJob bindings cover watchNamespace when set, every namespace when not; admissionPolicy.enabled=false renders none',
    async () => {
      for (const policy of ['-heldjob-launchers', '-heldjob-spec-immutable', '-heldjob-made-by', '-heldjob-status', '-heldjob-approval']) {
        const binding = (ms: Manifest[]) =>
          ms.find((m) => m.kind === 'ValidatingAdmissionPolicyBinding' && m.metadata.name.endsWith(policy));
        expect(binding(await render('team-a'))?.spec['matchResources']).toBeUndefined();
        expect(
          binding(await render('team-a', ['--set', 'watchNamespace=team-b', '--set', 'receiver.jobNamespace=team-b']))?.spec,
        ).toMatchObject({
          matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'team-b' } } },
        });
      }
      // The operator's own policies match its user name and are bound in every namespace, watchNamespace or not.
      for (const policy of ['-operator-jobs', '-operator-pods', '-operator-events']) {
        for (const args of [[], ['--set', 'watchNamespace=team-b', '--set', 'receiver.jobNamespace=team-b']]) {
          const b = (await render('team-a', args)).find(
            (m) => m.kind === 'ValidatingAdmissionPolicyBinding' && m.metadata.name.endsWith(policy),
          );
          expect({ policy, matchResources: b?.spec['matchResources'] }).toEqual({ policy, matchResources: undefined });
        }
      }
      expect((await render('team-a', ['--set', 'admissionPolicy.enabled=false'])).filter((m) => policyKinds.has(m.kind))).toEqual([]);
      // Without a receiver there is no one to except.
      const noReceiver = (await render('team-a', ['--set', 'receiver.enabled=false'])).find(
        (m) => m.kind === 'ValidatingAdmissionPolicy' && m.metadata.name.endsWith('-heldjob-launchers'),
      );
      expect(JSON.stringify(noReceiver?.spec)).not.toMatch(/receiver/);
      // A cluster older than 1.30 (no admissionregistration.k8s.io/v1 policies, no CEL in the CRD)
      // is refused by the chart's kubeVersion before anything renders.
      const old = await runTool('helm', [
        'template',
        RELEASE,
        CHART_DIR,
        '-n',
        'team-a',
        '--set',
        'valkey.url=redis://v:6379',
        '--kube-version',
        '1.29.0',
      ]);
      expect(old.code).not.toBe(0);
      expect(old.stderr).toMatch(/chart requires kubeVersion: >=1\.30\.0-0 which is incompatible with Kubernetes v1\.29\.0/);
    },
    Timeouts.testMs,
  );
});

describe('what a check script is granted, as the chart renders it', () => {
  test.concurrent(
    'profiles run in pod mode unless they say exec; the NOTES warn of each exec one and say what it grants',
    async () => {
      const args = [
        '--set',
        'valkey.url=redis://v:6379',
        '--set',
        'profiles.silent.script=#!/bin/sh',
        '--set',
        'profiles.chosen.script=#!/bin/sh',
        '--set',
        'profiles.chosen.mode=exec',
      ];
      const ms = await render('team-a', args.slice(2));
      const cm = ms.find((m) => m.kind === 'ConfigMap' && m.metadata.name === 'waitgate-profiles') as unknown as {
        data: Record<string, string>;
      };
      expect(JSON.parse(cm.data['profiles.json'] ?? '{}')).toEqual({
        silent: { mode: 'pod', script: 'silent.sh' },
        chosen: { mode: 'exec', script: 'chosen.sh' },
      });
      const notes = await installNotes('team-a', args);
      expect(notes).toMatch(/^WARNING: exec-mode profiles \(chosen\) run inside the operator's container/m);
      expect(notes).toMatch(
        /can read the operator's ServiceAccount token and act as the operator \(create Jobs in every\s+namespace it serves, which is every namespace\)/,
      );
      const podOnly = await installNotes('team-a', args.slice(0, 4));
      expect(podOnly).not.toMatch(/exec-mode/);
      expect(podOnly).toMatch(
        /^Checks: +every profile this chart declares runs in a Pod of its own: no token, not root, in\s+the waitgate image/m,
      );
      // The operator is told the image of profiles that name none: the chart's own, or operator.checkImage.
      const env = (extra: string[]) =>
        render('team-a', [...extra]).then((r) => {
          const d = r.find((m) => m.kind === 'Deployment' && m.metadata.name === 'waitgate-operator') as unknown as {
            spec: { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } };
          };
          return d.spec.template.spec.containers[0]?.env.find((e) => e.name === 'WAITGATE_CHECK_IMAGE')?.value;
        });
      expect(await env(['--set', 'image.tag=1.2.3'])).toBe('ghcr.io/waitgate/waitgate:1.2.3');
      expect(await env(['--set', 'operator.checkImage=registry.example/checks:1'])).toBe('registry.example/checks:1');
    },
    Timeouts.testMs,
  );
});

describe('who may launch what, with the chart installed', () => {
  test.concurrent(
    'create heldjobs without create jobs is refused, naming the missing permission; with both, or as the receiver, admitted; spec updates too',
    async () => {
      let release = '';
      await withChart(
        'admission-hj',
        (ns) => ({ ...baseValues(ns), watchNamespace: ns }),
        async (c) => {
          const ns = c.namespace;
          release = ns;
          const only = await userWith(c, 'heldjobs-only', [heldJobRules]);
          const both = await userWith(c, 'heldjobs-and-jobs', [heldJobRules, jobRules]);
          const receiver = await serviceAccountKubeconfig(c.kube, ns, RECEIVER_SA);
          expect(await canI(only, ['create', 'heldjobs.waitgate.dev', '-n', ns])).toBe(true);
          expect(await canI(only, ['create', 'jobs.batch', '-n', ns])).toBe(false);
          expect(await canI(both, ['create', 'jobs.batch', '-n', ns])).toBe(true);
          expect(await canI(receiver, ['create', 'jobs.batch', '-n', ns])).toBe(false);

          const message = new RegExp(
            `waitgate: system:serviceaccount:${ns}:heldjobs-only lacks the permission to create jobs\\.batch in namespace ${ns}`,
          );
          const refused = await refusedOnceActive(only, heldJob({ name: randomName('only') }), ns, message);
          expect(refused.stderr).toMatch(/Forbidden/);
          expect(refused.stderr).toMatch(new RegExp(`ValidatingAdmissionPolicy '${ns}-waitgate-heldjob-launchers'`));
          // For real, too: nothing stored.
          const stored = await createAs(only, heldJob({ name: 'only-real' }), ns);
          expect(stored.stderr).toMatch(message);
          expect(await c.kube.getHeldJob(ns, 'only-real')).toBeUndefined();

          const admitted = await createAs(both, heldJob({ name: 'both' }), ns);
          expect(admitted.stderr).toBe('');
          expect(admitted.stdout.trim()).toBe('heldjob.waitgate.dev/both');
          // The receiver's HeldJobs carry waitgate.dev/made-by: receiver (heldjob-made-by); without it, refused.
          const madeBy = (o: object) => {
            const h = o as { metadata: { labels?: Record<string, string> } };
            h.metadata.labels = { ...h.metadata.labels, 'waitgate.dev/made-by': 'receiver' };
            return h;
          };
          const unlabelled = await createAs(receiver, heldJob({ name: 'from-receiver-bare' }), ns);
          expect(unlabelled.stderr).toMatch(/a HeldJob the receiver writes carries the label waitgate\.dev\/made-by: receiver/);
          const byReceiver = await createAs(receiver, madeBy(heldJob({ name: 'from-receiver' })), ns);
          expect(byReceiver.stderr).toBe('');
          expect(await c.kube.getHeldJob(ns, 'from-receiver')).toBeDefined();
          // Once set, no one takes the label off, not even an admin.
          const unlabel = await kubectl(['label', 'heldjobs.waitgate.dev', 'from-receiver', '-n', ns, 'waitgate.dev/made-by-']);
          expect(unlabel.stderr).toMatch(
            /the label waitgate\.dev\/made-by is set when a HeldJob is created and never added, changed or removed/,
          );

          // An update that changes spec needs create jobs as well; one that only labels does not.
          const patchAs = (kc: string, patch: object) =>
            kubectl(['patch', 'heldjob', 'both', '-n', ns, '--type=merge', '-p', JSON.stringify(patch)], { kubeconfig: kc });
          const specPatch = await patchAs(only, { spec: { target: 'acme/web#8' } });
          expect(specPatch.code).not.toBe(0);
          expect(specPatch.stderr).toMatch(message);
          expect(((await c.kube.getHeldJob(ns, 'both')) as { spec?: { target?: string } } | undefined)?.spec?.target).toBe('acme/web#7');
          expect((await patchAs(only, { metadata: { labels: { team: 'a' } } })).code).toBe(0);
          expect((await patchAs(both, { spec: { target: 'acme/web#8' } })).code).toBe(0);
          expect(((await c.kube.getHeldJob(ns, 'both')) as { spec?: { target?: string } } | undefined)?.spec?.target).toBe('acme/web#8');
        },
      );
      // The policies are cluster-scoped: helm uninstall takes them away with the release.
      for (const kind of ['validatingadmissionpolicy', 'validatingadmissionpolicybinding']) {
        for (const name of [
          'heldjob-launchers',
          'heldjob-spec-immutable',
          'heldjob-made-by',
          'heldjob-status',
          'heldjob-approval',
          'operator-pods',
          'operator-jobs',
          'operator-events',
        ]) {
          expect((await kubectl(['get', kind, `${release}-waitgate-${name}`])).stderr).toMatch(/NotFound/);
        }
      }
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'once a HeldJob has launched or ended its spec is immutable, the refusal naming each field changed; while it is held, an edit is admitted',
    () =>
      withChart(
        'admission-spec',
        (ns) => ({ ...baseValues(ns), watchNamespace: ns }),
        async (c) => {
          const ns = c.namespace;
          // A real operator takes the holds to each phase (the chart's own Pods run on kwok's nodes, which run nothing).
          const op = operatorProcess(
            { WAITGATE_WATCH_NAMESPACE: ns, WAITGATE_NAMESPACE: ns, WAITGATE_VALKEY_PREFIX: `test-${ns}` },
            `${ns}-operator`,
          );
          await op.start();
          try {
            await c.kube.createHeldJob(ns, heldJob({ name: 'held', waitFor: [{ after: afterIn(3_600_000).after }] }));
            await c.kube.createHeldJob(ns, heldJob({ name: 'running', target: 'acme/web#8', exitCode: 'never' }));
            await c.kube.createHeldJob(ns, heldJob({ name: 'done', target: 'acme/api#9' }));
            // A delivery the receiver refused, recorded: Refused without ever holding.
            const record = heldJob({ name: 'refused', target: 'acme/ops#1' }) as { metadata: Record<string, unknown> };
            record.metadata['annotations'] = { 'waitgate.dev/refusal': 'wait-superseded', 'waitgate.dev/refusal-message': 'm' };
            await c.kube.createHeldJob(ns, record);
            const phase = (name: string, want: string) =>
              eventually(
                `${name} to be ${want}`,
                async () => {
                  const hj = await c.kube.getHeldJob(ns, name);
                  return hj?.status?.phase === want ? hj : undefined;
                },
                Timeouts.jobMs,
              );
            await Promise.all([
              phase('held', 'Held'),
              phase('running', 'Running'),
              phase('done', 'Succeeded'),
              phase('refused', 'Refused'),
            ]);

            const patchSpec = (name: string, body: object, dryRun = false) =>
              kubectl([
                'patch',
                'heldjobs.waitgate.dev',
                name,
                '-n',
                ns,
                '--type=merge',
                '-p',
                JSON.stringify(body),
                ...(dryRun ? ['--dry-run=server'] : []),
              ]);
            const immutable = (name: string, phaseName: string) =>
              new RegExp(
                `the spec of a HeldJob is immutable once it has launched or ended \\(${name} is ${phaseName}\\); its Job runs as launched`,
              );
            await eventually(
              'the spec policy to refuse',
              async () => {
                const r = await patchSpec('running', { spec: { note: 'x' } }, true);
                return r.code !== 0 && immutable('running', 'Running').test(r.stderr) ? r : undefined;
              },
              Timeouts.shortMs,
            );

            const cases: [string, string, object, string[]][] = [
              ['running', 'Running', { spec: { note: 'x' } }, ['spec.note']],
              ['running', 'Running', { spec: { target: 'acme/web#9' } }, ['spec.target']],
              ['done', 'Succeeded', { spec: { job: { backoffLimit: 3 } } }, ['spec.job']],
              ['refused', 'Refused', { spec: { trigger: 'other', note: 'y' } }, ['spec.trigger', 'spec.note']],
            ];
            for (const [name, phaseName, body, fields] of cases) {
              const before = await c.kube.getHeldJob(ns, name);
              const r = await patchSpec(name, body);
              expect({ name, code: r.code }).toEqual({ name, code: 1 });
              expect(r.stderr).toMatch(new RegExp(`ValidatingAdmissionPolicy '${ns}-waitgate-heldjob-spec-immutable'`));
              expect(r.stderr).toMatch(immutable(name, phaseName));
              // Every field changed is named, in whatever order the object keeps them.
              const named = /denied request: waitgate: ([^:]+): the spec/.exec(r.stderr)?.[1]?.split(', ') ?? [];
              expect(named.sort()).toEqual([...fields].sort());
              const after = await c.kube.getHeldJob(ns, name);
              expect(after?.metadata.generation).toBe(before?.metadata.generation);
              expect(after?.spec).toEqual(before?.spec);
            }
            // The way around it (finding 7 of #30): write phase Held through the status subresource, then edit
            // the spec. heldjob-status refuses the first step, whoever asks (here the cluster's admin).
            const status = (name: string, phaseName: string) =>
              kubectl([
                'patch',
                'heldjobs.waitgate.dev',
                name,
                '-n',
                ns,
                '--subresource=status',
                '--type=merge',
                '-p',
                JSON.stringify({ status: { phase: phaseName } }),
              ]);
            const back = await status('running', 'Held');
            expect(back.stderr).toMatch(
              /running is Running, its Job created, and goes on to Succeeded or Failed only \(status\.phase Held refused\)/,
            );
            const reopened = await status('done', 'Running');
            expect(reopened.stderr).toMatch(
              /done ended Succeeded, and a HeldJob that has ended stays so \(status\.phase Running refused\)/,
            );
            expect((await c.kube.getHeldJob(ns, 'running'))?.status?.phase).toBe('Running');
            // Metadata is not the spec: a label still goes on.
            expect((await kubectl(['label', 'heldjobs.waitgate.dev', 'running', '-n', ns, 'team=a'])).code).toBe(0);
            // While it is held, its spec may change: the launch builds the Job from it then.
            const edited = await patchSpec('held', { spec: { job: { backoffLimit: 1 } } });
            expect(edited.stderr).toBe('');
            expect(edited.code).toBe(0);
            const held = await c.kube.getHeldJob(ns, 'held');
            expect(held?.metadata.generation).toBe(2);
            expect((held?.spec as { job?: { backoffLimit?: number } }).job?.backoffLimit).toBe(1);
          } finally {
            await op.stop();
          }
        },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    "the operator's ServiceAccount: no Secrets anywhere, Pods only in its namespace, and only check Pods there",
    () =>
      withChart(
        'admission-op',
        (ns) => ({ ...baseValues(ns), watchNamespace: ns }),
        async (c) => {
          const ns = c.namespace;
          const op = await serviceAccountKubeconfig(c.kube, ns, OPERATOR_SA);
          const denied = [
            ['get', 'secrets', '-n', ns],
            ['list', 'secrets', '-n', ns],
            ['get', 'secrets', '-n', 'kube-system'],
            ['list', 'secrets', '--all-namespaces'],
            ['watch', 'secrets', '--all-namespaces'],
            ['create', 'pods', '-n', 'default'],
            ['create', 'pods', '-n', 'kube-system'],
            ['create', 'pods', '--all-namespaces'],
            ['create', 'pods', '--subresource=ephemeralcontainers', '-n', ns],
            ['update', 'pods', '-n', ns],
          ];
          // Two Secrets of the release namespace: one labelled for checks, one not.
          for (const [name, labels] of [
            [CHECK_SECRET, { [CHECK_SECRET_LABEL]: 'true' }],
            [PLAIN_SECRET, {}],
          ] as const) {
            await c.kube.core.createNamespacedSecret({
              namespace: ns,
              body: { metadata: { name, labels }, stringData: { token: 'not-a-real-token' } },
            });
          }
          const answers = await Promise.all(denied.map(async (a) => [a.join(' '), await canI(op, a)] as const));
          expect(Object.fromEntries(answers)).toEqual(Object.fromEntries(denied.map((a) => [a.join(' '), false])));
          expect(await canI(op, ['create', 'pods', '-n', ns])).toBe(true);

          // A check Pod exactly as the operator builds it is admitted...
          const profile: Profile = { name: 'ci', mode: 'pod', script: 'ci.sh', image: 'busybox:1.36' };
          const base = checkPod({
            name: 'waitgate-check-x',
            namespace: ns,
            profile,
            target: 'acme/web#7',
            key: `${ns}/web-7-deploy`,
            worker: 'waitgate',
            configMap: 'waitgate-profiles',
            timeoutMs: 10_000,
            startTimeoutMs: 120_000,
          });
          // ... and every way out of a check Pod's bounds is refused, naming the bound.
          const variant = (f: (p: typeof base) => void) => {
            const p = structuredClone(base);
            f(p);
            return p;
          };
          const spec = (p: typeof base) => p.spec as NonNullable<typeof base.spec>;
          const container = (p: typeof base) => spec(p).containers[0] as NonNullable<typeof base.spec>['containers'][number];
          const cases: [string, typeof base, RegExp][] = [
            ['a mounted token', variant((p) => (spec(p).automountServiceAccountToken = true)), /mounts no service-account token/],
            ['no word on the token', variant((p) => delete spec(p).automountServiceAccountToken), /mounts no service-account token/],
            ["the operator's own ServiceAccount", variant((p) => (spec(p).serviceAccountName = OPERATOR_SA)), /default ServiceAccount/],
            ['no runAsNonRoot', variant((p) => delete spec(p).securityContext?.runAsNonRoot), /other than root/],
            ['a container as uid 0', variant((p) => (container(p).securityContext = { runAsUser: 0 })), /other than root/],
            ['a privileged container', variant((p) => (container(p).securityContext = { privileged: true })), /not privileged/],
            ['the host network', variant((p) => (spec(p).hostNetwork = true)), /no host namespace/],
            [
              'a volume of a Secret not labelled for checks',
              variant((p) => spec(p).volumes?.push({ name: 's', secret: { secretName: PLAIN_SECRET } })),
              new RegExp(`references Secret ${PLAIN_SECRET} which is not labelled waitgate.dev/check-secret=true`),
            ],
            [
              'a projected volume of a labelled Secret',
              variant((p) => spec(p).volumes?.push({ name: 's', projected: { sources: [{ secret: { name: CHECK_SECRET } }] } })),
              /only configMap, emptyDir, downwardAPI and named secret volumes/,
            ],
            [
              'a hostPath volume',
              variant((p) => spec(p).volumes?.push({ name: 'h', hostPath: { path: '/' } })),
              /only configMap, emptyDir, downwardAPI and named secret volumes/,
            ],
            [
              'a key of a Secret not labelled for checks in the environment',
              variant((p) => (container(p).env = [{ name: 'V', valueFrom: { secretKeyRef: { name: PLAIN_SECRET, key: 'token' } } }])),
              new RegExp(`references Secret ${PLAIN_SECRET} which is not labelled`),
            ],
            [
              'a labelled Secret as envFrom',
              variant((p) => (container(p).envFrom = [{ secretRef: { name: CHECK_SECRET } }])),
              /only key by key/,
            ],
            [
              'a labelled Secret beside one that is not',
              variant((p) => {
                spec(p).volumes?.push(
                  { name: 'a', secret: { secretName: CHECK_SECRET } },
                  { name: 'b', secret: { secretName: PLAIN_SECRET } },
                );
              }),
              new RegExp(`references Secret ${PLAIN_SECRET} which is not labelled`),
            ],
            [
              'an added capability',
              variant((p) => (container(p).securityContext = { ...container(p).securityContext, capabilities: { add: ['NET_RAW'] } })),
              /adds no capability and allows no privilege escalation/,
            ],
            [
              'privilege escalation',
              variant((p) => (container(p).securityContext = { ...container(p).securityContext, allowPrivilegeEscalation: true })),
              /adds no capability and allows no privilege escalation/,
            ],
            ['a hostPort', variant((p) => (container(p).ports = [{ containerPort: 80, hostPort: 80 }])), /opens no hostPort/],
            // Placed only as operator.checkPods and profiles say (admitted below).
            ['a node named outright', variant((p) => (spec(p).nodeName = 'node-1')), /is placed only by imagePullSecrets/],
            ['another scheduler', variant((p) => (spec(p).schedulerName = 'other')), /is placed only by imagePullSecrets/],
            ['a runtime class', variant((p) => (spec(p).runtimeClassName = RUNTIME_CLASS)), /is placed only by imagePullSecrets/],
            [
              'topology spread constraints',
              variant(
                (p) =>
                  (spec(p).topologySpreadConstraints = [
                    { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway' },
                  ]),
              ),
              /is placed only by imagePullSecrets/,
            ],
          ];
          // The RuntimeClass exists, so only the policy can refuse the Pod that names it (the
          // apiserver's own RuntimeClass admission refuses an unknown one first).
          await mustRun(
            'kubectl',
            ['--kubeconfig', kubeconfigPath(), 'apply', '-f', '-'],
            JSON.stringify({ apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: RUNTIME_CLASS }, handler: 'runsc' }),
          );
          // The first refusal waits for the policy to take effect; the rest are then immediate.
          await refusedOnceActive(op, cases[0]?.[1] as object, ns, cases[0]?.[2] as RegExp);
          // The check-Secret policy reads the Secrets through the apiserver's own cache: waited for too.
          const plainCase = cases.find(([what]) => what.startsWith('a volume of a Secret not labelled')) as (typeof cases)[number];
          await refusedOnceActive(op, plainCase[1], ns, plainCase[2]);
          const results = await Promise.all(
            cases.map(async ([what, pod, message]) => {
              const r = await createAs(op, pod, ns, true);
              return [
                what,
                r.code !== 0 && message.test(r.stderr) ? 'refused as expected' : `code ${String(r.code)}: ${r.stderr}`,
              ] as const;
            }),
          );
          expect(Object.fromEntries(results)).toEqual(Object.fromEntries(cases.map(([what]) => [what, 'refused as expected'])));
          const ok = await createAs(op, base, ns, true);
          expect(ok.stderr).toBe('');
          expect(ok.code).toBe(0);
          // Pull secrets, nodeSelector, tolerations and affinity, as checkPod places them, are admitted
          // (priorityClassName too: test/e2e/chart-check-pods.test.ts, which creates the class).
          const placed = checkPod({
            name: 'waitgate-check-z',
            namespace: ns,
            profile,
            target: 'acme/web#7',
            key: `${ns}/web-7-deploy`,
            worker: 'waitgate',
            configMap: 'waitgate-profiles',
            timeoutMs: 10_000,
            startTimeoutMs: 120_000,
            defaults: {
              imagePullSecrets: [{ name: 'registry' }],
              nodeSelector: { pool: 'checks' },
              tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'checks', effect: 'NoSchedule' }],
              affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } },
            },
          });
          const placedOk = await createAs(op, placed, ns, true);
          expect({ stderr: placedOk.stderr, code: placedOk.code }).toEqual({ stderr: '', code: 0 });
          // A profile's labelled Secret, mounted and read key by key, as checkPod builds it, is admitted.
          const withSecret = checkPod({
            name: 'waitgate-check-y',
            namespace: ns,
            profile: { ...profile, secrets: [CHECK_SECRET], env: { JIRA_TOKEN: { secret: CHECK_SECRET, key: 'token' } } },
            target: 'acme/web#7',
            key: `${ns}/web-7-deploy`,
            worker: 'waitgate',
            configMap: 'waitgate-profiles',
            timeoutMs: 10_000,
            startTimeoutMs: 120_000,
          });
          const labelled = await createAs(op, withSecret, ns, true);
          expect({ stderr: labelled.stderr, code: labelled.code }).toEqual({ stderr: '', code: 0 });
          // Someone else's Pod labelled as a check (what `waitgate check --pod` makes) is held to the same Secrets.
          const adminCheck = await createAs(
            kubeconfigPath(),
            variant((p) => spec(p).volumes?.push({ name: 's', secret: { secretName: PLAIN_SECRET } })),
            ns,
            true,
          );
          expect(adminCheck.code).not.toBe(0);
          expect(adminCheck.stderr).toMatch(new RegExp(`references Secret ${PLAIN_SECRET} which is not labelled`));
          // Other users' Pods are not the operator's policy's business.
          expect(
            (
              await createAs(
                kubeconfigPath(),
                variant((p) => (spec(p).automountServiceAccountToken = true)),
                ns,
                true,
              )
            ).code,
          ).toBe(0);
        },
      ),
    Timeouts.testMs,
  );
});
