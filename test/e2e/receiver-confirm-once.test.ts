// #30: receiver.confirmLabels (finding 3) and the OnceRecord's lifetime (finding 7), against the
// real apiserver and the real Valkey-compatible server. The forge's API is a real HTTP server on
// loopback standing in for GitHub's (GET /repos/{o}/{r}/issues/{n}/labels): a delivery whose
// label the forge does not show on the issue holds nothing and is counted label_unconfirmed.
import { describe, expect, test } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as k8s from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, ONCE_RECORD_PLURAL } from '../../api/vocabulary.js';
import { onceRecordName } from '../../receiver/delivery/once.js';
import { githubLabeled, post, resultsOf } from '../support/forge.js';
import { metricValue } from '../support/metrics.js';
import { trigger, withReceiver } from '../support/receiver-scenario.js';
import { Timeouts } from '../support/timeouts.js';

const LABEL = 'waitgate:deploy';
const TOKEN = 'ghp_fake-read-only-token';

/** GitHub's labels endpoint on loopback: `labels` by `owner/repo#n`; every call recorded. */
async function fakeGithubLabels(labels: Record<string, string[]>): Promise<{ url: string; calls: string[]; server: Server }> {
  const calls: string[] = [];
  const server = createServer((req, res) => {
    calls.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    const m = /^\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)\/labels(\?.*)?$/.exec(req.url ?? '');
    const found = m ? labels[`${m[1]}#${m[2]}`] : undefined;
    if (req.headers.authorization !== `Bearer ${TOKEN}` || found === undefined) {
      res.writeHead(404).end('{}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(found.map((name, id) => ({ id, name }))));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, server };
}

describe('receiver: the forge confirms the label before anything is held (#30, finding 3)', () => {
  test(
    'a label the forge shows holds; one it does not (a forged or stale delivery) is counted and holds nothing',
    async () => {
      const forge = await fakeGithubLabels({ 'acme/web#7': ['bug', LABEL], 'acme/web#8': ['bug'] });
      try {
        await withReceiver(
          'rcv-confirm',
          { triggers: [trigger({ name: 'notify', labels: [LABEL] })] },
          async (s) => {
            const shown = await post(s.url, githubLabeled({ label: LABEL, number: 7 }));
            expect(resultsOf(shown)).toMatchObject([{ trigger: 'notify', outcome: 'held' }]);
            const stale = await post(s.url, githubLabeled({ label: LABEL, number: 8 }));
            expect(stale.status).toBe(202);
            expect(resultsOf(stale)).toEqual([{ trigger: 'notify', outcome: 'unconfirmed' }]);
            expect(await metricValue(s.metricsUrl, 'waitgate_receiver_deliveries_total{forge="github",outcome="label_unconfirmed"}')).toBe(
              1,
            );
            const targets = (await s.kube.listHeldJobs(s.namespace)).map((h) => (h.spec as { target: string }).target);
            expect(targets).toEqual(['acme/web#7']);
            expect(forge.calls).toEqual([
              `GET /repos/acme/web/issues/7/labels?per_page=100 Bearer ${TOKEN}`,
              `GET /repos/acme/web/issues/8/labels?per_page=100 Bearer ${TOKEN}`,
            ]);
            // The forge cannot answer (an issue it does not know): 503, so the forge delivers again.
            expect((await post(s.url, githubLabeled({ label: LABEL, number: 9 }))).status).toBe(503);
          },
          {
            WAITGATE_RECEIVER_CONFIRM_LABELS: 'true',
            WAITGATE_GITHUB_TOKEN: TOKEN,
            WAITGATE_GITHUB_API_URL: forge.url,
            // Only GitHub delivers here: the other forges would need their API tokens.
            WAITGATE_GITLAB_WEBHOOK_TOKEN: '',
            WAITGATE_AZURE_WEBHOOK_SECRET: '',
          },
        );
      } finally {
        forge.server.close();
      }
    },
    Timeouts.testMs,
  );
});

describe('receiver: an OnceRecord has a lifetime (#30, finding 7)', () => {
  test(
    'a record carries its expiry; past it, the next delivery deletes it and the once trigger fires once more',
    () =>
      withReceiver('rcv-once-ttl', { triggers: [trigger({ name: 'release', labels: [LABEL], once: true })] }, async (s) => {
        const first = await post(s.url, githubLabeled({ label: LABEL }));
        expect(resultsOf(first)).toMatchObject([{ outcome: 'held' }]);
        const ref = {
          group: API_GROUP,
          version: API_VERSION,
          plural: ONCE_RECORD_PLURAL,
          namespace: s.namespace,
          name: onceRecordName('release', 'acme/web#7'),
        };
        const record = (await s.kube.custom.getNamespacedCustomObject(ref)) as { metadata: { annotations?: Record<string, string> } };
        const expiresAt = Date.parse(record.metadata.annotations?.['waitgate.dev/expires-at'] ?? '');
        expect(expiresAt - Date.now()).toBeGreaterThan(89 * 86_400_000);
        expect(expiresAt - Date.now()).toBeLessThanOrEqual(90 * 86_400_000);
        expect(resultsOf(await post(s.url, githubLabeled({ label: LABEL })))).toMatchObject([{ outcome: 'once-spent' }]);

        // Its time passes (written back, as a clock would move it).
        await s.kube.custom.patchNamespacedCustomObject(
          { ...ref, body: { metadata: { annotations: { 'waitgate.dev/expires-at': new Date(Date.now() - 1000).toISOString() } } } },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        );
        const again = await post(s.url, githubLabeled({ label: LABEL }));
        expect(resultsOf(again)).toMatchObject([{ outcome: 'held' }]);
        expect(await s.kube.listHeldJobs(s.namespace)).toHaveLength(2);
        const renewed = (await s.kube.custom.getNamespacedCustomObject(ref)) as { metadata: { annotations?: Record<string, string> } };
        expect(Date.parse(renewed.metadata.annotations?.['waitgate.dev/expires-at'] ?? '')).toBeGreaterThan(Date.now());
      }),
    Timeouts.testMs,
  );
});
