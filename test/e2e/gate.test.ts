// The gate against the real apiserver, real Valkey and real check scripts.
import { describe, expect, test } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, statSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { Phase, REFUSAL_REASONS, RefusalToken } from '../../api/vocabulary.js';
import { heldJob } from '../support/builders.js';
import { kubeconfigPath } from '../support/env.js';
import { fixtureScript, HANGS_WITH_PID, LOGS_ITS_RUN, NOT_YET_THEN_GO, profilesConfigMap } from '../support/profiles.js';
import { phaseReached, withScenario } from '../support/scenario.js';
import { operatorProcess } from '../support/service-process.js';
import { TestKube } from '../support/kube.js';
import { withValkeyProxy } from '../support/tcp-proxy.js';
import { VERSION } from '../../lib/version.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually, staysTrue } from '../support/wait.js';

const run = promisify(execFile);
const NAME = 'web-7-deploy';

const ends = phaseReached;

/**
 * The conditions as the API conventions and kstatus want them, read from the apiserver: each
 * set from the HeldJob's current generation, reasons CamelCase, one per type, Ready as given;
 * a finished HeldJob is not Reconciling.
 */
function expectConventionalConditions(hj: HeldJobObject, ready: 'True' | 'False'): void {
  const conditions = hj.status?.conditions ?? [];
  expect(hj.metadata.generation).toBeGreaterThanOrEqual(1);
  expect(hj.status?.observedGeneration).toBe(hj.metadata.generation);
  for (const c of conditions) {
    expect({ type: c.type, observedGeneration: c.observedGeneration }).toEqual({
      type: c.type,
      observedGeneration: hj.metadata.generation,
    });
    expect(c.reason).toMatch(/^[A-Z][A-Za-z0-9]*$/);
  }
  expect(new Set(conditions.map((c) => c.type)).size).toBe(conditions.length);
  expect(conditions.find((c) => c.type === 'Ready')?.status).toBe(ready);
  expect(conditions.find((c) => c.type === 'Reconciling')).toBeUndefined();
  expect(conditions.find((c) => c.type === 'Stalled')?.status).toBe(ready === 'True' ? undefined : 'True');
}

const stateDir = () => mkdtempSync(join(tmpdir(), 'waitgate-check-state-'));

