// The approval condition end to end, with the chart's admission policies installed and a real
// operator: a hold waiting for `approval: release-managers` is approved by a member (kubectl
// impersonating alice in that group), and its Job is told who; a user outside the group, a
// forged name and a record on the create are refused at admission; a rejection ends the hold
// Refused wait-refused naming the rejecter; and `waitgate approve` itself, as a ServiceAccount
// whose own group is the approval group, records its user name from a SelfSubjectReview.
import { describe, expect, test } from '@jest/globals';
import { join } from 'node:path';
import { Annotations, Phase, RefusalToken } from '../../api/vocabulary.js';
import { heldJob } from '../support/builders.js';
import { baseValues, kubectl, mustRun, runTool, serviceAccountKubeconfig, withChart, type ChartInstall } from '../support/chart.js';
import { kubeconfigPath, ROOT } from '../support/env.js';
import { operatorProcess } from '../support/service-process.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const GROUP = 'release-managers';
const CLI = join(ROOT, 'bin', 'waitgate.js');

/** The users the test impersonates may read and patch HeldJobs in the namespace, nothing more. */
async function grantUsers(c: ChartInstall, users: readonly string[], serviceAccount: string): Promise<void> {
  const n = c.namespace;
  const docs = [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: serviceAccount, namespace: n } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'approvers', namespace: n },
      rules: [{ apiGroups: ['waitgate.dev'], resources: ['heldjobs'], verbs: ['get', 'list', 'patch', 'delete'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'approvers', namespace: n },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'approvers' },
      subjects: [
        ...users.map((name) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name })),
        { kind: 'ServiceAccount', name: serviceAccount, namespace: n },
      ],
    },
  ];
  await mustRun(
    'kubectl',
    ['--kubeconfig', kubeconfigPath(), 'apply', '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: docs }),
  );
}

/** kubectl annotate as `user` in `groups` (impersonated by the admin). */
function annotateAs(ns: string, name: string, user: string, groups: readonly string[], pairs: Record<string, string>, dryRun = false) {
  return kubectl([
    'annotate',
    'heldjobs.waitgate.dev',
    name,
    '-n',
    ns,
    '--as',
    user,
    ...groups.flatMap((g) => ['--as-group', g]),
    ...Object.entries(pairs).map(([k, v]) => `${k}=${v}`),
    ...(dryRun ? ['--dry-run=server'] : []),
  ]);
}

