// The `waitgate` command line as a user runs it: `node bin/waitgate.js ...` as a real process,
// against the real apiserver, the real Valkey and real check scripts.
import { afterAll, describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_GROUP, API_VERSION, FINALIZER, HELDJOB_PLURAL, Phase } from '../../api/vocabulary.js';
import { afterIn, heldJob } from '../support/builders.js';
import { kubeconfigPath, requireEnv, ROOT } from '../support/env.js';
import { TestKube } from '../support/kube.js';
import { fixtureScript, profilesConfigMap } from '../support/profiles.js';
import { withScenario, type Scenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const CLI = join(ROOT, 'bin', 'waitgate.js');
const MIN = 60_000;
/** An after condition a day from now: the HeldJob holds and nothing else happens. */
const dayAhead = () => ({ after: afterIn(24 * 60 * MIN).after });

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** Runs `node bin/waitgate.js ...args` with a small environment of its own; never rejects. */
function waitgate(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env['PATH'] ?? '', KUBECONFIG: kubeconfigPath(), VALKEY_URL: requireEnv('VALKEY_URL'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

const kube = new TestKube();
const heldJobApi = { group: API_GROUP, version: API_VERSION, plural: HELDJOB_PLURAL };
const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

/** A HeldJob whose after lies a day ahead, with the status an operator would have written. */
async function heldFor(namespace: string, name: string, target: string, waitedMs: number, label = 'after (a day ahead)'): Promise<void> {
  const body = heldJob({ name, target, waitFor: [dayAhead()] });
  (body['metadata'] as Record<string, unknown>)['annotations'] = { 'example.com/title': 'Fix the login page, says the issue author' };
  await kube.createHeldJob(namespace, body);
  await writeStatus(namespace, name, {
    phase: Phase.Held,
    waitLabel: label,
    heldSince: new Date(Date.now() - waitedMs).toISOString(),
    waitingSince: new Date(Date.now() - waitedMs).toISOString(),
  });
}

function writeStatus(namespace: string, name: string, status: Record<string, unknown>) {
  return kube.custom.patchNamespacedCustomObjectStatus({ ...heldJobApi, namespace, name, body: { status } }, merge);
}

async function withNamespace(
  label: string,
  body: (namespace: string) => Promise<void>,
  configMaps: Record<string, Record<string, string>> = {},
) {
  const namespace = await kube.createNamespace(label);
  try {
    for (const [name, data] of Object.entries(configMaps)) {
      await kube.core.createNamespacedConfigMap({ namespace, body: { metadata: { name, namespace }, data } });
    }
    await body(namespace);
  } finally {
    await kube.deleteNamespace(namespace);
  }
}

describe('waitgate held', () => {
  test.concurrent(
    'nothing waiting: the section is hidden (no output), and an empty list as data',
    () =>
      withNamespace('cli-held0', async (ns) => {
        expect(await waitgate(['held', '-n', ns])).toMatchObject({ code: 0, stdout: '', stderr: '' });
        const json = await waitgate(['held', '-n', ns, '-o', 'json']);
        expect(json.code).toBe(0);
        expect(JSON.parse(json.stdout)).toEqual([]);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'two waiting, one queued for a scope slot and one pending: counted apart, longest first, pending last; what runs or ended does not count; ids only',
    () =>
      withNamespace('cli-held2', async (ns) => {
        await heldFor(ns, 'first-delivery', 'acme/web#7', 134 * MIN, 'after 2026-09-01T09:00Z + jira');
        await heldFor(ns, 'second-delivery', 'acme/web#31', 41 * MIN, 'jira');
        await kube.createHeldJob(ns, heldJob({ name: 'already-ran', target: 'acme/api#5' }));
        await writeStatus(ns, 'already-ran', { phase: Phase.Succeeded });
        // Paused in a pause window, not held yet: counted apart, listed after the waiting ones.
        await kube.createHeldJob(ns, heldJob({ name: 'paused', target: 'acme/web#40', waitFor: [dayAhead()] }));
        await writeStatus(ns, 'paused', { phase: Phase.Pending, waitLabel: 'jira' });
        // Every condition cleared, its scope full: held, but not on its conditions any more.
        await heldFor(ns, 'scope-full', 'acme/web#50', 20 * MIN, 'jira');
        const now = new Date().toISOString();
        await writeStatus(ns, 'scope-full', {
          conditions: [
            { type: 'Waiting', status: 'True', reason: 'ScopeQueued', message: 'waiting for a scope slot', lastTransitionTime: now },
          ],
        });
        const r = await waitgate(['held', '-n', ns, '--all']);
        expect(r.code).toBe(0);
        expect(r.stdout.trimEnd().split('\n')).toEqual([
          'held · 2 waiting · 1 queued for a scope slot · 1 pending',
          expect.stringMatching(/^ {2}○ acme\/web#7 · after 2026-09-01T09:00Z \+ jira · waited 2h1[45]m$/),
          expect.stringMatching(/^ {2}○ acme\/web#31 · jira · waited 4[12]m$/),
          expect.stringMatching(/^ {2}○ acme\/web#50 · jira · cleared, queued for a scope slot · waited 2[01]m$/),
          '  ○ acme/web#40 · jira · queued, not held yet',
        ]);
        for (const never of ['Fix the login page', 'first-delivery', 'already-ran', 'acme/api#5', ns])
          expect(r.stdout).not.toContain(never);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'five waiting: three rows and "↓ 2 more"; --all lists all five; -o json and -A carry namespace and name',
    () =>
      withNamespace('cli-held5', async (ns) => {
        for (let i = 1; i <= 5; i++) await heldFor(ns, `hj-${i}`, `acme/web#${i}`, (10 - i) * 10 * MIN, 'jira');
        const r = await waitgate(['held', '--namespace', ns]);
        expect(r.code).toBe(0);
        const lines = r.stdout.trimEnd().split('\n');
        expect(lines).toEqual([
          'held · 5 waiting',
          expect.stringMatching(/^ {2}○ acme\/web#1 · jira · waited 1h(29|30)m$/),
          expect.stringMatching(/^ {2}○ acme\/web#2 · jira · waited 1h(19|20)m$/),
          expect.stringMatching(/^ {2}○ acme\/web#3 · jira · waited 1h(9|10)m$/),
          '  ↓ 2 more',
        ]);

        const all = await waitgate(['held', '-n', ns, '--all']);
        expect(
          all.stdout
            .trimEnd()
            .split('\n')
            .map((l) => l.replace(/ · waited .*/, '')),
        ).toEqual(['held · 5 waiting', ...[1, 2, 3, 4, 5].map((i) => `  ○ acme/web#${i} · jira`)]);

        const json = await waitgate(['held', '-n', ns, '-o', 'json']);
        const rows = JSON.parse(json.stdout) as Record<string, unknown>[];
        expect(rows).toHaveLength(5);
        expect(rows[0]).toEqual({
          namespace: ns,
          name: 'hj-1',
          target: 'acme/web#1',
          conditions: 'jira',
          phase: 'Held',
          state: 'watching',
          heldSince: expect.any(String),
          waitedSeconds: expect.any(Number),
          releaseAt: null,
          givesUpAt: null,
          nextCheckAt: null,
        });
        expect(Math.abs((rows[0]?.['waitedSeconds'] as number) - 90 * 60)).toBeLessThan(60);

        const everywhere = JSON.parse((await waitgate(['held', '-A', '-o', 'json'])).stdout) as { namespace: string; name: string }[];
        expect(everywhere.filter((row) => row.namespace === ns).map((row) => row.name)).toEqual(['hj-1', 'hj-2', 'hj-3', 'hj-4', 'hj-5']);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    '-n and -A together are a usage error',
    async () => {
      const r = await waitgate(['held', '-n', 'x', '-A']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/-n and -A exclude each other/);
    },
    Timeouts.testMs,
  );
});

describe('waitgate cancel', () => {
  const phaseOf = async (s: Scenario, name: string) => (await s.kube.getHeldJob(s.namespace, name))?.status?.phase;
  const reaches = (s: Scenario, name: string, phase: string) =>
    eventually(`${name} to reach ${phase}`, async () => ((await phaseOf(s, name)) === phase ? true : undefined), Timeouts.jobMs);

  test.concurrent(
    'held, running and finished ones, with the operator handling the finalizer: each said for what it was, and gone',
    () =>
      withScenario('cli-cancel', async (s) => {
        await s.kube.createHeldJob(s.namespace, heldJob({ name: 'waiting', target: 'acme/web#7', waitFor: [dayAhead()] }));
        await s.kube.createHeldJob(s.namespace, heldJob({ name: 'busy', target: 'acme/web#8', exitCode: 'never' }));
        await s.kube.createHeldJob(s.namespace, heldJob({ name: 'done', target: 'acme/api#9', exitCode: 0 }));
        await Promise.all([reaches(s, 'waiting', Phase.Held), reaches(s, 'busy', Phase.Running), reaches(s, 'done', Phase.Succeeded)]);
        // A hold that only sleeps carries no finalizer (nothing to clean up); nor does a running
        // one once its Job is seen: the garbage collector takes the Job with it, operator or not.
        await eventually('the running one to carry no finalizer', async () =>
          (await s.kube.getHeldJob(s.namespace, 'busy'))?.metadata.finalizers?.includes(FINALIZER) ? undefined : true,
        );

        const held = await waitgate(['cancel', 'waiting', '-n', s.namespace]);
        expect(held).toMatchObject({ code: 0, stderr: '' });
        expect(held.stdout).toBe(
          `Cancelling ${s.namespace}/waiting (acme/web#7): it was held on its conditions and never ran; nothing will start.\n${s.namespace}/waiting is gone.\n`,
        );
        expect(await s.kube.getHeldJob(s.namespace, 'waiting')).toBeUndefined();

        const jobName = (await s.kube.getHeldJob(s.namespace, 'busy'))?.status?.jobName as string;
        const running = await waitgate(['cancel', 'busy', '-n', s.namespace, '-o', 'json']);
        expect(running.code).toBe(0);
        expect(JSON.parse(running.stdout)).toEqual({
          namespace: s.namespace,
          name: 'busy',
          found: true,
          was: 'running',
          phase: 'Running',
          target: 'acme/web#8',
          jobName,
          gone: true,
        });
        await eventually('the Job to go', async () => ((await s.kube.jobExists(s.namespace, jobName)) ? undefined : true), Timeouts.gcMs);
        const cancel = await eventually('the OperatorCancel Event', async () =>
          (await s.kube.eventsFor(s.namespace, 'busy')).find((e) => e.reason === 'OperatorCancel'),
        );
        expect(cancel.message).toMatch(/^operator-cancel/);

        const finished = await waitgate(['cancel', 'done', '-n', s.namespace]);
        expect(finished.code).toBe(0);
        expect(finished.stdout).toMatch(
          /^Deleting the record of .*\/done \(acme\/api#9\): it had already finished \(Succeeded\); there was nothing to stop\.\n/,
        );
      }),
    Timeouts.testMs * 2,
  );

  test.concurrent(
    'a HeldJob that does not exist: exit 3, nothing deleted',
    () =>
      withNamespace('cli-cancel404', async (ns) => {
        const r = await waitgate(['cancel', 'no-such-heldjob', '-n', ns]);
        expect(r).toMatchObject({ code: 3, stdout: '' });
        expect(r.stderr).toMatch(new RegExp(`there is no HeldJob ${ns}/no-such-heldjob`));
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'no operator to release the finalizer: exit 1 at the timeout, saying why',
    () =>
      withNamespace('cli-cancelstuck', async (ns) => {
        const body = heldJob({ name: 'stuck', waitFor: [dayAhead()] });
        (body['metadata'] as Record<string, unknown>)['finalizers'] = [FINALIZER];
        await kube.createHeldJob(ns, body);
        try {
          const r = await waitgate(['cancel', 'stuck', '-n', ns, '--timeout', '1500ms']);
          expect(r.code).toBe(1);
          expect(r.stdout).toMatch(/it was queued \(Pending, its hold had not begun\)/);
          expect(r.stderr).toMatch(/still there after 1\.5s: its finalizer waitgate\.dev\/cleanup waits for the operator/);
          expect(r.ms).toBeLessThan(20_000);
        } finally {
          await kube.custom
            .patchNamespacedCustomObject({ ...heldJobApi, namespace: ns, name: 'stuck', body: { metadata: { finalizers: null } } }, merge)
            .catch(() => undefined);
        }
      }),
    Timeouts.testMs,
  );
});

describe('waitgate check', () => {
  // One namespace for these tests, made by whichever starts first (concurrent tests may start
  // before a describe block's beforeAll has run).
  let made: Promise<string> | undefined;
  const checkNamespace = () => (made ??= makeCheckNamespace());
  async function makeCheckNamespace(): Promise<string> {
    const ns = await kube.createNamespace('cli-check');
    const data = CHECK_PROFILES;
    await kube.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'waitgate-profiles', namespace: ns }, data } });
    return ns;
  }
  afterAll(async () => {
    if (made) await kube.deleteNamespace(await made);
  });
  const CHECK_PROFILES = profilesConfigMap({
    go: fixtureScript('exit-0.sh'),
    notyet: fixtureScript('exit-3.sh'),
    never: fixtureScript('exit-2.sh'),
    // Could not tell, and says why on stderr: not the silent, instant exit 1 of the grep -q trap.
    unsure: '#!/bin/sh\necho "jira: connection refused" >&2\nexit 1\n',
    greptrap: fixtureScript('grep-trap.sh'),
    hangs: fixtureScript('hang.sh'),
    chatty: fixtureScript('chatty.sh'),
    argv: fixtureScript('echo-target.sh'),
    env: fixtureScript('env-check.sh'),
    envlist: fixtureScript('env-allow-list.sh'),
    childwait: fixtureScript('hang-with-child.sh'),
  });
  const sha256Of = (profile: string) =>
    createHash('sha256')
      .update(CHECK_PROFILES[`${profile}.sh`] as string, 'utf8')
      .digest('hex');

  test.concurrent.each<[string, RegExp[], number]>([
    ['go', [/^exit 0 after \d+ms: go\.$/m, /Job starts/], 0],
    ['notyet', [/^exit 3 after \d+ms: not yet\.$/m, /Not counted/], 0],
    ['never', [/^exit 2 after \d+ms: never\.$/m, /refuse the HeldJob for good \(wait-refused\)/], 0],
    ['unsure', [/^exit 1 after \d+ms: could not tell\.$/m, /5 "could not tell" in a row .*wait-unanswerable/], 25],
    ['greptrap', [/^exit 1 after \d+ms: could not tell\.$/m, /grep -q trap/, /"Not yet" must be exit 3/, /docs\/checks\.md/], 0],
  ])(
    '%s: runs, explains, exits 0',
    async (profile, explained, stderrBytes) => {
      const ns = await checkNamespace();
      const r = await waitgate(['check', profile, 'acme/web#7', '--waitgate-namespace', ns]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(
        new RegExp(
          `^settings: from this shell's environment \\(no operator Deployment in ${ns}\\)\ncheck ${profile} on acme/web#7 \\(${ns}/waitgate-profiles, script ${profile}\\.sh sha256 ${sha256Of(profile)}, timeout 10000 ms\\)\n`,
        ),
      );
      for (const e of explained) expect(r.stdout).toMatch(e);
      expect(r.stdout).toMatch(new RegExp(`^output: stdout 0 bytes, stderr ${stderrBytes} bytes `, 'm'));
      expect(r.stdout).not.toContain('connection refused');
      if (profile !== 'greptrap') expect(r.stdout).not.toMatch(/grep/);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'a hanging check is stopped at the configured timeout: could not tell',
    async () => {
      const ns = await checkNamespace();
      // The same command with a script that ends at once, for what start-up and the apiserver
      // reads cost on this machine now (a loaded machine has taken over 30 s).
      const quick = await waitgate(['check', 'chatty', 'acme/web#7', '--waitgate-namespace', ns]);
      const r = await waitgate(['check', 'hangs', 'acme/web#7', '--waitgate-namespace', ns], {
        WAITGATE_WAIT_CHECK_TIMEOUT_MS: '1000',
        WAITGATE_CHECK_KILL_GRACE_MS: '300',
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^no answer within 1s: timed out, could not tell\.$/m);
      expect(r.stdout).toMatch(/SIGTERM, then SIGKILL/);
      // The script never ends by itself: stopped means about the 1 s timeout and the 0.3 s grace
      // more than the quick run, with room for the load to change between the two.
      expect(r.ms).toBeLessThan(quick.ms * 2 + 10_000);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'output is counted in bytes, never shown; -o json carries the answer',
    async () => {
      const ns = await checkNamespace();
      const r = await waitgate(['check', 'chatty', 'acme/web#7', '--waitgate-namespace', ns, '-o', 'json']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        profile: 'chatty',
        target: 'acme/web#7',
        verdict: 'not-yet',
        exitCode: 3,
        stdoutBytes: 100000,
        stderrBytes: 70000,
        grepTrap: false,
        scriptSha256: sha256Of('chatty'),
      });
      expect(r.stdout).not.toContain('\u0000');
      // The digest also goes to stderr before the script runs, so it is seen even if the run hangs.
      expect(r.stderr).toContain(`sha256 ${sha256Of('chatty')}`);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    "the target is the one argument; the check gets the command's environment only by the allow-list; WAITGATE_NAMESPACE picks the ConfigMap",
    async () => {
      const ns = await checkNamespace();
      const argv = await waitgate(['check', 'argv', 'group/sub/repo!12', '--waitgate-namespace', ns], {
        WAITGATE_TEST_EXPECT: 'group/sub/repo!12',
        WAITGATE_CHECK_ENV_ALLOW: 'WAITGATE_TEST_EXPECT',
      });
      expect(argv.stdout).toMatch(/^exit 0 after/m);
      const env = await waitgate(['check', 'env', 'acme/web#7'], {
        WAITGATE_NAMESPACE: ns,
        WAITGATE_TEST_PRESENT: 'yes',
        WAITGATE_CHECK_ENV_ALLOW: 'WAITGATE_TEST_PRESENT',
      });
      expect(env.stdout).toMatch(/^exit 0 after/m);
      // Set in the command's environment but not allowed: the script does not see it.
      const notAllowed = await waitgate(['check', 'env', 'acme/web#7', '--waitgate-namespace', ns], { WAITGATE_TEST_PRESENT: 'yes' });
      expect(notAllowed.stdout).toMatch(/^exit 4 after .*could not tell/m);
      const without = await waitgate(['check', 'env', 'acme/web#7', '--waitgate-namespace', ns]);
      expect(without.stdout).toMatch(/^exit 4 after .*could not tell/m);
      // KUBECONFIG and VALKEY_URL (the command has both) and a secret stay out; PATH and the allowed name come in.
      const list = await waitgate(['check', 'envlist', 'acme/web#7', '--waitgate-namespace', ns], {
        WAITGATE_TEST_SECRET: 'hunter2',
        WAITGATE_TEST_ALLOWED: 'yes',
        WAITGATE_CHECK_ENV_ALLOW: 'WAITGATE_TEST_ALLOWED',
      });
      expect(list.stdout).toMatch(/^exit 0 after/m);
      // Inheriting is an explicit opt-in, and then everything is seen.
      const inherited = await waitgate(['check', 'env', 'acme/web#7', '--waitgate-namespace', ns], {
        WAITGATE_TEST_PRESENT: 'yes',
        WAITGATE_CHECK_ENV_INHERIT: 'true',
      });
      expect(inherited.stdout).toMatch(/^exit 0 after/m);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'Ctrl-C stops the check and what it started: the script runs in a session of its own, so the command ends it',
    async () => {
      const ns = await checkNamespace();
      const pidFile = join(mkdtempSync(join(tmpdir(), 'waitgate-cli-interrupt-')), 'child.pid');
      const child = spawn(process.execPath, [CLI, 'check', 'childwait', 'acme/web#7', '--waitgate-namespace', ns], {
        env: {
          PATH: process.env['PATH'] ?? '',
          KUBECONFIG: kubeconfigPath(),
          WAITGATE_WAIT_CHECK_TIMEOUT_MS: '60000',
          WAITGATE_CHECK_KILL_GRACE_MS: '300',
          WAITGATE_TEST_PIDFILE: pidFile,
          WAITGATE_CHECK_ENV_ALLOW: 'WAITGATE_TEST_PIDFILE',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      try {
        // The command starts, reads the ConfigMap and runs the script: a process start-up.
        const background = await eventually(
          'the check to start its background child',
          () => {
            const text = existsSync(pidFile) ? readFileSync(pidFile, 'utf8').trim() : '';
            return text === '' ? undefined : Number(text);
          },
          Timeouts.startMs,
        );
        child.kill('SIGINT');
        expect(await closed).toBe(1);
        expect(stderr).toMatch(/interrupted; the check was stopped/);
        await eventually('the background child to be gone', () => (processGone(background) ? true : undefined));
      } finally {
        child.kill('SIGKILL');
      }
    },
    Timeouts.testMs,
  );

  test.concurrent(
    "reads the installed operator's settings from its Deployment, not this shell's",
    async () => {
      const ns = await kube.createNamespace('cli-installed');
      try {
        await kube.core.createNamespacedConfigMap({
          namespace: ns,
          body: { metadata: { name: 'waitgate-profiles', namespace: ns }, data: CHECK_PROFILES },
        });
        const apps = kube.kc.makeApiClient(k8s.AppsV1Api);
        const operatorDeployment = (env: { name: string; value: string }[]) => ({
          metadata: { name: 'waitgate-operator', namespace: ns },
          spec: {
            replicas: 0,
            selector: { matchLabels: { app: 'op' } },
            template: {
              metadata: { labels: { app: 'op' } },
              spec: { containers: [{ name: 'operator', image: 'waitgate', command: ['node', 'dist/operator/main.js'], env }] },
            },
          },
        });
        await apps.createNamespacedDeployment({
          namespace: ns,
          body: operatorDeployment([
            { name: 'WAITGATE_WAIT_CHECK_TIMEOUT_MS', value: '4321' },
            { name: 'WAITGATE_WATCH_NAMESPACE', value: 'team-a' },
          ]),
        });
        // The shell says otherwise; the Deployment wins.
        const r = await waitgate(['check', 'go', 'acme/web#7', '--waitgate-namespace', ns], { WAITGATE_WAIT_CHECK_TIMEOUT_MS: '9999' });
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(
          new RegExp(`^settings: from Deployment ${ns}/waitgate-operator\ncheck go on acme/web#7 .*timeout 4321 ms\\)`),
        );
        // doctor -n: HeldJobs outside the watched namespace are never seen.
        const d = await waitgate(['doctor', '--waitgate-namespace', ns, '-n', 'team-b']);
        expect(d.stdout).toContain(`settings from Deployment ${ns}/waitgate-operator`);
        expect(d.stdout).toMatch(/^FAIL {2}watch: HeldJobs in team-b are never seen: the operator watches team-a only/m);
        // A setting of the Deployment that does not parse is refused, naming the variable and where it came from.
        await apps.replaceNamespacedDeployment({
          name: 'waitgate-operator',
          namespace: ns,
          body: operatorDeployment([{ name: 'WAITGATE_WAIT_CHECK_TIMEOUT_MS', value: 'ten' }]),
        });
        const bad = await waitgate(['check', 'go', 'acme/web#7', '--waitgate-namespace', ns]);
        expect(bad.code).toBe(2);
        expect(bad.stderr).toMatch(
          new RegExp(`WAITGATE_WAIT_CHECK_TIMEOUT_MS \\(from Deployment ${ns}/waitgate-operator\\): must be a whole number`),
        );
      } finally {
        await kube.deleteNamespace(ns);
      }
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'an undeclared profile, or a target that is not id-only, exits 2',
    async () => {
      const ns = await checkNamespace();
      const r = await waitgate(['check', 'jira', 'acme/web#7', '--waitgate-namespace', ns]);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toMatch(
        /profile jira is not declared in .*\/waitgate-profiles \(declared: .*greptrap.*\)\. A HeldJob naming it would be refused wait-profile-unknown/,
      );
      const bad = await waitgate(['check', 'go', 'Fix the login page', '--waitgate-namespace', ns]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/not an id-only target/);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'no profiles ConfigMap at all: exit 1, saying that holds naming a profile pause, not that they are refused',
    () =>
      withNamespace('cli-check-nocm', async (ns) => {
        const r = await waitgate(['check', 'jira', 'acme/web#7', '--waitgate-namespace', ns]);
        expect(r).toMatchObject({ code: 1, stdout: '' });
        expect(r.stderr).toMatch(
          new RegExp(
            `there is no ConfigMap ${ns}/waitgate-profiles.*a HeldJob naming a profile pauses \\(Waiting reason ProfilesUnreadable\\) until the ConfigMap is created, and is not refused`,
          ),
        );
        expect(r.stderr).not.toMatch(/wait-profile-unknown/);
      }),
    Timeouts.testMs,
  );
});

describe('waitgate doctor', () => {
  const job = { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } };
  const trigger = (name: string, waitFor: object[]) => ({
    name,
    on: { type: 'label', any: ['waitgate:go'] },
    run: { kind: 'github', flow: 'deploy', job, waitFor },
  });
  const triggers = (...entries: object[]) => ({ 'triggers.json': JSON.stringify(entries) });
  const profiles = () => profilesConfigMap({ jira: fixtureScript('exit-3.sh'), ci: fixtureScript('exit-0.sh') });
  const lines = (r: Run, level: string) => r.stdout.split('\n').filter((l) => l.startsWith(`${level} `));

  test.concurrent(
    'a healthy namespace: every check ok, an unused profile only warns, exit 0; capacity and editors printed',
    () =>
      withNamespace(
        'cli-doctor-ok',
        async (ns) => {
          const r = await waitgate(['doctor', '--waitgate-namespace', ns]);
          expect(lines(r, 'FAIL')).toEqual([]);
          expect(r.code).toBe(0);
          expect(lines(r, 'ok').map((l) => l.split(':')[0])).toEqual([
            'ok    settings',
            'ok    profiles',
            'ok    triggers',
            'ok    checks',
            'ok    secrets',
            // The HeldJob's CRD, then the OnceRecord's.
            'ok    crd',
            'ok    crd',
            'ok    valkey',
            'ok    rbac',
          ]);
          expect(lines(r, 'ok').filter((l) => l.startsWith('ok    crd'))).toEqual([
            "ok    crd: heldjobs.waitgate.dev matches this waitgate's schema",
            "ok    crd: oncerecords.waitgate.dev matches this waitgate's schema",
          ]);
          // The tests' Valkey asks no password (loopback, so plain text is not warned about).
          expect(lines(r, 'WARN')).toEqual([
            'WARN  profiles: profile ci is declared but no trigger names it',
            expect.stringMatching(/^WARN {2}valkey-exposure: redis:\/\/127\.0\.0\.1:\d+ is used with no password/),
            // The operator runs here as a host process, with none of the chart's admission policies.
            expect.stringMatching(/^WARN {2}protection: no operator-jobs admission policy is bound/),
            expect.stringMatching(/^WARN {2}protection: no heldjob-approval admission policy is bound/),
          ]);
          expect(r.stdout).toMatch(/about 6 while they check every 1m/);
          expect(r.stdout).toMatch(/about 90 once backed off to every 15m/);
          expect(r.stdout).toMatch(/gives up \(wait-expired\) at its 96th check, 19h43m after the first/);
          // The fleet-wide Job cap, off unless set, and a hold naming several profiles.
          expect(r.stdout).toMatch(/^ {2}Jobs: no fleet-wide cap on running Jobs \(WAITGATE_CONCURRENCY unset or 0\)/m);
          expect(r.stdout).toMatch(/every round asks them all\): 9h47m with 2, 6h28m with 3, 4h49m with 4 profiles/);
          expect(r.stdout).toMatch(new RegExp(`who can edit ${ns}/waitgate-profiles, and so run code as the operator`));
          expect(r.stdout).toMatch(/^ {2}Group system:masters {2}\(ClusterRoleBinding cluster-admin → ClusterRole cluster-admin\)$/m);
          expect(r.stdout).toMatch(/^0 failures, 4 warnings$/m);

          const json = await waitgate(['doctor', '--waitgate-namespace', ns, '-o', 'json']);
          const report = JSON.parse(json.stdout) as {
            ok: boolean;
            failures: number;
            capacity: Record<string, unknown>;
            profileEditors: { subject: string }[];
          };
          expect(json.code).toBe(0);
          expect(report).toMatchObject({ ok: true, failures: 0, capacity: { slots: 1, holdsPerSlotFirst: 6, holdsPerSlotBackedOff: 90 } });
          expect(report.profileEditors.map((e) => e.subject)).toContain('Group system:masters');
        },
        { 'waitgate-profiles': profiles(), 'waitgate-triggers': triggers(trigger('deploy', [{ profile: 'jira' }])) },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'exec-mode profiles next to an operator Deployment that mounts a token: a warning that recommends pod mode; with the token off, one that still names the environment',
    () =>
      withNamespace(
        'cli-doctor-token',
        async (ns) => {
          const apps = kube.kc.makeApiClient(k8s.AppsV1Api);
          const labels = { 'app.kubernetes.io/component': 'operator' };
          // As the chart renders it: tini, then the operator; the token mounted for the apiserver.
          const operator = (automountServiceAccountToken: boolean): k8s.V1Deployment => ({
            metadata: { name: 'waitgate-operator', namespace: ns },
            spec: {
              replicas: 0,
              selector: { matchLabels: labels },
              template: {
                metadata: { labels },
                spec: {
                  automountServiceAccountToken,
                  containers: [
                    {
                      name: 'operator',
                      image: 'waitgate',
                      command: ['/usr/bin/tini', '--', 'node', 'dist/operator/main.js'],
                      // doctor reads the installed operator's settings from here.
                      env: [{ name: 'VALKEY_URL', value: requireEnv('VALKEY_URL') }],
                    },
                  ],
                },
              },
            },
          });
          await apps.createNamespacedDeployment({ namespace: ns, body: operator(true) });
          const r = await waitgate(['doctor', '--waitgate-namespace', ns]);
          expect(r.code).toBe(0);
          expect(lines(r, 'WARN').filter((l) => l.startsWith('WARN  checks:'))).toEqual([
            expect.stringMatching(
              new RegExp(
                `^WARN {2}checks: exec-mode profiles \\(ci, jira\\) run as the operator's user inside Deployment ${ns}/waitgate-operator, which mounts a service-account token: .*/var/run/secrets/kubernetes\\.io/serviceaccount/token.*/proc/<its pid>/environ \\(VALKEY_URL\\).*"mode": "pod"`,
              ),
            ),
          ]);

          await apps.replaceNamespacedDeployment({ name: 'waitgate-operator', namespace: ns, body: operator(false) });
          const off = await waitgate(['doctor', '--waitgate-namespace', ns]);
          // No token, but VALKEY_URL is still in the operator's environment, which a script reads from /proc.
          expect(lines(off, 'WARN').filter((l) => l.startsWith('WARN  checks:'))).toEqual([
            expect.stringMatching(
              new RegExp(
                `^WARN {2}checks: exec-mode profiles \\(ci, jira\\) run as the operator's user inside Deployment ${ns}/waitgate-operator: it mounts no service-account token, but .*\\(VALKEY_URL\\).*"mode": "pod"`,
              ),
            ),
          ]);
        },
        { 'waitgate-profiles': profiles(), 'waitgate-triggers': triggers(trigger('deploy', [{ profile: 'jira' }, { profile: 'ci' }])) },
      ),
    Timeouts.testMs,
  );

  test.concurrent.each<[string, Record<string, Record<string, string>>, Record<string, string>, RegExp]>([
    [
      'profiles that are not JSON',
      { 'waitgate-profiles': { 'profiles.json': '{"jira": {"mode": "exec",' } },
      {},
      /^FAIL {2}profiles: .*profiles\.json is not valid JSON/m,
    ],
    [
      'a declared script that is missing',
      { 'waitgate-profiles': { 'profiles.json': JSON.stringify({ jira: { mode: 'exec', script: 'jira.sh' } }) } },
      {},
      /^FAIL {2}profiles: .*profile "jira": script "jira\.sh" is not a key/m,
    ],
    [
      'a trigger naming an undeclared profile',
      {
        'waitgate-profiles': profiles(),
        'waitgate-triggers': triggers(trigger('deploy', [{ profile: 'jira' }]), trigger('release', [{ profile: 'jria' }])),
      },
      {},
      /^FAIL {2}triggers: trigger release names profile jria, which .* does not declare: its HeldJobs would be refused wait-profile-unknown$/m,
    ],
    [
      'a triggers file that does not load',
      { 'waitgate-profiles': profiles(), 'waitgate-triggers': { 'triggers.json': '[{"name": ' } },
      {},
      /^FAIL {2}triggers: .*triggers-not-json/m,
    ],
    [
      'an after beyond the maximum',
      {
        'waitgate-profiles': profiles(),
        'waitgate-triggers': triggers(trigger('deploy', [{ profile: 'jira' }, { after: afterIn(40 * 24 * 60 * MIN).after }])),
      },
      {},
      /^FAIL {2}triggers: trigger deploy waits until after .* more than WAITGATE_WAIT_AFTER_MAX_MS \(30d\) ahead: .*wait-after-beyond-max$/m,
    ],
    [
      'Valkey at a closed port',
      { 'waitgate-profiles': profiles() },
      { VALKEY_URL: 'closed-port' },
      /^FAIL {2}valkey: redis:\/\/127\.0\.0\.1:\d+ does not answer PING: .*ECONNREFUSED/m,
    ],
    [
      'no profiles ConfigMap while a trigger names a profile: its holds pause, none is refused',
      { 'waitgate-triggers': triggers(trigger('deploy', [{ profile: 'jira' }])) },
      {},
      /^FAIL {2}profiles: there is no \S+\/waitgate-profiles, but triggers name profile jira: their holds pause \(Waiting reason ProfilesUnreadable\) and no check runs until it is created; none is refused$/m,
    ],
    [
      'a setting that does not parse',
      { 'waitgate-profiles': profiles() },
      { WAITGATE_WAIT_MAX_MS: 'a day' },
      /^FAIL {2}settings: WAITGATE_WAIT_MAX_MS: must be a whole number/m,
    ],
  ])(
    'a hard failure: %s, exit 1',
    (label, configMaps, env, failure) =>
      withNamespace(
        'cli-doctor-fail',
        async (ns) => {
          const extra = { ...env };
          if (extra['VALKEY_URL'] === 'closed-port') extra['VALKEY_URL'] = `redis://127.0.0.1:${await closedPort()}`;
          const r = await waitgate(['doctor', '--waitgate-namespace', ns], extra);
          expect({ label, code: r.code }).toEqual({ label, code: 1 });
          expect(r.stdout).toMatch(failure);
          expect(r.stdout).toMatch(/^[1-9]\d* failures?, \d+ warnings?$/m);
        },
        configMaps,
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    "Valkey at a name of the cluster's DNS, from outside the cluster: a warning that it was not checked, not a failure; inside a Pod, a failure",
    () =>
      withNamespace(
        'cli-doctor-svc',
        async (ns) => {
          const url = 'redis://valkey.waitgate-system.svc:6379';
          const r = await waitgate(['doctor', '--waitgate-namespace', ns], { VALKEY_URL: url });
          expect(r.stdout).toMatch(
            /^WARN {2}valkey: redis:\/\/valkey\.waitgate-system\.svc:6379 not checked: valkey\.waitgate-system\.svc is a name of the cluster's DNS, which does not resolve here \((ENOTFOUND|EAI_AGAIN)\)\. .*`helm test` runs doctor there/m,
          );
          expect(r.stdout).not.toMatch(/^FAIL {2}valkey/m);
          expect(r.code).toBe(0);
          // Where the cluster's names resolve (a Pod), not answering is a failure again.
          const inPod = await waitgate(['doctor', '--waitgate-namespace', ns], { VALKEY_URL: url, KUBERNETES_SERVICE_HOST: '10.0.0.1' });
          expect(inPod.stdout).toMatch(/^FAIL {2}valkey: redis:\/\/valkey\.waitgate-system\.svc:6379 does not answer PING/m);
          expect(inPod.code).toBe(1);
        },
        { 'waitgate-profiles': profiles(), 'waitgate-triggers': triggers(trigger('deploy', [{ profile: 'jira' }, { profile: 'ci' }])) },
      ),
    Timeouts.testMs,
  );
});

/** True when no process has this pid any more, or only its zombie (killed, not yet reaped). */
function processGone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
