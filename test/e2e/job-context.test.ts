// The launched Job knows what it is for: deliveries through the real receiver, launched by
// the real operator on the real apiserver, give every container and init container the
// WAITGATE_* context (a variable the template sets stays the template's), and the Job and its
// Pods carry the HeldJob's name and the target's hash as labels. A HeldJob written by hand
// gets what its spec tells. run.replicas makes an Indexed Job of that many Pods.
import { describe, expect, test } from '@jest/globals';
import type * as k8s from '@kubernetes/client-node';
import { shortHash } from '../../lib/hash.js';
import { heldJob } from '../support/builders.js';
import { githubLabeled, gitlabMergeRequestLabeled, post } from '../support/forge.js';
import { trigger, withOperator, withReceiver, type ReceiverScenario } from '../support/receiver-scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const envOf = (c: k8s.V1Container) => Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));

/** The Job launched for a HeldJob, found by the label it carries. */
async function jobOf(s: ReceiverScenario, heldJobName: string): Promise<k8s.V1Job> {
  return eventually(
    `the Job of ${heldJobName}`,
    async () => {
      const { items } = await s.kube.batch.listNamespacedJob({
        namespace: s.namespace,
        labelSelector: `waitgate.dev/heldjob=${heldJobName}`,
      });
      return items[0];
    },
    Timeouts.jobMs,
  );
}

/** The Pods of a HeldJob, found as `kubectl get pods -l waitgate.dev/heldjob=...` finds them. */
async function podsOf(s: ReceiverScenario, heldJobName: string, count: number): Promise<k8s.V1Pod[]> {
  return eventually(
    `${count} Pod(s) of ${heldJobName}`,
    async () => {
      const { items } = await s.kube.core.listNamespacedPod({
        namespace: s.namespace,
        labelSelector: `waitgate.dev/heldjob=${heldJobName}`,
      });
      return items.length >= count ? items : undefined;
    },
    Timeouts.jobMs,
  );
}

const heldJobIn = (r: { json: Record<string, unknown> }, triggerName: string) =>
  (r.json['results'] as { trigger: string; heldJob: string }[]).find((x) => x.trigger === triggerName)!.heldJob;

