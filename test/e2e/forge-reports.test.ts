// Telling the forge (issue 11): the operator process, configured to a fake forge on loopback,
// comments on the issue when a hold is refused (and, when asked, when its Job launches and
// finishes), exactly once through a crash, retrying a failing forge, never holding up a launch,
// with a token or as a GitHub App; and asks GitHub again for failed deliveries only.
import { describe, expect, test } from '@jest/globals';
import { Phase, RefusalToken } from '../../api/vocabulary.js';
import { afterIn, heldJob } from '../support/builders.js';
import { APP_HOOK_KEY, FAKE_INSTALLATION_TOKEN, FakeForge, fakeGitHubApp, type FakeApp } from '../support/fake-forge.js';
import { TestKube } from '../support/kube.js';
import { phaseReached, withScenario, type EnvOfNamespace } from '../support/scenario.js';
import { operatorProcess } from '../support/service-process.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually, staysTrue } from '../support/wait.js';

const THREAD = 'github:acme/web#7';
const COMMENTS = /^\/repos\/acme\/web\/issues\/7\/comments$/;

/**
 * A hold the operator refuses at once: its `after` lies years beyond the longest wait allowed.
 * It carries the forge label the receiver gives a GitHub delivery's HeldJob: a `#` target alone
 * names no forge (api/forges.ts), and nothing is reported to a forge guessed at.
 */
const refusedHold = (name: string) => heldJob({ name, forge: 'github', waitFor: [{ after: '2099-01-01T00:00:00Z' }] });

async function withForge(body: (forge: FakeForge) => Promise<void>, opts: { app?: FakeApp } = {}): Promise<void> {
  const forge = await FakeForge.start(opts);
  try {
    await body(forge);
  } finally {
    await forge.stop();
  }
}

const githubEnv = (forge: FakeForge, extra: Record<string, string> = {}) => ({
  WAITGATE_GITHUB_TOKEN: 'ghp_e2e',
  WAITGATE_GITHUB_API_URL: forge.githubApiUrl,
  ...extra,
});

/**
 * The HeldJobs below are the test's, not the receiver's: the scenario's namespace is one the
 * install lets report (WAITGATE_FORGE_REPORT_NAMESPACES); forge-report-scope.test.ts tries the rest.
 */
const reporting =
  (env: Record<string, string>): EnvOfNamespace =>
  (namespace) => ({ ...env, WAITGATE_FORGE_REPORT_NAMESPACES: namespace });

const reportsOf = async (
  s: { kube: { getHeldJob(ns: string, n: string): Promise<{ status?: { reports?: unknown[] } } | undefined> }; namespace: string },
  name: string,
) => (await s.kube.getHeldJob(s.namespace, name))?.status?.reports ?? [];