describe('profile checks: the exit-code contract, end to end', () => {
  // Short bounds so each path ends in seconds: one fault refuses, the maximum wait is 4 s. The
  // 1 s check timeout is only the hanging row's: with one fault allowed, any other script that
  // took over a second to spawn and exit on two loaded cores would have ended wait-unanswerable.
  const fast = (profile: string) => ({
    WAITGATE_WAIT_MAX_FAULTS: '1',
    WAITGATE_WAIT_MAX_MS: '4000',
    WAITGATE_WAIT_CHECK_TIMEOUT_MS: profile === 'hangs' ? '1000' : '10000',
    WAITGATE_CHECK_KILL_GRACE_MS: '300',
  });
  const scripts = {
    go: fixtureScript('exit-0.sh'),
    notyet: fixtureScript('exit-3.sh'),
    never: fixtureScript('exit-2.sh'),
    unsure: fixtureScript('exit-1.sh'),
    odd: fixtureScript('exit-7.sh'),
    hangs: fixtureScript('hang.sh'),
    greptrap: fixtureScript('grep-trap.sh'),
    chatty: fixtureScript('chatty.sh'),
  };

  test.concurrent.each<[string, string, string, string | undefined]>([
    ['exit 0: go, the Job runs', 'go', Phase.Succeeded, undefined],
    ['exit 2: never, refused', 'never', Phase.Refused, RefusalToken.Refused],
    ['exit 1: could not tell, counted (one fault allowed here)', 'unsure', Phase.Refused, RefusalToken.Unanswerable],
    ['an unknown exit code reads as could not tell', 'odd', Phase.Refused, RefusalToken.Unanswerable],
    ['a hanging check is killed at the timeout and counts as a fault', 'hangs', Phase.Refused, RefusalToken.Unanswerable],
    ['the grep -q trap: "no match" exits 1 and is counted as a fault, not "not yet"', 'greptrap', Phase.Refused, RefusalToken.Unanswerable],
    ['exit 3: not yet, checked again at the clamped maximum, then wait-expired', 'notyet', Phase.Refused, RefusalToken.Expired],
  ])(
    '%s',
    (_n, profile, phase, reason) =>
      withScenario(
        `gate-${profile}`,
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ profile }] }));
          const hj = await ends(s, NAME, phase);
          if (reason) expect(hj.status?.reason).toBe(reason);
          if (profile === 'unsure' || profile === 'greptrap') expect(hj.status).toMatchObject({ lastExitCode: 1, faults: 1 });
          if (profile === 'odd') expect(hj.status?.lastExitCode).toBe(7);
          if (profile === 'notyet') {
            // The last check really runs: one at the first hold, one on the wake at the maximum.
            expect(hj.status?.checks).toBe(2);
          }
          if (reason === RefusalToken.Unanswerable) expect(hj.status?.message).toContain(`"${profile}"`);
          // One check Event: each hold's profile gives one verdict, said once however often it
          // is checked (the not-yet hold is checked twice), from this replica.
          const checkEvents = (await s.kube.eventsFor(s.namespace, NAME)).filter((e) => (e.reason ?? '').startsWith('Check'));
          expect(checkEvents).toHaveLength(1);
          expect(checkEvents[0]).toMatchObject({ count: 1, reportingComponent: 'waitgate-operator', reportingInstance: hostname() });
          expectConventionalConditions(hj, phase === Phase.Succeeded ? 'True' : 'False');
          if (reason) {
            const stalled = hj.status?.conditions?.find((c) => c.type === 'Stalled');
            expect(stalled).toMatchObject({ status: 'True', reason: REFUSAL_REASONS[reason as RefusalToken] });
          }
        },
        { env: fast(profile), configMaps: { 'waitgate-profiles': profilesConfigMap(scripts) } },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'the log names the profile and counts bytes; it never holds the path or the output',
    () =>
      withScenario(
        'gate-logs',
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ profile: 'chatty' }] }));
          await ends(s, NAME, Phase.Refused);
          const ran = await s.operator.logged('Ran check');
          expect(ran).toMatchObject({ profile: 'chatty', exitCode: 3, stdoutBytes: 100000, stderrBytes: 70000 });
          expect(s.operator.logText()).not.toContain('chatty.sh');
          expect(s.operator.logText()).not.toContain('waitgate-profiles-');
          const port = (await s.operator.logged('Started'))['metricsPort'];
          // The counters follow the status write that ends() saw, so they are polled for.
          const metrics = await eventually('the refusal counted in /metrics', async () => {
            const text = await (await fetch(`http://127.0.0.1:${String(port)}/metrics`)).text();
            const counted =
              text.includes('waitgate_refusals_total{token="wait-expired"} 1') && text.includes('waitgate_heldjobs{phase="Refused"} 1');
            return counted ? text : undefined;
          });
          expect(metrics).toContain('waitgate_checks_total{profile="chatty",verdict="not-yet"} 1');
          expect(metrics).toContain('waitgate_refusals_total{token="wait-expired"} 1');
          expect(metrics).toContain('waitgate_heldjobs{phase="Refused"} 1');
          // Standard process and Node.js names, and the operator's own (docs/metrics.md).
          for (const name of ['process_resident_memory_bytes', 'process_cpu_seconds_total', 'nodejs_heap_size_used_bytes']) {
            expect(metrics).toMatch(new RegExp(`^${name}[ {]`, 'm'));
          }
          expect(metrics).toContain(`waitgate_build_info{version="${VERSION}",component="operator"} 1`);
          expect(metrics).toContain('waitgate_leader 1');
          expect(metrics).toMatch(/^waitgate_reconcile_total\{result="success"\} [1-9]/m);
          expect(metrics).toMatch(/^waitgate_reconcile_duration_seconds_count\{result="success"\} [1-9]/m);
          expect(metrics).toMatch(/^waitgate_workqueue_depth \d+$/m);
          // Exported, from 0 (a watch the apiserver ends under load restarts it; what is checked is the name).
          expect(metrics).toMatch(/^waitgate_informer_restarts_total\{informer="heldjobs"\} \d+$/m);
          expect(metrics).not.toMatch(/^waitgate_operator_/m);
        },
        {
          env: { WAITGATE_WAIT_MAX_CHECKS: '1' },
          configMaps: { 'waitgate-profiles': profilesConfigMap({ chatty: fixtureScript('chatty.sh') }) },
        },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'not yet, then go: launched on the second check; an after and a profile together, cheapest first',
    () => {
      const dir = stateDir();
      return withScenario(
        'gate-thengo',
        async (s) => {
          const after = new Date(Math.ceil((Date.now() + 2000) / 1000) * 1000).toISOString().replace('.000Z', 'Z');
          await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ after }, { profile: 'later' }] }));
          await eventually('the HeldJob to hold', async () =>
            (await s.kube.getHeldJob(s.namespace, NAME))?.status?.phase === Phase.Held ? true : undefined,
          );
          // No check before the instant. On a loaded machine the hold may be seen only after the
          // instant, its first check already run: then that check was written at the instant or later.
          const state = join(dir, 'acme_web_7');
          if (existsSync(state)) expect(statSync(state).mtimeMs).toBeGreaterThanOrEqual(Date.parse(after));
          const hj = await ends(s, NAME, Phase.Succeeded);
          expect(readFileSync(join(dir, 'acme_web_7'), 'utf8').trim()).toBe('2');
          expect(Date.parse(hj.status?.checksSince as string)).toBeGreaterThanOrEqual(Date.parse(after));
        },
        {
          // The maximum leaves room for a first check that starts seconds late on a loaded
          // machine (CI: the first came 6 s after the hold, past a 3 s maximum); the second
          // check is the one at the maximum.
          env: { CHECK_STATE_DIR: dir, WAITGATE_WAIT_MAX_MS: '10000' },
          configMaps: { 'waitgate-profiles': profilesConfigMap({ later: NOT_YET_THEN_GO }) },
        },
      );
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'two profiles, one says go and one not yet: the go is asked once, the round then starts with the one that held it up',
    () => {
      const log = join(stateDir(), 'checks.log');
      const logsAndExits = (code: number) => `#!/bin/sh\necho "$0" >> "\${CHECK_LOG:?}"\nexit ${code}\n`;
      return withScenario(
        'gate-rounds',
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ profile: 'first' }, { profile: 'second' }] }));
          const hj = await ends(s, NAME, Phase.Refused);
          expect(hj.status?.reason).toBe(RefusalToken.Expired);
          const asked = readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .map((l) => (l.includes('first') ? 'first' : 'second'));
          // Round one asks both in the order written; the wake at the maximum asks the one that
          // held it up, which says "not yet" again: wait-expired, the go never asked again.
          expect(asked).toEqual(['first', 'second', 'second']);
          expect(hj.status).toMatchObject({ checks: 3, lastVerdicts: { first: 'go', second: 'not-yet' } });
        },
        {
          env: { CHECK_LOG: log, WAITGATE_WAIT_MAX_MS: '8000' },
          configMaps: { 'waitgate-profiles': profilesConfigMap({ first: logsAndExits(0), second: logsAndExits(3) }) },
        },
      );
    },
    Timeouts.testMs,
  );

  test.concurrent(
    "more checks due than this operator's one check slot: queued, counted, their lateness measured, and wait_capacity_exceeded past a quarter of the cadence",
    () =>
      withScenario(
        'gate-overload',
        async (s) => {
          const port = (await s.operator.logged('Started'))['metricsPort'];
          const scrape = async () => (await fetch(`http://127.0.0.1:${String(port)}/metrics`)).text();
          const value = (text: string, series: string) => Number(new RegExp(`^${series} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
          const holds = Array.from({ length: 10 }, (_, i) => `slow-${i}`);
          for (const [i, name] of holds.entries()) {
            await s.kube.createHeldJob(s.namespace, heldJob({ name, target: `acme/web-${i}#1`, waitFor: [{ profile: 'slow' }] }));
          }
          // While the one slot runs two-second checks, the rest wait for it in this operator.
          await eventually('checks queued in the gauge', async () =>
            value(await scrape(), 'waitgate_checks_queued') >= 1 ? true : undefined,
          );
          await eventually(
            'all ten to launch',
            async () => {
              const all = await s.kube.listHeldJobs(s.namespace);
              const launched = all.filter((h) => h.status?.phase === Phase.Running || h.status?.phase === Phase.Succeeded);
              return launched.length === holds.length ? true : undefined;
            },
            90_000,
          );
          const metrics = await scrape();
          expect(value(metrics, 'waitgate_check_lateness_seconds_count')).toBe(holds.length);
          // The last ones waited well past 11 s (a quarter of the 30 s cadence, at its floor).
          expect(value(metrics, 'waitgate_check_lateness_seconds_bucket\\{le="11"\\}')).toBeLessThan(holds.length);
          expect(value(metrics, 'waitgate_checks_queued_total')).toBeGreaterThanOrEqual(5);
          expect(value(metrics, 'waitgate_wait_capacity_exceeded_total')).toBeGreaterThanOrEqual(1);
          expect(value(metrics, 'waitgate_check_slot_denials_total')).toBe(0);
          const alarm = await s.operator.logged((l) => l['event'] === 'wait_capacity_exceeded');
          expect(alarm).toMatchObject({
            shortage: 'own-slots',
            checkSlots: 1,
            intervalMs: 30_000,
            concurrency: 'none',
            knobs: ['WAITGATE_WAIT_CHECK_SLOTS', 'WAITGATE_WAIT_INTERVAL_MS', 'WAITGATE_CONCURRENCY'],
          });
          expect(alarm['msg']).toMatch(/^wait_capacity_exceeded: checks wait past a quarter of their cadence/);
        },
        {
          env: { WAITGATE_WAIT_CHECK_SLOTS: '1', WAITGATE_WAIT_INTERVAL_MS: '30000', WAITGATE_SCOPE_LIMIT: '10' },
          configMaps: { 'waitgate-profiles': profilesConfigMap({ slow: '#!/bin/sh\nsleep 2\nexit 0\n' }) },
        },
      ),
    150_000,
  );

  test.concurrent(
    'no fleet-wide Job cap unless one is set: six Jobs of six repositories run at once',
    () =>
      withScenario(
        'gate-nocap',
        async (s) => {
          for (let i = 0; i < 6; i++) {
            await s.kube.createHeldJob(s.namespace, heldJob({ name: `run-${i}`, target: `acme/repo-${i}#1`, exitCode: 'never' }));
          }
          await eventually('all six Running at once', async () => {
            const running = (await s.kube.listHeldJobs(s.namespace)).filter((h) => h.status?.phase === Phase.Running);
            return running.length === 6 ? true : undefined;
          });
          expect(await s.operator.logged('Started')).toMatchObject({ concurrency: 'none', scopeLimit: 1 });
        },
        {},
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'operator SIGKILLed mid-hold: it resumes from status, with no extra check and no lost wake',
    () => {
      const dir = stateDir();
      return withScenario(
        'gate-restart',
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ profile: 'later' }] }));
          const first = await eventually('the first check', async () => {
            const hj = await s.kube.getHeldJob(s.namespace, NAME);
            return hj?.status?.checks === 1 ? hj : undefined;
          });
          await s.operator.kill('SIGKILL');
          await s.restartOperator();
          const nextAt = Date.parse(first.status?.nextCheckAt as string);
          // On a loaded machine the restart can outlast the window; the check file's time
          // below still says when the second check ran.
          if (Date.now() < nextAt - 500) {
            await staysTrue(
              'no extra check before the next one is due',
              async () => readFileSync(join(dir, 'acme_web_7'), 'utf8').trim() === '1',
              nextAt - 500,
            );
          }
          const hj = await ends(s, NAME, Phase.Succeeded);
          expect(hj.status).toMatchObject({ checks: 2, heldSince: first.status?.heldSince });
          expect(readFileSync(join(dir, 'acme_web_7'), 'utf8').trim()).toBe('2');
          expect(statSync(join(dir, 'acme_web_7')).mtimeMs).toBeGreaterThanOrEqual(nextAt - 500);
        },
        {
          env: { CHECK_STATE_DIR: dir, WAITGATE_WAIT_MAX_MS: '6000' },
          configMaps: { 'waitgate-profiles': profilesConfigMap({ later: NOT_YET_THEN_GO }) },
        },
      );
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'two operators, each on its own namespace like two clusters of a fleet, share one Valkey and one slot: never two checks at once',
    async () => {
      const kube = new TestKube();
      const log = join(stateDir(), 'checks.log');
      const fleet = `test-fleet-${Date.now()}`;
      const namespaces = [await kube.createNamespace('fleet-a'), await kube.createNamespace('fleet-b')];
      const operators = namespaces.map((ns) =>
        operatorProcess(
          {
            WAITGATE_WATCH_NAMESPACE: ns,
            WAITGATE_NAMESPACE: ns,
            WAITGATE_VALKEY_PREFIX: fleet,
            WAITGATE_WORKER_NAME: ns,
            WAITGATE_WAIT_CHECK_SLOTS: '1',
            WAITGATE_CONCURRENCY: '8',
            WAITGATE_SCOPE_LIMIT: '8',
            CHECK_LOG: log,
          },
          `${ns}-operator`,
        ),
      );
      try {
        for (const ns of namespaces) {
          await kube.core.createNamespacedConfigMap({
            namespace: ns,
            body: { metadata: { name: 'waitgate-profiles' }, data: profilesConfigMap({ logged: LOGS_ITS_RUN }) },
          });
        }
        await Promise.all(operators.map((o) => o.start()));
        for (const ns of namespaces) {
          for (let i = 1; i <= 3; i++)
            await kube.createHeldJob(ns, heldJob({ name: `hj-${i}`, target: `acme/web#${i}`, waitFor: [{ profile: 'logged' }] }));
        }
        await eventually(
          'all six to launch',
          async () => {
            const all = (await Promise.all(namespaces.map((ns) => kube.listHeldJobs(ns)))).flat();
            return all.filter((h) => h.status?.phase === Phase.Running || h.status?.phase === Phase.Succeeded).length === 6
              ? true
              : undefined;
          },
          90_000,
        );
        // Each check writes its end line before it exits, so before its hold launched; waited
        // for all the same, as every read of a process's log is.
        const lines = await eventually('six starts and six ends in the checks log', () => {
          const all = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
          return all.length >= 12 ? all : undefined;
        });
        const events = lines.map((l) => {
          const [kind, t] = l.split(' ');
          return { kind, t: BigInt(t as string) };
        });
        events.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : 0));
        expect(events.filter((e) => e.kind === 'start')).toHaveLength(6);
        let running = 0;
        for (const e of events) {
          running += e.kind === 'start' ? 1 : -1;
          expect(running).toBeLessThanOrEqual(1);
        }
        const ran = await eventually('six checks logged across the operators', () => {
          const all = operators.flatMap((o) => o.logLines()).filter((l) => l['msg'] === 'Ran check');
          return all.length >= 6 ? all : undefined;
        });
        expect(ran).toHaveLength(6);
      } finally {
        await Promise.all(operators.map((o) => o.stop()));
        await Promise.all(namespaces.map((ns) => kube.deleteNamespace(ns)));
      }
    },
    150_000,
  );
});