describe('approval: a member of the group says go, and the Job is told who', () => {
  test.concurrent(
    'approved by a member; refused for a non-member, a forged name and a record on the create; a rejection ends it wait-refused; waitgate approve records its own user',
    () =>
      withChart(
        'approval',
        (ns) => ({ ...baseValues(ns), watchNamespace: ns }),
        async (c) => {
          const ns = c.namespace;
          await grantUsers(c, ['alice', 'bob', 'carol'], 'approver');
          const op = operatorProcess(
            { WAITGATE_WATCH_NAMESPACE: ns, WAITGATE_NAMESPACE: ns, WAITGATE_VALKEY_PREFIX: `test-${ns}` },
            `${ns}-operator`,
          );
          await op.start();
          try {
            const hold = (name: string, group = GROUP) =>
              c.kube.createHeldJob(ns, heldJob({ name, target: `acme/web#${name.length}`, waitFor: [{ approval: group }], exitCode: 0 }));
            const reaches = (name: string, want: (hj: Awaited<ReturnType<typeof c.kube.getHeldJob>>) => boolean, what: string) =>
              eventually(
                `${name} ${what}`,
                async () => {
                  const hj = await c.kube.getHeldJob(ns, name);
                  return hj && want(hj) ? hj : undefined;
                },
                Timeouts.jobMs,
              );
            const awaiting = (name: string) =>
              reaches(
                name,
                (hj) =>
                  hj?.status?.phase === Phase.Held &&
                  (hj.status.conditions ?? []).some((k) => k.type === 'Waiting' && k.reason === 'AwaitingApproval'),
                'to be held AwaitingApproval',
              );
            await hold('go');
            await hold('nope');
            const held = await awaiting('go');
            await awaiting('nope');
            expect(held?.status?.waits).toEqual([
              { condition: `approval ${GROUP}`, state: 'Waiting', detail: `a member of ${GROUP} says go (waitgate approve)` },
            ]);
            expect(held?.status?.nextCheckAt).toBeDefined();
            expect(await c.kube.listJobs(ns)).toHaveLength(0);

            // The policy takes effect a moment after it is made: wait until it refuses a non-member (a dry run stores nothing).
            const notMember = await eventually(
              'the approval policy to refuse a non-member',
              async () => {
                const r = await annotateAs(ns, 'go', 'bob', ['developers'], { [Annotations.approvedBy]: 'bob' }, true);
                return r.code !== 0 && /bob is not a member of release-managers/.test(r.stderr) ? r : undefined;
              },
              Timeouts.shortMs,
            );
            expect(notMember.stderr).toMatch(new RegExp(`ValidatingAdmissionPolicy '${ns}-waitgate-heldjob-approval'`));
            // For real, too: refused, nothing stored.
            expect((await annotateAs(ns, 'go', 'bob', ['developers'], { [Annotations.approvedBy]: 'bob' })).stderr).toMatch(
              /bob is not a member of release-managers/,
            );
            // A forged name: bob, a member, writing alice's.
            const forged = await annotateAs(ns, 'go', 'bob', [GROUP], { [Annotations.approvedBy]: 'alice' });
            expect(forged.code).not.toBe(0);
            expect(forged.stderr).toMatch(/waitgate\.dev\/approved-by must name the user who writes it, bob/);
            expect((await c.kube.getHeldJob(ns, 'go'))?.metadata.annotations?.[Annotations.approvedBy]).toBeUndefined();
            // A record on the create is refused.
            const pre = heldJob({ name: 'preapproved', waitFor: [{ approval: GROUP }] }) as { metadata: Record<string, unknown> };
            pre.metadata['annotations'] = { [Annotations.approvedBy]: 'admin' };
            const created = await kubectl(['create', '-n', ns, '-f', '-'], { input: JSON.stringify(pre) });
            expect(created.stderr).toMatch(/a HeldJob is created without waitgate\.dev\/approved-by/);
            // A hold without an approval condition is not approved, even by a member.
            await c.kube.createHeldJob(ns, heldJob({ name: 'plain', target: 'acme/api#3', waitFor: [{ after: '2099-01-01T00:00:00Z' }] }));
            expect((await annotateAs(ns, 'plain', 'alice', [GROUP], { [Annotations.approvedBy]: 'alice' })).stderr).toMatch(
              /only a HeldJob with an approval condition/,
            );

            // alice, a member, approves as herself: admitted; the hold runs, and its Job is told who.
            const ok = await annotateAs(ns, 'go', 'alice', [GROUP], {
              [Annotations.approvedBy]: 'alice',
              [Annotations.approvalReason]: 'window open',
            });
            expect(ok.stderr).toBe('');
            expect(ok.code).toBe(0);
            // Once set it stays: not even alice changes it.
            const change = await kubectl([
              'annotate',
              'heldjobs.waitgate.dev',
              'go',
              '-n',
              ns,
              '--as',
              'alice',
              '--as-group',
              GROUP,
              '--overwrite',
              `${Annotations.approvedBy}=alice2`,
            ]);
            expect(change.stderr).toMatch(/set once, and never changed or removed/);
            const done = await reaches('go', (hj) => hj?.status?.phase === Phase.Succeeded, 'to succeed');
            expect(done?.status?.approval).toMatchObject({ by: 'alice', reason: 'window open' });
            const jobs = await c.kube.listJobs(ns);
            expect(jobs).toHaveLength(1);
            const env = Object.fromEntries((jobs[0]?.spec?.template.spec?.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
            expect(env['WAITGATE_APPROVED_BY']).toBe('alice');
            expect(env['WAITGATE_APPROVED_AT']).toBe(done?.status?.approval?.at);
            const events = await c.kube.eventsFor(ns, 'go');
            expect(events.find((e) => e.reason === 'Approved')?.message).toMatch(
              /approved by alice: window open \(a member of release-managers\)/,
            );

            // carol, a member, rejects: Refused wait-refused, naming her.
            expect(
              (
                await annotateAs(ns, 'nope', 'carol', [GROUP], {
                  [Annotations.rejectedBy]: 'carol',
                  [Annotations.rejectionReason]: 'freeze',
                })
              ).code,
            ).toBe(0);
            const refused = await reaches('nope', (hj) => hj?.status?.phase === Phase.Refused, 'to be refused');
            expect(refused?.status).toMatchObject({ reason: RefusalToken.Refused, message: 'rejected by carol: freeze' });
            expect((await c.kube.listJobs(ns)).map((j) => j.metadata?.name)).toEqual([jobs[0]?.metadata?.name]);

            // waitgate approve, as a ServiceAccount whose own group (system:serviceaccounts:<ns>) is the approval group.
            await hold('cli', `system:serviceaccounts:${ns}`);
            await awaiting('cli');
            const kubeconfig = await serviceAccountKubeconfig(c.kube, ns, 'approver');
            const cli = (args: string[]) => runTool('node', [CLI, ...args, '--kubeconfig', kubeconfig, '-n', ns]);
            const notGroup = await cli(['approve', 'go']);
            // Refused by the command itself, in one line, before any write.
            expect(notGroup).toMatchObject({ code: 1 });
            expect(notGroup.stderr).toMatch(/go has already finished \(Succeeded\); there is nothing to approve/);
            const approved = await cli(['approve', 'cli', '--reason', 'ship it']);
            expect(approved.stderr).toBe('');
            expect(approved.stdout).toMatch(new RegExp(`${ns}/cli approved by system:serviceaccount:${ns}:approver: ship it`));
            const cliDone = await reaches('cli', (hj) => hj?.status?.phase === Phase.Succeeded, 'to succeed');
            expect(cliDone?.status?.approval?.by).toBe(`system:serviceaccount:${ns}:approver`);
            expect((await cli(['approve', 'cli'])).stderr).toMatch(/already finished|already approved/);
          } finally {
            await op.stop();
          }
        },
      ),
    Timeouts.testMs,
  );
});