describe('reports to the forge', () => {
  test.concurrent(
    'a refused hold yields exactly one comment with the token and the HeldJob’s name, recorded in status',
    () =>
      withForge((forge) =>
        withScenario(
          'forge-refused',
          async (s) => {
            const created = await s.kube.createHeldJob(s.namespace, refusedHold('late'));
            await phaseReached(s, 'late', Phase.Refused, Timeouts.shortMs);
            const [entry] = await eventually('the report recorded in status', async () => {
              const r = await reportsOf(s, 'late');
              return r.length > 0 ? r : undefined;
            });
            const comments = forge.comments(THREAD);
            expect(comments).toHaveLength(1);
            const body = comments[0]?.body ?? '';
            expect(body).toContain(`\`${RefusalToken.AfterBeyondMax}\``);
            expect(body).toContain('`late`');
            expect(body).toContain(`<!-- waitgate:${created.metadata.uid}:refused -->`);
            expect(entry).toMatchObject({ transition: 'refused', outcome: 'Posted', commentId: String(comments[0]?.id) });
            expect(forge.callsTo('POST', COMMENTS)[0]?.authorization).toBe('token ghp_e2e');
            // Later passes (a restart lists everything again) do not post again.
            await s.operator.stop();
            await s.restartOperator();
            await staysTrue('one comment only', async () => forge.comments(THREAD).length === 1, Date.now() + 3000);
            expect(forge.callsTo('POST', COMMENTS)).toHaveLength(1);
          },
          reporting(githubEnv(forge)),
        ),
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'as a GitHub App: an installation token got with the App’s JWT, the refusal posted with it, and the App’s own hook redelivered as the App',
    () => {
      const { app, privateKey } = fakeGitHubApp('4242', 77);
      const jwt = /^bearer [\w-]+\.[\w-]+\.[\w-]+$/;
      return withForge(
        (forge) => {
          const ago = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
          forge.deliveries.set(APP_HOOK_KEY, [
            { id: 1, guid: 'ok', delivered_at: ago(5), redelivery: false, status_code: 202 },
            { id: 2, guid: 'down', delivered_at: ago(10), redelivery: false, status_code: 503 },
          ]);
          return withScenario(
            'forge-app',
            async (s) => {
              const created = await s.kube.createHeldJob(s.namespace, refusedHold('late'));
              await phaseReached(s, 'late', Phase.Refused, Timeouts.shortMs);
              const [entry] = await eventually('the report recorded in status', async () => {
                const r = await reportsOf(s, 'late');
                return r.length > 0 ? r : undefined;
              });
              const comments = forge.comments(THREAD);
              expect(comments).toHaveLength(1);
              expect(comments[0]?.body).toContain(`<!-- waitgate:${created.metadata.uid}:refused -->`);
              expect(entry).toMatchObject({ transition: 'refused', outcome: 'Posted', commentId: String(comments[0]?.id) });

              // The installation token, asked for with a JWT the fake checked against the App's key...
              const tokenCalls = forge.callsTo('POST', /^\/app\/installations\/77\/access_tokens$/);
              expect(tokenCalls.length).toBeGreaterThanOrEqual(1);
              expect(tokenCalls.every((c) => jwt.test(c.authorization ?? ''))).toBe(true);
              // ...is what the comment went with (and the search for an earlier one).
              expect(forge.callsTo('POST', COMMENTS).map((c) => c.authorization)).toEqual([`token ${FAKE_INSTALLATION_TOKEN}`]);
              expect(forge.callsTo('GET', COMMENTS).every((c) => c.authorization === `token ${FAKE_INSTALLATION_TOKEN}`)).toBe(true);
              expect(forge.calls.some((c) => c.authorization === undefined)).toBe(false);

              // The App's own webhook: its failed delivery asked for again, as the App.
              await eventually('the App hook’s failed delivery asked for again', () =>
                forge.callsTo('POST', /^\/app\/hook\/deliveries\/\d+\/attempts$/).length > 0 ? true : undefined,
              );
              const hookCalls = forge.calls.filter((c) => c.path.startsWith('/app/hook/'));
              expect(new Set(hookCalls.filter((c) => c.method === 'POST').map((c) => c.path))).toEqual(
                new Set(['/app/hook/deliveries/2/attempts']),
              );
              expect(hookCalls.every((c) => jwt.test(c.authorization ?? ''))).toBe(true);
            },
            reporting({
              WAITGATE_GITHUB_APP_ID: app.appId,
              WAITGATE_GITHUB_APP_PRIVATE_KEY: privateKey,
              WAITGATE_GITHUB_APP_INSTALLATION_ID: String(app.installationId),
              WAITGATE_GITHUB_API_URL: forge.githubApiUrl,
              WAITGATE_GITHUB_REDELIVER_HOOKS: 'app',
              WAITGATE_GITHUB_REDELIVER_INTERVAL_MS: '1000',
            }),
          );
        },
        { app },
      );
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'an operator killed right after posting does not post again: the next one finds the marker',
    () =>
      withForge((forge) =>
        withScenario(
          'forge-crash',
          async (s) => {
            let killed = false;
            forge.onPost = async () => {
              if (killed) return;
              killed = true;
              await s.operator.kill('SIGKILL'); // the post landed; its answer and the status write never happen
            };
            await s.kube.createHeldJob(s.namespace, refusedHold('late'));
            await eventually('the comment posted and the poster killed', () => (killed ? true : undefined));
            expect(await reportsOf(s, 'late')).toEqual([]);
            await s.restartOperator();
            const [entry] = await eventually('the report recorded by the next operator', async () => {
              const r = await reportsOf(s, 'late');
              return r.length > 0 ? r : undefined;
            });
            expect(forge.comments(THREAD)).toHaveLength(1);
            expect(forge.callsTo('POST', COMMENTS)).toHaveLength(1);
            expect(entry).toMatchObject({ outcome: 'Posted', commentId: String(forge.comments(THREAD)[0]?.id) });
          },
          reporting(githubEnv(forge)),
        ),
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'a comment already there with the marker is recognised, not posted twice',
    () =>
      withForge((forge) =>
        withScenario(
          'forge-marker',
          async (s) => {
            // With the operator stopped: the HeldJob, and a comment of it already on the issue.
            await s.operator.stop();
            const created = await s.kube.createHeldJob(s.namespace, refusedHold('late'));
            const earlier = forge.addComment(THREAD, `posted before a crash\n<!-- waitgate:${created.metadata.uid}:refused -->`);
            await s.restartOperator();
            await phaseReached(s, 'late', Phase.Refused, Timeouts.shortMs);
            const [entry] = await eventually('the report recorded', async () => {
              const r = await reportsOf(s, 'late');
              return r.length > 0 ? r : undefined;
            });
            expect(entry).toMatchObject({ outcome: 'Posted', commentId: String(earlier.id) });
            expect(forge.callsTo('POST', COMMENTS)).toHaveLength(0);
            expect(forge.comments(THREAD)).toHaveLength(1);
          },
          reporting(githubEnv(forge)),
        ),
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'a forge answering 500, then 429 with Retry-After, then OK, is tried again and commented once',
    () =>
      withForge((forge) =>
        withScenario(
          'forge-retry',
          async (s) => {
            forge.fail({ method: 'GET', path: COMMENTS, status: 500 });
            forge.fail({ method: 'GET', path: COMMENTS, status: 429, headers: { 'retry-after': '1' } });
            await s.kube.createHeldJob(s.namespace, refusedHold('late'));
            const [entry] = await eventually(
              'the report recorded after the retries',
              async () => {
                const r = await reportsOf(s, 'late');
                return r.length > 0 ? r : undefined;
              },
              Timeouts.jobMs,
            );
            expect(entry).toMatchObject({ outcome: 'Posted', attempts: 3 });
            const lists = forge.callsTo('GET', COMMENTS);
            expect(lists).toHaveLength(3);
            // Backoff after the 500 (2 s), then the second the 429 asked for.
            expect((lists[1]?.at ?? 0) - (lists[0]?.at ?? 0)).toBeGreaterThanOrEqual(1900);
            expect((lists[2]?.at ?? 0) - (lists[1]?.at ?? 0)).toBeGreaterThanOrEqual(900);
            expect(forge.comments(THREAD)).toHaveLength(1);
          },
          reporting(githubEnv(forge)),
        ),
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'a forge that refuses the comment (404): given up at once, recorded, a Warning Event, and the hold unaffected',
    () =>
      withForge((forge) =>
        withScenario(
          'forge-gaveup',
          async (s) => {
            forge.fail({ path: COMMENTS, status: 404, times: 100 });
            await s.kube.createHeldJob(s.namespace, refusedHold('late'));
            const [entry] = await eventually('the report given up', async () => {
              const r = await reportsOf(s, 'late');
              return r.length > 0 ? r : undefined;
            });
            expect(entry).toMatchObject({ transition: 'refused', outcome: 'GaveUp', attempts: 1, error: 'HTTP 404' });
            await eventually('a ForgeReportGaveUp Event', async () =>
              (await s.kube.eventsFor(s.namespace, 'late')).some((e) => e.reason === 'ForgeReportGaveUp' && e.type === 'Warning')
                ? true
                : undefined,
            );
            expect((await s.kube.getHeldJob(s.namespace, 'late'))?.status?.phase).toBe(Phase.Refused);
            expect(forge.callsTo('GET', COMMENTS)).toHaveLength(1);
          },
          reporting(githubEnv(forge)),
        ),
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'launched and finished are reported when enabled, each once, on a GitLab merge request',
    () =>
      withForge((forge) =>
        withScenario(
          'forge-gitlab',
          async (s) => {
            await s.kube.createHeldJob(
              s.namespace,
              heldJob({ name: 'mr', target: 'group/web!12', forge: 'gitlab', waitFor: [{ after: afterIn(1000).after }] }),
            );
            await phaseReached(s, 'mr', Phase.Succeeded);
            await eventually('both reports recorded', async () => ((await reportsOf(s, 'mr')).length === 2 ? true : undefined));
            const bodies = forge.comments('gitlab:group/web!12').map((c) => c.body);
            expect(bodies).toHaveLength(2);
            expect(bodies.find((b) => b.includes(':launched -->'))).toMatch(/launched this job/);
            expect(bodies.find((b) => b.includes(':finished -->'))).toMatch(/this job succeeded/);
            expect(forge.callsTo('POST', /notes$/).every((c) => c.privateToken === 'glpat-e2e')).toBe(true);
          },
          reporting({
            WAITGATE_GITLAB_TOKEN: 'glpat-e2e',
            WAITGATE_GITLAB_API_URL: forge.gitlabApiUrl,
            WAITGATE_FORGE_REPORT: 'refused,launched,finished',
          }),
        ),
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'a forge that never answers does not delay a launch',
    () =>
      withForge((forge) =>
        withScenario(
          'forge-down',
          async (s) => {
            forge.fail({ path: /./, hang: true, times: 1000 });
            const { after, atMs } = afterIn(2000);
            await s.kube.createHeldJob(s.namespace, heldJob({ name: 'go', forge: 'github', waitFor: [{ after }] }));
            const running = await eventually(
              'the Job launched',
              async () => {
                const hj = await s.kube.getHeldJob(s.namespace, 'go');
                return hj?.status?.launchedAt ? hj : undefined;
              },
              Timeouts.jobMs,
            );
            // Launched on time, while the report of its launch hangs on the forge.
            expect(Date.parse(running.status?.launchedAt ?? '') - atMs).toBeLessThan(3000);
            await phaseReached(s, 'go', Phase.Succeeded);
            expect(forge.calls.length).toBeGreaterThan(0);
          },
          reporting(githubEnv(forge, { WAITGATE_FORGE_REPORT: 'refused,launched,finished' })),
        ),
      ),
    Timeouts.testMs,
  );
});

describe('redelivery of failed GitHub deliveries', () => {
  test.concurrent(
    'the leader, and only it, asks again for failed deliveries only, within the window',
    () =>
      withForge(async (forge) => {
        const kube = new TestKube();
        const ns = await kube.createNamespace('forge-redeliver');
        const env = (token: string) => ({
          WAITGATE_WATCH_NAMESPACE: ns,
          WAITGATE_NAMESPACE: ns,
          WAITGATE_VALKEY_PREFIX: `test-${ns}`,
          WAITGATE_LEADER_ELECTION: 'true',
          ...githubEnv(forge, {
            WAITGATE_GITHUB_TOKEN: token,
            WAITGATE_GITHUB_REDELIVER_HOOKS: 'acme/web:12,acme:34',
            WAITGATE_GITHUB_REDELIVER_INTERVAL_MS: '1000',
          }),
        });
        const leader = operatorProcess(env('ghp_leader'), `${ns}-a`);
        const follower = operatorProcess(env('ghp_follower'), `${ns}-b`);
        try {
          const ago = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
          forge.deliveries.set('acme/web:12', [
            { id: 1, guid: 'ok', delivered_at: ago(1), redelivery: false, status_code: 202 },
            { id: 2, guid: 'down', delivered_at: ago(2), redelivery: false, status_code: 502 },
            { id: 3, guid: 'timeout', delivered_at: ago(3), redelivery: false, status_code: 0 },
            { id: 4, guid: 'fixed', delivered_at: ago(5), redelivery: false, status_code: 500 },
            { id: 5, guid: 'fixed', delivered_at: ago(4), redelivery: true, status_code: 202 },
            { id: 6, guid: 'bad-signature', delivered_at: ago(1), redelivery: false, status_code: 401 },
            { id: 7, guid: 'too-old', delivered_at: ago(80), redelivery: false, status_code: 503 },
          ]);
          forge.deliveries.set('acme:34', [{ id: 8, guid: 'org-down', delivered_at: ago(1), redelivery: false, status_code: 504 }]);
          await leader.start();
          await follower.startAndWaitFor('Waiting to lead');
          await eventually('two rounds', () => (forge.callsTo('GET', /\/deliveries$/).length >= 4 ? true : undefined));
          const asked = forge.callsTo('POST', /\/attempts$/);
          expect(new Set(asked.map((c) => c.path))).toEqual(
            new Set([
              '/repos/acme/web/hooks/12/deliveries/2/attempts',
              '/repos/acme/web/hooks/12/deliveries/3/attempts',
              '/orgs/acme/hooks/34/deliveries/8/attempts',
            ]),
          );
          expect(forge.calls.filter((c) => c.authorization !== 'token ghp_leader')).toEqual([]);
        } finally {
          await Promise.all([leader.stop(), follower.stop()]);
          await kube.deleteNamespace(ns);
        }
      }),
    Timeouts.testMs,
  );
});
