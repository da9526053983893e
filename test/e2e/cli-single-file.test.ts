// The command line as one file (make cli: a Node single executable application), run where no
// node is on PATH, against the real apiserver: --version, held in each -o form, describe, a
// missing name, and version. The executable is built once and cached by its inputs' hash
// outside the clone (hack/build-cli.sh), so a second run costs a copy.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { API_GROUP, API_VERSION, HELDJOB_KIND, HELDJOB_PLURAL, Phase } from '../../api/vocabulary.js';
import { VERSION } from '../../lib/version.js';
import { afterIn, heldJob } from '../support/builders.js';
import { kubeconfigPath, ROOT } from '../support/env.js';
import { TestKube } from '../support/kube.js';
import { Timeouts } from '../support/timeouts.js';

const BUILD_MS = 10 * 60_000;
const kube = new TestKube();
const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
let exe = '';
let ns = '';
/** A PATH with nothing on it, a HOME of its own: as `env -i PATH=... HOME=...` would give. */
const bare = mkdtempSync(join(tmpdir(), 'waitgate-bare-'));
const ENV = { PATH: join(bare, 'bin'), HOME: bare, KUBECONFIG: kubeconfigPath() };

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(exe, args, { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  const built = spawnSync(join(ROOT, 'hack', 'build-cli.sh'), [], {
    cwd: ROOT,
    env: { ...process.env, WAITGATE_CLI_DIR: mkdtempSync(join(tmpdir(), 'waitgate-cli-')) },
    encoding: 'utf8',
    timeout: BUILD_MS,
  });
  if (built.status !== 0) throw new Error(`hack/build-cli.sh failed: ${built.stderr}`);
  exe = built.stdout.trim().split('\n').pop() as string;
  ns = await kube.createNamespace('cli-sea');
  await kube.createHeldJob(ns, heldJob({ name: 'web-7', target: 'acme/web#7', waitFor: [{ after: afterIn(24 * 3_600_000).after }] }));
  await kube.custom.patchNamespacedCustomObjectStatus(
    {
      group: API_GROUP,
      version: API_VERSION,
      plural: HELDJOB_PLURAL,
      namespace: ns,
      name: 'web-7',
      body: {
        status: {
          phase: Phase.Held,
          waitLabel: 'after (a day ahead)',
          heldSince: new Date(Date.now() - 3 * 60_000).toISOString(),
          nextCheckAt: new Date(Date.now() + 10 * 60_000).toISOString(),
          checks: 2,
          faults: 0,
          waits: [{ condition: 'after', state: 'waiting', detail: 'releases tomorrow' }],
        },
      },
    },
    merge,
  );
  const hj = (await kube.custom.getNamespacedCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    plural: HELDJOB_PLURAL,
    namespace: ns,
    name: 'web-7',
  })) as {
    metadata: { uid: string };
  };
  await kube.core.createNamespacedEvent({
    namespace: ns,
    body: {
      metadata: { name: 'web-7.held', namespace: ns },
      involvedObject: { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: HELDJOB_KIND, name: 'web-7', namespace: ns, uid: hj.metadata.uid },
      reason: 'Held',
      message: 'held until its conditions clear',
      type: 'Normal',
      count: 1,
      lastTimestamp: new Date(),
      firstTimestamp: new Date(),
    },
  });
}, BUILD_MS);

afterAll(async () => {
  if (ns) await kube.deleteNamespace(ns);
});

