// The receiver against the real apiserver and the real Valkey-compatible server.
import { describe, expect, test } from '@jest/globals';
import { setHeaderOptions } from '@kubernetes/client-node';
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Phase, RefusalToken } from '../../api/vocabulary.js';
import { kubeconfigPath } from '../support/env.js';
import {
  AUTHOR_TEXT,
  deliveryUuid,
  GITHUB_SECRET,
  githubDelivery,
  githubLabeled,
  gitlabMergeRequestLabeled,
  post,
} from '../support/forge.js';
import { TestKube } from '../support/kube.js';
import { putConfigMap, trigger, withReceiver, type ReceiverScenario } from '../support/receiver-scenario.js';
import { receiverProcess, receiverUrls } from '../support/service-process.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

// A day ahead: inside the 30-day bound, far enough that nothing launches during a test.
const AFTER = { after: new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z') };
const NOW_PLUS_40_DAYS = new Date(Date.now() + 40 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');

async function metric(s: ReceiverScenario, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${s.metricsUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('receiver: deliveries become HeldJobs', () => {
  test.concurrent(
    'a signed GitHub label delivery creates a HeldJob with ids only',
    () =>
      withReceiver('rcv-github', { triggers: [trigger({ waitFor: [AFTER] })] }, async (s) => {
        const r = await post(s.url, githubLabeled({ label: 'waitgate:deploy' }));
        expect(r.status).toBe(202);
        const items = await s.kube.listHeldJobs(s.namespace);
        expect(items).toHaveLength(1);
        const hj = items[0]!;
        expect(hj.spec).toMatchObject({ target: 'acme/web#7', trigger: 'deploy', waitFor: [AFTER] });
        expect(hj.metadata.annotations?.['waitgate.dev/receiver-schema']).toBe('1');
        expect(JSON.stringify(hj)).not.toContain(AUTHOR_TEXT);
        expect(s.receiver.logText()).not.toContain(AUTHOR_TEXT);
        expect(await metric(s, 'waitgate_receiver_deliveries_total', 'forge="github",outcome="held"')).toBe(1);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'a GitLab merge request delivery targets group/repo!iid',
    () =>
      withReceiver('rcv-gitlab', { triggers: [trigger({ kind: 'gitlab', waitFor: [AFTER] })] }, async (s) => {
        const r = await post(s.url, gitlabMergeRequestLabeled({ label: 'waitgate:deploy' }));
        expect(r.status).toBe(202);
        const items = await s.kube.listHeldJobs(s.namespace);
        expect(items.map((h) => (h.spec as { target: string }).target)).toEqual(['group/sub/repo!12']);
        expect(JSON.stringify(items)).not.toContain(AUTHOR_TEXT);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'bad input is refused and creates nothing: 401, 413, 400, 202 for events it does not handle or match',
    () =>
      withReceiver('rcv-bad', { triggers: [trigger({ waitFor: [AFTER] })] }, async (s) => {
        const good = githubLabeled({ label: 'waitgate:deploy' });
        const unsigned = { ...good, headers: { ...good.headers, 'x-hub-signature-256': '' } };
        const wrong = { ...good, headers: { ...good.headers, 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` } };
        const tampered = { ...good, body: Buffer.from(good.body.toString().replace('acme/web', 'acme/api')) };
        expect((await post(s.url, unsigned)).status).toBe(401);
        expect((await post(s.url, wrong)).status).toBe(401);
        expect((await post(s.url, tampered)).status).toBe(401);
        const gl = gitlabMergeRequestLabeled({ label: 'waitgate:deploy' });
        expect((await post(s.url, { ...gl, headers: { ...gl.headers, 'x-gitlab-token': 'nope' } })).status).toBe(401);

        const huge = githubDelivery('issues', { pad: 'x'.repeat(1024 * 1024 + 10) });
        expect((await post(s.url, huge)).status).toBe(413);
        const notJson = githubDelivery('issues', {});
        const broken = { ...notJson, body: Buffer.from('{"action": "labeled",') };

        broken.headers['x-hub-signature-256'] = `sha256=${createHmac('sha256', 'test-github-secret').update(broken.body).digest('hex')}`;
        expect((await post(s.url, broken)).status).toBe(400);
        expect((await post(s.url, githubDelivery('push', { ref: 'refs/heads/main' }))).status).toBe(202);
        expect((await post(s.url, githubLabeled({ label: 'bug' }))).json).toMatchObject({ outcome: 'ignored' });

        expect(await s.kube.listHeldJobs(s.namespace)).toHaveLength(0);
        expect(await metric(s, 'waitgate_receiver_deliveries_total', 'forge="github",outcome="unauthorized"')).toBe(3);
        expect(await metric(s, 'waitgate_receiver_deliveries_total', 'forge="github",outcome="too_large"')).toBe(1);
        expect(await metric(s, 'waitgate_receiver_deliveries_total', 'forge="github",outcome="malformed"')).toBe(1);
        expect(await metric(s, 'waitgate_receiver_deliveries_total', 'forge="github",outcome="unhandled"')).toBe(1);
        expect(await metric(s, 'waitgate_receiver_deliveries_total', 'forge="github",outcome="ignored"')).toBe(1);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'an identical redelivery (same delivery id) is deduplicated',
    () =>
      withReceiver('rcv-dedup', { triggers: [trigger()] }, async (s) => {
        const d = githubLabeled({ label: 'waitgate:deploy', deliveryId: deliveryUuid('delivery-1') });
        expect((await post(s.url, d)).status).toBe(202);
        expect((await post(s.url, d)).json).toMatchObject({ outcome: 'duplicate' });
        expect(await s.kube.listHeldJobs(s.namespace)).toHaveLength(1);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    '20 racing deliveries for one trigger and target: exactly one hold, the rest refused wait-superseded and counted on one record',
    () =>
      withReceiver('rcv-race', { triggers: [trigger({ waitFor: [AFTER] })] }, async (s) => {
        const deliveries = Array.from({ length: 20 }, () => githubLabeled({ label: 'waitgate:deploy' }));
        const first = await Promise.all(deliveries.map((d) => post(s.url, d)));
        // One that waited out the trigger's lock on a loaded machine is deferred (503, Retry-After), as a
        // forge is told to deliver again; redelivered, it is handled once like the rest.
        expect(first.map((r) => r.status).filter((c) => c !== 202 && c !== 503)).toEqual([]);
        const results = await Promise.all(
          first.map((r, i) =>
            r.status === 202
              ? Promise.resolve(r)
              : eventually('a deferred delivery to be accepted when delivered again', async () => {
                  const again = await post(s.url, deliveries[i]!);
                  return again.status === 202 ? again : undefined;
                }),
          ),
        );
        expect(results.map((r) => r.status)).toEqual(Array(20).fill(202));
        // The hold, and one refusal record that counts the other 19.
        const items = await s.kube.listHeldJobs(s.namespace);
        expect(items).toHaveLength(2);
        const holds = items.filter((h) => !h.metadata.annotations?.['waitgate.dev/refusal']);
        expect(holds).toHaveLength(1);
        const record = await eventually('the refusal record to be Refused', async () => {
          const all = await s.kube.listHeldJobs(s.namespace);
          return all.find((h) => h.status?.phase === Phase.Refused && h.status.reason === RefusalToken.Superseded);
        });
        expect(record.metadata.annotations?.['waitgate.dev/refusal-count']).toBe('19');
        expect(await metric(s, 'waitgate_receiver_refusals_total', 'token="wait-superseded"')).toBe(19);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'superseded is checked against the live HeldJobs: cancelled or long-finished holds admit a new delivery',
    () =>
      withReceiver('rcv-live', { triggers: [trigger({ waitFor: [AFTER] })] }, async (s) => {
        const first = await post(s.url, githubLabeled({ label: 'waitgate:deploy' }));
        const name = (first.json['results'] as { heldJob: string }[])[0]!.heldJob;
        // Cancelled: the next delivery is a new hold, not superseded.
        await s.kube.custom.deleteNamespacedCustomObject({
          group: 'waitgate.dev',
          version: 'v1alpha1',
          plural: 'heldjobs',
          namespace: s.namespace,
          name,
        });
        await eventually('the cancelled HeldJob to go', async () => ((await s.kube.getHeldJob(s.namespace, name)) ? undefined : true));
        const second = await post(s.url, githubLabeled({ label: 'waitgate:deploy' }));
        expect(second.json['results']).toMatchObject([{ outcome: 'held' }]);
        const secondName = (second.json['results'] as { heldJob: string }[])[0]!.heldJob;

        // Finished waiting 5 minutes ago: still refused. 20 minutes ago: admitted.
        const setLaunched = async (minutesAgo: number) => {
          const launchedAt = new Date(Date.now() - minutesAgo * 60_000).toISOString();
          await s.kube.custom.patchNamespacedCustomObjectStatus(
            {
              group: 'waitgate.dev',
              version: 'v1alpha1',
              plural: 'heldjobs',
              namespace: s.namespace,
              name: secondName,
              body: { status: { phase: 'Succeeded', launchedAt } },
            },
            setHeaderOptions('Content-Type', 'application/merge-patch+json'),
          );
        };
        await setLaunched(5);
        const third = await post(s.url, githubLabeled({ label: 'waitgate:deploy' }));
        expect((third.json['results'] as { token?: string }[])[0]!.token).toBe(RefusalToken.Superseded);
        await setLaunched(20);
        const fourth = await post(s.url, githubLabeled({ label: 'waitgate:deploy' }));
        expect((fourth.json['results'] as { outcome: string }[])[0]!.outcome).toBe('held');
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'refusals it can decide are recorded where kubectl get heldjobs shows them',
    () =>
      withReceiver(
        'rcv-refuse',
        {
          triggers: [
            trigger({ name: 'needs-jira', labels: ['a'], waitFor: [{ profile: 'jira' }] }),
            trigger({ name: 'far-away', labels: ['b'], waitFor: [{ after: NOW_PLUS_40_DAYS }] }),
            trigger({ name: 'declared', labels: ['c'], waitFor: [{ profile: 'ci' }] }),
          ],
          profiles: { ci: { mode: 'exec', script: 'ci.sh' } },
        },
        async (s) => {
          const a = await post(s.url, githubLabeled({ label: 'a' }));
          const b = await post(s.url, githubLabeled({ label: 'b' }));
          const c = await post(s.url, githubLabeled({ label: 'c' }));
          expect((a.json['results'] as { token?: string }[])[0]!.token).toBe(RefusalToken.ProfileUnknown);
          expect((b.json['results'] as { token?: string }[])[0]!.token).toBe(RefusalToken.AfterBeyondMax);
          expect((c.json['results'] as { outcome: string }[])[0]!.outcome).toBe('held');
          const out = execFileSync('kubectl', ['--kubeconfig', kubeconfigPath(), 'get', 'heldjobs', '-n', s.namespace, '-o', 'wide'], {
            encoding: 'utf8',
          });
          expect(out).toContain('wait-profile-unknown');
          expect(out).toContain('wait-after-beyond-max');
        },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'an apiserver outage: a brief one is ridden out; a longer one answers 503 and the redelivery is not lost',
    async () => {
      const kc = readFileSync(kubeconfigPath(), 'utf8');
      const m = /server: https:\/\/127\.0\.0\.1:(\d+)/.exec(kc);
      const proxy = new TcpProxy('127.0.0.1', Number(m?.[1]));
      const port = await proxy.start();
      const proxied = join(tmpdir(), `waitgate-proxied-${port}.kubeconfig`);
      writeFileSync(proxied, kc.replace(/server: https:\/\/127\.0\.0\.1:\d+/, `server: https://127.0.0.1:${port}`));
      try {
        await withReceiver(
          'rcv-outage',
          { triggers: [trigger({ waitFor: [AFTER] }), trigger({ name: 'plain', labels: ['p'] })] },
          async (s) => {
            // Brief: cut for half a second while the delivery retries.
            await proxy.cut();
            const pending = post(s.url, githubLabeled({ label: 'p', number: 1 }));
            await new Promise((r) => setTimeout(r, 500));
            await proxy.restore();
            expect((await pending).status).toBe(202);

            // Longer: 503, and the same delivery later succeeds instead of being dropped as a duplicate.
            await proxy.cut();
            const d = githubLabeled({ label: 'waitgate:deploy', number: 2, deliveryId: deliveryUuid('outage-1') });
            expect((await post(s.url, d)).status).toBe(503);
            await proxy.restore();
            const again = await eventually('the redelivery to be accepted', async () => {
              const r = await post(s.url, d);
              return r.status === 202 ? r : undefined;
            });
            expect(again.json).toMatchObject({ outcome: 'handled' });
            const targets = (await s.kube.listHeldJobs(s.namespace)).map((h) => (h.spec as { target: string }).target).sort();
            expect(targets).toEqual(['acme/web#1', 'acme/web#2']);
          },
          { KUBECONFIG: proxied },
        );
      } finally {
        await proxy.cut();
      }
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'Valkey unreachable: not ready, and deliveries answer 503 without creating anything',
    async () => {
      const kube = new TestKube();
      const ns = await kube.createNamespace('rcv-novalkey');
      await putConfigMap(kube, ns, 'waitgate-triggers', { 'triggers.json': JSON.stringify([trigger()]) });
      const rcv = receiverProcess(
        {
          VALKEY_URL: 'redis://127.0.0.1:1',
          WAITGATE_NAMESPACE: ns,
          WAITGATE_JOB_NAMESPACE: ns,
          WAITGATE_GITHUB_WEBHOOK_SECRET: GITHUB_SECRET,
        },
        `${ns}-receiver`,
      );
      try {
        const ready = await rcv.start();
        const { url, metricsUrl } = receiverUrls(ready);
        expect((await fetch(`${metricsUrl}/readyz`)).status).toBe(503);
        expect((await post(url, githubLabeled({ label: 'waitgate:deploy' }))).status).toBe(503);
        expect(await kube.listHeldJobs(ns)).toHaveLength(0);
      } finally {
        await rcv.stop();
        await kube.deleteNamespace(ns);
      }
    },
    Timeouts.testMs,
  );
});