describe('refusals, skew and cancel', () => {
  test.concurrent(
    'wait-skew: the trigger says wait but the HeldJob carries none (a stale receiver dropped it)',
    () =>
      withScenario(
        'gate-skew',
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, trigger: 'deploy' }));
          const hj = await ends(s, NAME, Phase.Refused, Timeouts.shortMs);
          expect(hj.status?.reason).toBe(RefusalToken.Skew);
          expect(await s.kube.listJobs(s.namespace)).toHaveLength(0);
        },
        {
          configMaps: {
            'waitgate-triggers': {
              'triggers.json': JSON.stringify([
                {
                  name: 'deploy',
                  on: { type: 'label', any: ['d'] },
                  run: { kind: 'github', flow: 'f', waitFor: [{ profile: 'jira' }], job: { template: { spec: {} } } },
                },
              ]),
            },
          },
        },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'an unreadable triggers file is said loudly (condition, event, metric), not silently',
    () =>
      withScenario(
        'gate-notriggers',
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME }));
          const hj = await ends(s, NAME, Phase.Succeeded);
          expect(hj.status?.conditions?.find((c) => c.type === 'TriggerChecked')).toMatchObject({
            status: 'Unknown',
            reason: 'TriggersUnreadable',
          });
          expect((await s.kube.eventsFor(s.namespace, NAME)).map((e) => e.reason)).toContain('TriggersUnreadable');
          await s.operator.logged('Cannot compare holds with their triggers');
        },
        { configMaps: { 'waitgate-triggers': { 'triggers.json': '[{"name": "broken"' } } },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'kubectl delete heldjob while its Job runs: the garbage collector deletes the Job and an Event says operator-cancel',
    () =>
      withScenario('gate-cancel', async (s) => {
        await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, exitCode: 'never' }));
        const hj = await ends(s, NAME, Phase.Running);
        await run('kubectl', ['--kubeconfig', kubeconfigPath(), 'delete', 'heldjob', NAME, '-n', s.namespace, '--wait=true']);
        await eventually('the Job to go', async () =>
          (await s.kube.jobExists(s.namespace, hj.status?.jobName as string)) ? undefined : true,
        );
        const cancel = await eventually('the OperatorCancel Event', async () =>
          (await s.kube.eventsFor(s.namespace, NAME)).find((e) => e.reason === 'OperatorCancel'),
        );
        expect(cancel.message).toMatch(/^operator-cancel/);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'kubectl delete heldjob while its check runs: the check is killed and the HeldJob goes',
    () => {
      const dir = stateDir();
      return withScenario(
        'gate-cancelcheck',
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ profile: 'hangs' }] }));
          const pid = await eventually('the check to start', () =>
            existsSync(join(dir, 'pid')) ? Number(readFileSync(join(dir, 'pid'), 'utf8')) : undefined,
          );
          await run('kubectl', [
            '--kubeconfig',
            kubeconfigPath(),
            'delete',
            'heldjob',
            NAME,
            '-n',
            s.namespace,
            '--wait=true',
            '--timeout=20s',
          ]);
          await eventually('the check process to be gone', () => (existsSync(`/proc/${pid}`) ? undefined : true), 10_000);
          expect(await s.kube.listJobs(s.namespace)).toHaveLength(0);
        },
        {
          env: { CHECK_STATE_DIR: dir, WAITGATE_WAIT_CHECK_TIMEOUT_MS: '60000' },
          configMaps: { 'waitgate-profiles': profilesConfigMap({ hangs: HANGS_WITH_PID }) },
        },
      );
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'scope: with one Job per repository, a second cleared hold waits for the first to end',
    () =>
      withScenario(
        'gate-scope',
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: 'first', target: 'acme/web#1', exitCode: 'never' }));
          await ends(s, 'first', Phase.Running);
          await s.kube.createHeldJob(s.namespace, heldJob({ name: 'second', target: 'acme/web#2' }));
          await eventually('the second to queue for the scope', async () => {
            const hj = await s.kube.getHeldJob(s.namespace, 'second');
            return hj?.status?.conditions?.some((c) => c.type === 'Waiting' && c.reason === 'ScopeQueued') ? true : undefined;
          });
          await s.kube.createHeldJob(s.namespace, heldJob({ name: 'other-repo', target: 'acme/api#1' }));
          await ends(s, 'other-repo', Phase.Succeeded);
          expect((await s.kube.getHeldJob(s.namespace, 'second'))?.status?.phase).toBe(Phase.Held);
          await s.kube.custom.deleteNamespacedCustomObject({
            group: 'waitgate.dev',
            version: 'v1alpha1',
            plural: 'heldjobs',
            namespace: s.namespace,
            name: 'first',
          });
          await ends(s, 'second', Phase.Succeeded);
        },
        { env: { WAITGATE_SCOPE_LIMIT: '1', WAITGATE_CONCURRENCY: '4' } },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'a pause window: nothing starts inside it, and the clock has not started',
    () =>
      withScenario(
        'gate-pause',
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME }));
          const hj = await eventually('the HeldJob to be paused', async () => {
            const h = await s.kube.getHeldJob(s.namespace, NAME);
            return h?.status?.conditions?.some((c) => c.reason === 'Paused') ? h : undefined;
          });
          expect(hj.status?.phase).toBe(Phase.Pending);
          expect(hj.status?.heldSince).toBeUndefined();
          await staysTrue('no Job', async () => (await s.kube.listJobs(s.namespace)).length === 0, Date.now() + 2000);
        },
        (() => {
          // A window covering now, whatever the time of day: from one minute ago for two hours.
          const d = new Date(Date.now() - 60_000);
          const hhmm = (x: Date) => `${String(x.getUTCHours()).padStart(2, '0')}:${String(x.getUTCMinutes()).padStart(2, '0')}`;
          return {
            env: {
              WAITGATE_PAUSE_WINDOWS: JSON.stringify([
                { start: hhmm(d), end: hhmm(new Date(d.getTime() + 2 * 3_600_000)), timeZone: 'UTC' },
              ]),
            },
          };
        })(),
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'Valkey unreachable: no check runs and nothing is counted; the hold carries on when it returns',
    async () => {
      const dir = stateDir();
      await withValkeyProxy(async (proxy, valkeyUrl) => {
        await withScenario(
          'gate-novalkey',
          async (s) => {
            await proxy.cut();
            await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ profile: 'later' }] }));
            await eventually('the hold', async () =>
              (await s.kube.getHeldJob(s.namespace, NAME))?.status?.phase === Phase.Held ? true : undefined,
            );
            await staysTrue('no check while Valkey is away', async () => !existsSync(join(dir, 'acme_web_7')), Date.now() + 3000);
            expect((await s.kube.getHeldJob(s.namespace, NAME))?.status).toMatchObject({ checks: 0, faults: 0 });
            await proxy.restore();
            const hj = await ends(s, NAME, Phase.Succeeded, 90_000);
            expect(hj.status).toMatchObject({ checks: 2, faults: 0 });
          },
          // The maximum wait outlasts the first deferral (a quarter cadence, at least 11 s).
          {
            env: { CHECK_STATE_DIR: dir, WAITGATE_WAIT_MAX_MS: '25000', VALKEY_URL: valkeyUrl },
            configMaps: { 'waitgate-profiles': profilesConfigMap({ later: NOT_YET_THEN_GO }) },
          },
        );
      });
    },
    Timeouts.testMs,
  );
});