describe('kubectl-waitgate as one file, no node on PATH', () => {
  test('there is no node on that PATH', () => {
    expect(spawnSync('/bin/sh', ['-c', 'command -v node'], { env: ENV }).status).not.toBe(0);
  });

  test(
    '--version and held (the panel)',
    async () => {
      expect(await run(['--version'])).toEqual({ code: 0, stdout: `waitgate ${VERSION}\n`, stderr: '' });
      const held = await run(['held', '-n', ns]);
      expect(held).toMatchObject({ code: 0, stderr: '' });
      expect(held.stdout.split('\n')).toEqual([
        'held · 1 waiting',
        expect.stringMatching(/^ {2}○ acme\/web#7 · after \(a day ahead\) · waited [34]m$/),
        '',
      ]);
    },
    Timeouts.testMs,
  );

  test(
    'held -o wide, name, yaml and json',
    async () => {
      const wide = await run(['held', '-n', ns, '-o', 'wide']);
      expect(wide.code).toBe(0);
      expect(wide.stdout.trimEnd().split('\n')).toEqual([
        expect.stringMatching(/^NAMESPACE +NAME +TARGET +STATE +WAITED +NEXT CHECK$/),
        expect.stringMatching(new RegExp(`^${ns} +web-7 +acme/web#7 +watching +[34]m +in (9|10)m$`)),
      ]);
      expect(await run(['held', '-n', ns, '-o', 'name'])).toEqual({ code: 0, stdout: 'heldjob.waitgate.dev/web-7\n', stderr: '' });
      const [yaml, json] = await Promise.all([run(['held', '-n', ns, '-o', 'yaml']), run(['held', '-n', ns, '-o', 'json'])]);
      const rows = JSON.parse(json.stdout) as { waitedSeconds: number }[];
      expect(rows).toEqual([expect.objectContaining({ namespace: ns, name: 'web-7', target: 'acme/web#7', state: 'watching' })]);
      const fromYaml = parse(yaml.stdout) as { waitedSeconds: number }[];
      // The same rows; waitedSeconds moves on between the two runs.
      expect(fromYaml.map((r) => ({ ...r, waitedSeconds: 0 }))).toEqual(rows.map((r) => ({ ...r, waitedSeconds: 0 })));
    },
    Timeouts.testMs,
  );

  test(
    'completion asks the cluster: HeldJob names for describe and cancel, namespaces for -n',
    async () => {
      for (const verb of ['describe', 'cancel']) {
        const c = await run(['__complete', verb, '-n', ns, '']);
        expect(c.code).toBe(0);
        expect(c.stdout.trimEnd().split('\n')).toEqual(['web-7', expect.stringMatching(/^:\d+$/)]);
      }
      const n = await run(['__complete', 'held', '-n', ns.slice(0, -2)]);
      expect(n.stdout.split('\n')).toContain(ns);
    },
    Timeouts.testMs,
  );

  test(
    'describe: waits, next check, counters, Events; a missing name is one line and exit 1',
    async () => {
      const d = await run(['describe', 'web-7', '-n', ns]);
      expect(d).toMatchObject({ code: 0, stderr: '' });
      const lines = d.stdout.split('\n');
      expect(lines).toEqual(
        expect.arrayContaining([
          'Name:        web-7',
          'Target:      acme/web#7',
          'Phase:       Held',
          expect.stringMatching(/^Next check: {2}\S+ \(in (9|10)m\)$/),
          'Counters:    checks 2 · faults 0',
          expect.stringMatching(/^ {2}after +waiting +releases tomorrow$/),
          expect.stringMatching(/^ {2}\d+s ago +Normal +Held +held until its conditions clear$/),
        ]),
      );
      expect(await run(['describe', 'nobody', '-n', ns])).toEqual({
        code: 1,
        stdout: '',
        stderr: `waitgate describe: no HeldJob nobody in ${ns}\n`,
      });
    },
    Timeouts.testMs,
  );

  test(
    'version -o json: the client, and the operator as the cluster records it (none in an empty namespace)',
    async () => {
      const v = await run(['version', '--waitgate-namespace', ns, '-o', 'json']);
      expect(v.code).toBe(0);
      expect(JSON.parse(v.stdout)).toEqual({
        client: { version: VERSION },
        operator: { namespace: ns, version: null, source: 'none', object: null, detail: null },
      });
    },
    Timeouts.testMs,
  );
});
