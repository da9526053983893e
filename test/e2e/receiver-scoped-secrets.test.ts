// #30, finding 3: a webhook secret speaks for its own repositories. Against the real apiserver and
// the real Valkey-compatible server, a receiver given one GitHub secret for acme/* and another for
// beta/web (WAITGATE_GITHUB_WEBHOOK_SCOPED_SECRETS): a delivery signed with acme's secret that
// names beta/web is answered 401 and counted, and no HeldJob is made; signed with beta's, it holds.
// A GitLab token scoped the same way, and a receiver refusing a short secret at start.
import { describe, expect, test } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { githubLabeled, gitlabMergeRequestLabeled, post, resultsOf, signedWith, type Delivery } from '../support/forge.js';
import { metricValue } from '../support/metrics.js';
import { trigger, withReceiver } from '../support/receiver-scenario.js';
import { receiverProcess } from '../support/service-process.js';
import { requireEnv } from '../support/env.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually, staysTrue } from '../support/wait.js';

const LABEL = 'waitgate:deploy';
const ACME = 'acme-hook-secret-0123456789abcdef';
const BETA = 'beta-hook-secret-0123456789abcdef';
const ACME_TOKEN = 'acme-gitlab-token-0123456789abcdef';

const withToken = (d: Delivery, token: string): Delivery => ({ ...d, headers: { ...d.headers, 'x-gitlab-token': token } });

describe('receiver: a webhook secret speaks for its own repositories (#30)', () => {
  test(
    'a delivery naming a repository outside its secret’s patterns is 401, counted, and holds nothing; its own repository’s secret holds',
    () =>
      withReceiver(
        'rcv-scoped',
        { triggers: [trigger({ labels: [LABEL] }), trigger({ name: 'mr', kind: 'gitlab', labels: [LABEL] })] },
        async (s) => {
          const notAllowed = (forge: string) => `waitgate_receiver_deliveries_total{forge="${forge}",outcome="repository_not_allowed"}`;
          // acme's secret, naming beta/web: refused before anything is looked up.
          const forged = await post(s.url, signedWith(githubLabeled({ repo: 'beta/web', number: 3, label: LABEL }), ACME));
          expect(forged.status).toBe(401);
          expect(await metricValue(s.metricsUrl, notAllowed('github'))).toBe(1);
          // The unscoped WAITGATE_GITHUB_WEBHOOK_SECRET is unset here: the scenario's own secret is refused outright.
          expect((await post(s.url, githubLabeled({ repo: 'beta/web', number: 3, label: LABEL }))).status).toBe(401);
          // GitLab: acme's token, naming beta's project.
          const mr = withToken(gitlabMergeRequestLabeled({ project: 'beta/web', iid: 4, label: LABEL }), ACME_TOKEN);
          expect((await post(s.url, mr)).status).toBe(401);
          expect(await metricValue(s.metricsUrl, notAllowed('gitlab'))).toBe(1);
          await staysTrue('no HeldJob made', async () => (await s.kube.listHeldJobs(s.namespace)).length === 0, Date.now() + 1500);

          // Each repository's own secret holds.
          const own = await post(s.url, signedWith(githubLabeled({ repo: 'beta/web', number: 3, label: LABEL }), BETA));
          expect(own.status).toBe(202);
          expect(resultsOf(own)).toMatchObject([{ trigger: 'deploy', outcome: 'held' }]);
          const acme = await post(s.url, signedWith(githubLabeled({ repo: 'acme/api', number: 9, label: LABEL }), ACME));
          expect(resultsOf(acme)).toMatchObject([{ trigger: 'deploy', outcome: 'held' }]);
          const acmeMr = await post(s.url, withToken(gitlabMergeRequestLabeled({ project: 'acme/web', iid: 4, label: LABEL }), ACME_TOKEN));
          expect(resultsOf(acmeMr)).toMatchObject([{ trigger: 'mr', outcome: 'held' }]);
          const targets = await eventually('three HeldJobs', async () => {
            const all = await s.kube.listHeldJobs(s.namespace);
            return all.length === 3 ? all.map((h) => (h.spec as { target: string }).target).sort() : undefined;
          });
          expect(targets).toEqual(['acme/api#9', 'acme/web!4', 'beta/web#3']);
          expect(await metricValue(s.metricsUrl, notAllowed('github'))).toBe(1);

          // The refusal is in the log, with the repository it named (an id, never author text).
          const log = await readFile(s.receiver.logPath, 'utf8');
          expect(log).toMatch(/"repository":"beta\/web".*Refused delivery naming a repository its secret does not speak for/);
          expect(log).not.toContain(ACME);
        },
        {
          WAITGATE_GITHUB_WEBHOOK_SECRET: '',
          WAITGATE_GITLAB_WEBHOOK_TOKEN: '',
          WAITGATE_GITHUB_WEBHOOK_SCOPED_SECRETS: JSON.stringify([
            { secret: ACME, repositories: ['acme/*'] },
            { secret: BETA, repositories: ['beta/web'] },
          ]),
          WAITGATE_GITLAB_WEBHOOK_SCOPED_TOKENS: JSON.stringify([{ secret: ACME_TOKEN, repositories: ['acme/**'] }]),
        },
      ),
    Timeouts.testMs,
  );

  test(
    'an unscoped secret still speaks for every repository, and the receiver says so as it starts',
    () =>
      withReceiver('rcv-unscoped', { triggers: [trigger({ labels: [LABEL] })] }, async (s) => {
        const r = await post(s.url, githubLabeled({ repo: 'victim/private', number: 1, label: LABEL }));
        expect(resultsOf(r)).toMatchObject([{ outcome: 'held' }]);
        const log = await readFile(s.receiver.logPath, 'utf8');
        expect(log).toMatch(/speak for every repository; scope them to repositories with WAITGATE_GITHUB_WEBHOOK_SCOPED_SECRETS/);
      }),
    Timeouts.testMs,
  );

  test(
    'a webhook secret under 16 characters stops the receiver at start, naming the variable (#30, finding 7)',
    async () => {
      const receiver = receiverProcess(
        { VALKEY_URL: requireEnv('VALKEY_URL'), WAITGATE_GITHUB_WEBHOOK_SECRET: 'hunter2' },
        'rcv-short-secret',
      );
      await expect(receiver.start()).rejects.toThrow();
      const log = await readFile(receiver.logPath, 'utf8');
      expect(log).toContain('WAITGATE_GITHUB_WEBHOOK_SECRET: is shorter than 16 characters');
      expect(log).not.toContain('hunter2');
      await receiver.stop();
    },
    Timeouts.testMs,
  );
});
