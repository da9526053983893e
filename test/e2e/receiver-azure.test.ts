// Azure DevOps, the third forge, the whole way: service hook deliveries shaped as Microsoft's
// samples, authenticated with basic credentials, through the real receiver to HeldJobs the real
// operator launches as Jobs told WAITGATE_FORGE=azure (and, for a trigger that pins it, the
// commit the labeller saw); a refusal commented on the work item through the fake forge's Azure
// DevOps API. Unauthenticated deliveries are answered 401 and create nothing.
import { describe, expect, test } from '@jest/globals';
import type * as k8s from '@kubernetes/client-node';
import { RefusalToken } from '../../api/vocabulary.js';
import { FakeForge } from '../support/fake-forge.js';
import { azureBasic, azurePullRequest, azureWorkItemTagged, commitOf, post, resultsOf } from '../support/forge.js';
import { trigger, withReceiver, type ReceiverScenario } from '../support/receiver-scenario.js';
import { operatorProcess } from '../support/service-process.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const envOf = (c: k8s.V1Container) => Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));

async function jobEnv(s: ReceiverScenario, heldJobName: string): Promise<Record<string, string | undefined>> {
  const job = await eventually(
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
  return envOf(job.spec!.template.spec!.containers[0]!);
}

describe('Azure DevOps deliveries', () => {
  test.concurrent(
    'a pull request and a work item become Jobs for azure, pinned to what the labeller saw; a refusal is commented on the work item; no credentials, no entry',
    async () => {
      const forge = await FakeForge.start();
      const workItemHead = 'e'.repeat(40);
      forge.heads.set('azure:Boards/Boards', workItemHead);
      const apiEnv = { WAITGATE_AZURE_TOKEN: 'ado-pat', WAITGATE_AZURE_API_URL: forge.azureApiUrl };
      try {
        await withReceiver(
          'azure',
          {
            triggers: [
              trigger({ name: 'deploy', kind: 'azure', pinRevision: true }),
              trigger({ name: 'late', kind: 'azure', labels: ['waitgate:late'], waitFor: [{ after: '2099-01-01T00:00:00Z' }] }),
            ],
          },
          async (s) => {
            const operator = operatorProcess(
              {
                WAITGATE_WATCH_NAMESPACE: s.namespace,
                WAITGATE_NAMESPACE: s.namespace,
                WAITGATE_VALKEY_PREFIX: s.env['WAITGATE_VALKEY_PREFIX'] ?? '',
                ...apiEnv,
              },
              `${s.namespace}-operator`,
            );
            await operator.start();
            try {
              // Without the secret, or with another one: 401, nothing created.
              for (const auth of [{}, { authorization: azureBasic('wrong') }, { 'x-gitlab-token': 'test-azure-secret' }] as Record<
                string,
                string
              >[]) {
                const r = await post(s.url, azurePullRequest({ labels: ['waitgate:deploy'], auth }));
                expect(r.status).toBe(401);
              }
              expect(await s.kube.listHeldJobs(s.namespace)).toEqual([]);

              const head = commitOf('the pull request head');
              const pr = await post(
                s.url,
                azurePullRequest({ project: 'Fabrikam', repo: 'web', id: 12, labels: ['waitgate:deploy'], head }),
              );
              // The shared header authenticates as well.
              const wi = await post(
                s.url,
                azureWorkItemTagged({
                  project: 'Boards',
                  id: 5,
                  before: ['x'],
                  after: ['x', 'waitgate:deploy'],
                  auth: { 'x-waitgate-token': 'test-azure-secret' },
                }),
              );
              expect([pr.status, wi.status]).toEqual([202, 202]);
              const [prResult] = resultsOf(pr);
              const [wiResult] = resultsOf(wi);
              expect(prResult).toMatchObject({ trigger: 'deploy', outcome: 'held' });
              expect(wiResult).toMatchObject({ trigger: 'deploy', outcome: 'held' });

              const prHold = await s.kube.getHeldJob(s.namespace, prResult!.heldJob);
              expect(prHold?.metadata?.labels?.['waitgate.dev/forge']).toBe('azure');
              expect(prHold?.spec).toMatchObject({ target: 'Fabrikam/web!12', revision: head });

              expect(await jobEnv(s, prResult!.heldJob)).toMatchObject({
                WAITGATE_TARGET: 'Fabrikam/web!12',
                WAITGATE_FORGE: 'azure',
                WAITGATE_REPOSITORY: 'Fabrikam/web',
                WAITGATE_NUMBER: '12',
                WAITGATE_KIND: 'merge_request',
                WAITGATE_REVISION: head,
              });
              // A work item names no commit: its project repository's default branch head, read from Azure at hold time.
              expect(await jobEnv(s, wiResult!.heldJob)).toMatchObject({
                WAITGATE_TARGET: 'Boards/Boards#5',
                WAITGATE_FORGE: 'azure',
                WAITGATE_KIND: 'issue',
                WAITGATE_REVISION: workItemHead,
              });
              expect(forge.callsTo('GET', /^\/fabrikam\/Boards\/_apis\/git\/repositories\/Boards\/refs$/)[0]?.authorization).toBe(
                `Basic ${Buffer.from(':ado-pat').toString('base64')}`,
              );

              // Refused at the door: its `after` lies beyond the longest wait. The operator comments on the work item.
              const late = await post(s.url, azureWorkItemTagged({ project: 'Boards', id: 6, after: ['waitgate:late'] }));
              expect(resultsOf(late)).toMatchObject([{ trigger: 'late', outcome: 'refused', token: RefusalToken.AfterBeyondMax }]);
              const [comment] = await eventually('the refusal commented on the work item', async () => {
                const c = forge.comments('azure:Boards/Boards#6');
                return c.length > 0 ? c : undefined;
              });
              expect(comment?.body).toContain(`\`${RefusalToken.AfterBeyondMax}\``);
              expect(comment?.body).toContain(resultsOf(late)[0]!.heldJob);
              expect(forge.callsTo('POST', /\/_apis\/wit\/workItems\/6\/comments$/)).toHaveLength(1);
            } finally {
              await operator.stop();
            }
          },
          apiEnv,
        );
      } finally {
        await forge.stop();
      }
    },
    Timeouts.testMs,
  );
});
