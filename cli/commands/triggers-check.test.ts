import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliIo } from '../io.js';
import { runTriggersCheck } from './triggers-check.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'waitgate-triggers-check-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Writes `content` to a temp file and runs the command on it. */
async function checkFile(name: string, content: string) {
  const path = join(dir, name);
  writeFileSync(path, content);
  return { path, ...(await runOn([path])) };
}

async function runOn(args: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const io: CliIo = {
    stdout: (line) => void stdout.push(line),
    stderr: (line) => void stderr.push(line),
    readFile: (p) => readFile(p, 'utf8'),
    env: {},
    now: () => Date.now(),
  };
  const code = await runTriggersCheck(args, io);
  return { code, stdout, stderr };
}

const job = { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } };
const entry = (name: string, run: Record<string, unknown> = {}) => ({
  name,
  on: { type: 'label', any: ['waitgate:go'], repositories: ['acme/web'] },
  run: { kind: 'github', flow: 'deploy', job, ...run },
});
const json = (v: unknown) => JSON.stringify(v, null, 2);
const indent = (text: string, by: string) =>
  text
    .split('\n')
    .map((l) => `${by}${l}`)
    .join('\n');
const configMapYaml = (name: string, triggersJson: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: waitgate-system\ndata:\n  triggers.json: |\n${indent(triggersJson, '    ')}\n`;

describe('waitgate triggers check', () => {
  test.each([
    ['no triggers', [], '0 triggers loaded'],
    ['one trigger', [entry('deploy', { waitFor: [{ after: '2026-09-01T09:00:00+02:00' }] })], '1 trigger loaded'],
    ['three triggers', [entry('a'), entry('b', { waitFor: [{ profile: 'jira' }] }), entry('c')], '3 triggers loaded'],
  ])('a valid file with %s exits 0', async (_d, entries, line) => {
    const r = await checkFile('ok.json', json(entries));
    expect(r).toMatchObject({ code: 0, stdout: [line], stderr: [] });
  });

  test('-o json: what loaded, or every refusal as data, with the same exit status', async () => {
    const { path } = await checkFile('ok-json.json', json([entry('deploy', {})]));
    const ok = await runOn([path, '-o', 'json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout.join('\n'))).toEqual({ ok: true, loaded: 1, triggers: ['deploy'], warnings: [] });
    const refused = await checkFile('bad-json.json', json([entry('deploy', { waitFor: [{ after: '2026-09-01T09:00:00' }] })]));
    const bad = await runOn(['-o', 'json', refused.path]);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout.join('\n'))).toEqual({
      ok: false,
      refusals: [expect.objectContaining({ where: 'deploy', path: '$[0].run.waitFor[0].after', code: 'waitfor-after-zoneless' })],
    });
  });

  test('a trigger without on.repositories loads, with a warning on stderr that names it (exit 0)', async () => {
    const open = (name: string) => ({ ...entry(name), on: { type: 'label', any: ['waitgate:go'] } });
    const r = await checkFile('open.json', json([open('deploy'), entry('narrow'), open('fix now')]));
    expect(r.code).toBe(0);
    expect(r.stdout).toEqual(['3 triggers loaded']);
    expect(r.stderr.map((l) => l.replace(/(: [a-z-]+): .*$/, '$1'))).toEqual([
      'warning: deploy $[0].on: trigger-every-repository',
      'warning: "fix now" $[2].on: trigger-every-repository',
    ]);
    expect(r.stderr[0]).toMatch(/no on\.repositories.*organisation hook or a GitHub App.*"repositories": \["acme\/web"\]$/);
    const asJson = await runOn([r.path, '-o', 'json']);
    expect(asJson.code).toBe(0);
    expect(asJson.stderr).toEqual([]);
    expect(JSON.parse(asJson.stdout.join('\n'))).toMatchObject({
      ok: true,
      loaded: 3,
      warnings: [
        { where: 'deploy', path: '$[0].on', code: 'trigger-every-repository', message: expect.stringMatching(/GitHub App/) },
        { where: 'fix now', path: '$[2].on', code: 'trigger-every-repository' },
      ],
    });
  });

  test('on.repos is refused as on-unknown-key, naming repositories', async () => {
    const r = await checkFile('repos.json', json([{ ...entry('deploy'), on: { type: 'label', any: ['x'], repos: ['acme/web'] } }]));
    expect(r.code).toBe(2);
    expect(r.stdout).toEqual([
      expect.stringMatching(/^deploy \$\[0\]\.on\.repos: on-unknown-key: on has no key "repos"; did you mean "repositories"\?/),
    ]);
  });

  test('a refused file exits 2 with one line per refusal, in order', async () => {
    const r = await checkFile(
      'bad.json',
      json([
        entry('deploy', { waitFor: [{ after: '2026-09-01T09:00:00' }, { exclusive: true }] }),
        { on: { type: 'label', any: ['x'] }, run: { kind: 'github', flow: 'f', job, wait_for: [] } },
      ]),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toEqual([]);
    expect(r.stdout.map((l) => l.replace(/(: [a-z-]+): .*$/, '$1'))).toEqual([
      'deploy $[0].run.waitFor[0].after: waitfor-after-zoneless',
      'deploy $[0].run.waitFor[1].exclusive: waitfor-exclusive',
      '#1 $[1].name: trigger-shape',
      '#1 $[1].run.wait_for: waitfor-misspelled',
    ]);
    expect(r.stdout[0]).toMatch(/^deploy \$\[0\]\.run\.waitFor\[0\]\.after: waitfor-after-zoneless: .*zone/);
  });

  test('a cron trigger is reported as trigger-cron (and waitfor-on-cron beside a wait), never as loaded', async () => {
    const cron = (name: string, run: Record<string, unknown> = {}) => ({
      ...entry(name, run),
      on: { type: 'cron', schedule: '0 3 * * *' },
    });
    const r = await checkFile('cron.json', json([cron('nightly'), cron('nightly-held', { waitFor: [{ profile: 'jira' }] })]));
    expect(r.code).toBe(2);
    expect(r.stdout.map((l) => l.replace(/(: [a-z-]+): .*$/, '$1'))).toEqual([
      'nightly $[0].on.type: trigger-cron',
      'nightly-held $[1].on.type: trigger-cron',
      'nightly-held $[1].on.type: waitfor-on-cron',
    ]);
    expect(r.stdout[0]).toMatch(/forge events.*CronJob/);
  });

  test('a name that would break the columns is quoted', async () => {
    const r = await checkFile('spaced.json', json([entry('deploy now', { waitFor: [] })]));
    expect(r.stdout).toEqual([expect.stringMatching(/^"deploy now" \$\[0\]\.run\.waitFor: waitfor-count: /)]);
  });

  test('text that is not JSON is refused as triggers-not-json', async () => {
    const r = await checkFile('broken.json', '[{"name": "deploy",');
    expect(r.code).toBe(2);
    expect(r.stdout).toEqual([expect.stringMatching(/^\(file\) \$: triggers-not-json: /)]);
  });

  test('a JSON object is refused as triggers-not-array', async () => {
    const r = await checkFile('object.json', json({ triggers: [] }));
    expect(r.code).toBe(2);
    expect(r.stdout).toEqual([expect.stringMatching(/^\(file\) \$: triggers-not-array: /)]);
  });

  test('the example ConfigMap in examples/ loads', async () => {
    const r = await runOn([fileURLToPath(new URL('../../examples/triggers-configmap.yaml', import.meta.url))]);
    expect(r).toEqual({ code: 0, stdout: ['1 trigger loaded'], stderr: [] });
  });

  test('a ConfigMap manifest in YAML is checked by its triggers.json key', async () => {
    const ok = await checkFile('cm.yaml', configMapYaml('waitgate-triggers', json([entry('a'), entry('b')])));
    expect(ok).toMatchObject({ code: 0, stdout: ['2 triggers loaded'] });
    const bad = await checkFile('cm-bad.yaml', configMapYaml('waitgate-triggers', json([entry('a', { waitfor: [{ profile: 'jira' }] })])));
    expect(bad).toMatchObject({ code: 2, stdout: [expect.stringMatching(/^a \$\[0\]\.run\.waitfor: waitfor-misspelled: /)] });
  });

  test('a ConfigMap among other resources, and a ConfigMap written as JSON, are found', async () => {
    const other = 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: waitgate\n';
    const profiles = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: waitgate-profiles\ndata:\n  profiles.json: "{}"\n';
    const multi = await checkFile('all.yaml', `${other}---\n${profiles}---\n${configMapYaml('waitgate-triggers', json([entry('a')]))}`);
    expect(multi).toMatchObject({ code: 0, stdout: ['1 trigger loaded'] });
    const asJson = await checkFile(
      'cm.json',
      json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 't' }, data: { 'triggers.json': json([entry('a'), entry('b')]) } }),
    );
    expect(asJson).toMatchObject({ code: 0, stdout: ['2 triggers loaded'] });
    const list = await checkFile(
      'list.json',
      json({ apiVersion: 'v1', kind: 'List', items: [JSON.parse(readFileSync(asJson.path, 'utf8'))] }),
    );
    expect(list).toMatchObject({ code: 0, stdout: ['2 triggers loaded'] });
  });

  test.each([
    [
      'a ConfigMap without the key',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\ndata:\n  profiles.json: "{}"\n',
      /no ConfigMap in it \(other\) has a data key triggers\.json/,
    ],
    [
      'a key holding YAML structure, not text',
      'kind: ConfigMap\nmetadata:\n  name: t\ndata:\n  triggers.json:\n    - name: a\n',
      /must be text/,
    ],
    [
      'two ConfigMaps with the key',
      `${configMapYaml('one', '[]')}---\n${configMapYaml('two', '[]')}`,
      /2 ConfigMaps .*waitgate-system\/one, waitgate-system\/two/,
    ],
    ['broken YAML', 'kind: ConfigMap\ndata: [unclosed\n', /is not valid YAML/],
  ])('%s exits 2 with a message on stderr', async (_d, content, message) => {
    const r = await checkFile('manifest.yaml', content);
    expect(r.code).toBe(2);
    expect(r.stdout).toEqual([]);
    expect(r.stderr).toEqual([expect.stringMatching(message)]);
  });

  test('triggers written as YAML are refused, with a note saying why', async () => {
    const r = await checkFile('triggers.yaml', '- name: deploy\n  on: { type: label, any: [x] }\n');
    expect(r.code).toBe(2);
    expect(r.stdout).toEqual([expect.stringMatching(/triggers-not-json/)]);
    expect(r.stderr).toEqual([expect.stringMatching(/a triggers file is JSON/)]);
  });

  test.each([
    ['a file that does not exist', () => join(dir, 'missing.json'), /cannot read .*missing\.json: .*ENOENT/],
    ['a directory', () => dir, /cannot read .*EISDIR/],
  ])('%s exits 2 with a clear message', async (_d, path, message) => {
    const r = await runOn([path()]);
    expect(r).toEqual({ code: 2, stdout: [], stderr: [expect.stringMatching(message)] });
  });

  test.each([
    [[], 'give a FILE'],
    [['a.json', 'b.json'], 'unexpected argument b.json'],
    [['--frobnicate'], 'unknown flag --frobnicate'],
    [['a.json', '-o', 'yaml'], '-o yaml: the output formats are text (the default) and json'],
  ])('arguments %j are a usage error: %s', async (args, problem) => {
    const r = await runOn(args);
    expect(r).toEqual({
      code: 2,
      stdout: [],
      stderr: [`waitgate triggers check: ${problem}`, 'Usage: waitgate triggers check FILE [-o json]'],
    });
  });

  test('--help explains the command and exits 0', async () => {
    const r = await runOn(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout.join('\n')).toMatch(/^Usage: waitgate triggers check FILE \[-o json\]\n[\s\S]*ConfigMap/);
  });
});