describe('the launched Job knows what it is for', () => {
  test.concurrent(
    'receiver deliveries (GitHub issue and pull request, GitLab merge request), a hand-written HeldJob, and replicas',
    () =>
      withReceiver(
        'job-ctx',
        {
          triggers: [
            trigger({
              name: 'deploy',
              kind: 'agent', // names no forge: fires for GitHub and GitLab alike
              containers: [
                { name: 'main', image: 'busybox', env: [{ name: 'WAITGATE_TRIGGER', value: 'set-by-template' }] },
                { name: 'side', image: 'busybox' },
              ],
              initContainers: [{ name: 'init', image: 'busybox' }],
            }),
            trigger({ name: 'fanout', labels: ['waitgate:fanout'], replicas: 3 }),
          ],
        },
        (s) =>
          withOperator(s, async () => {
            const issue = await post(s.url, githubLabeled({ label: 'waitgate:deploy', number: 7 }));
            const pull = await post(s.url, githubLabeled({ label: 'waitgate:deploy', number: 9, pull: true }));
            const mr = await post(s.url, gitlabMergeRequestLabeled({ label: 'waitgate:deploy', project: 'group/sub/repo', iid: 12 }));
            const fan = await post(s.url, githubLabeled({ label: 'waitgate:fanout', number: 8 }));
            for (const r of [issue, pull, mr, fan]) expect(r.status).toBe(202);
            await s.kube.createHeldJob(s.namespace, heldJob({ name: 'by-hand-mr', target: 'group/proj!4', trigger: 'manual' }));
            await s.kube.createHeldJob(s.namespace, heldJob({ name: 'by-hand-issue', target: 'acme/api#5', trigger: 'manual' }));

            const cases: [string, string, Record<string, string>][] = [
              [
                heldJobIn(issue, 'deploy'),
                'acme/web#7',
                { WAITGATE_FORGE: 'github', WAITGATE_REPOSITORY: 'acme/web', WAITGATE_NUMBER: '7', WAITGATE_KIND: 'issue' },
              ],
              [
                heldJobIn(pull, 'deploy'),
                'acme/web#9',
                { WAITGATE_FORGE: 'github', WAITGATE_REPOSITORY: 'acme/web', WAITGATE_NUMBER: '9', WAITGATE_KIND: 'pull_request' },
              ],
              [
                heldJobIn(mr, 'deploy'),
                'group/sub/repo!12',
                { WAITGATE_FORGE: 'gitlab', WAITGATE_REPOSITORY: 'group/sub/repo', WAITGATE_NUMBER: '12', WAITGATE_KIND: 'merge_request' },
              ],
            ];
            for (const [name, target, ids] of cases) {
              const job = await jobOf(s, name);
              const hj = await s.kube.getHeldJob(s.namespace, name);
              const delivery = hj?.metadata.annotations?.['waitgate.dev/delivery'];
              expect(delivery).toMatch(/^[0-9a-f-]{36}$/);
              const context = {
                WAITGATE_TARGET: target,
                ...ids,
                WAITGATE_TRIGGER: 'deploy',
                WAITGATE_DELIVERY: delivery,
                WAITGATE_HELDJOB: name,
              };
              const pod = job.spec!.template.spec!;
              // The template set WAITGATE_TRIGGER on main: its value stands, and it is not added again.
              expect(pod.containers[0]!.env!.filter((e) => e.name === 'WAITGATE_TRIGGER')).toEqual([
                { name: 'WAITGATE_TRIGGER', value: 'set-by-template' },
              ]);
              expect(envOf(pod.containers[0]!)).toEqual({ ...context, WAITGATE_TRIGGER: 'set-by-template' });
              expect(envOf(pod.containers[1]!)).toEqual(context);
              expect(envOf(pod.initContainers![0]!)).toEqual(context);
              const labels = { 'waitgate.dev/heldjob': name, 'waitgate.dev/target-hash': shortHash(target) };
              expect(job.metadata?.labels).toMatchObject(labels);
              expect(job.spec?.template.metadata?.labels).toMatchObject(labels);
              const [p] = await podsOf(s, name, 1);
              expect(p!.metadata?.labels).toMatchObject(labels);
              expect(envOf(p!.spec!.containers[1]!)).toEqual(context);
            }
            // Nothing an author typed reached a Job.
            const everyJob = JSON.stringify((await s.kube.batch.listNamespacedJob({ namespace: s.namespace })).items);
            expect(everyJob).not.toMatch(/AUTHOR|someone/);

            // By hand: what the spec tells. `!` says merge request, on GitLab or Azure DevOps, so no
            // forge (api/forges.ts); a `#` alone says neither forge nor kind.
            const byHandMr = envOf((await jobOf(s, 'by-hand-mr')).spec!.template.spec!.containers[0]!);
            expect(byHandMr).toEqual({
              WAITGATE_TARGET: 'group/proj!4',
              WAITGATE_REPOSITORY: 'group/proj',
              WAITGATE_NUMBER: '4',
              WAITGATE_KIND: 'merge_request',
              WAITGATE_TRIGGER: 'manual',
              WAITGATE_HELDJOB: 'by-hand-mr',
            });
            const byHandIssue = envOf((await jobOf(s, 'by-hand-issue')).spec!.template.spec!.containers[0]!);
            expect(byHandIssue).toEqual({
              WAITGATE_TARGET: 'acme/api#5',
              WAITGATE_REPOSITORY: 'acme/api',
              WAITGATE_NUMBER: '5',
              WAITGATE_TRIGGER: 'manual',
              WAITGATE_HELDJOB: 'by-hand-issue',
            });

            // replicas: 3 → an Indexed Job of three Pods at once, as the apiserver holds it.
            const fanName = heldJobIn(fan, 'fanout');
            const fanJob = await jobOf(s, fanName);
            expect(fanJob.spec).toMatchObject({ completions: 3, parallelism: 3, completionMode: 'Indexed' });
            const fanPods = await podsOf(s, fanName, 3);
            expect(fanPods.map((p) => p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index']).sort()).toEqual([
              '0',
              '1',
              '2',
            ]);
          }),
      ),
    Timeouts.testMs,
  );
});
