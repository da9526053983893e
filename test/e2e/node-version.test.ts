// The bins on a Node.js older than package.json's engines.node: `node bin/waitgate.js`,
// `kubectl waitgate` (the same file under the plugin's name, through the real kubectl) and the
// plugin's completer each print which Node.js they need and exit 1, instead of dying inside a
// dependency. These need a real older Node.js: the machine's own (Debian's /usr/bin/node is 20)
// or the one WAITGATE_TEST_OLD_NODE names. Where there is none, they are skipped, saying so in
// their names; cli/node-version.test.ts covers the comparison itself either way.
import { describe, expect, test } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { enginesNode, satisfiesRange } from '../../cli/node-version.js';
import { ROOT } from '../support/env.js';
import { Timeouts } from '../support/timeouts.js';

const RANGE = enginesNode(pathToFileURL(join(ROOT, 'package.json'))) ?? '(none)';

/** The version a node binary reports, or undefined when it does not run. */
function versionOf(node: string): string | undefined {
  try {
    return execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 }).trim();
  } catch {
    return undefined;
  }
}

/** The node binaries to try: WAITGATE_TEST_OLD_NODE, the usual places, and every node on PATH. */
function candidates(): string[] {
  const named = process.env['WAITGATE_TEST_OLD_NODE'];
  const onPath = (process.env['PATH'] ?? '').split(delimiter).map((d) => join(d, 'node'));
  const all = [...(named ? [named] : []), '/usr/bin/node', '/usr/local/bin/node', ...onPath].filter((p) => existsSync(p));
  return [...new Set(all.map((p) => realpathSync(p)))];
}

/** The first Node.js found that the engines range refuses. */
function findOlderNode(): { path: string; version: string } | undefined {
  for (const path of candidates()) {
    const version = versionOf(path);
    if (version !== undefined && satisfiesRange(version, RANGE) === false) return { path, version };
  }
  return undefined;
}

const older = findOlderNode();
const expectedLine = older && `waitgate: needs Node.js ${RANGE} (this is v${older.version}); install a newer Node.js`;

/** A folder with `node` (the older one) and the package's bins under their installed names. */
function olderNodeFirst(node: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'waitgate-old-node-'));
  symlinkSync(node, join(dir, 'node'));
  symlinkSync(join(ROOT, 'bin', 'waitgate.js'), join(dir, 'kubectl-waitgate'));
  symlinkSync(join(ROOT, 'bin', 'kubectl_complete-waitgate.js'), join(dir, 'kubectl_complete-waitgate'));
  return dir;
}

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(cmd: string, args: readonly string[], pathFirst: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    // Not jest's NODE_OPTIONS (--experimental-vm-modules): an older Node.js warns about it on stderr.
    const { NODE_OPTIONS: _jest, ...inherited } = process.env;
    const env = { ...inherited, PATH: [pathFirst, process.env['PATH'] ?? ''].join(delimiter) };
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), Timeouts.shortMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const where = older ? `Node.js v${older.version} (${older.path})` : '';
const skipped = `no Node.js older than ${RANGE} on this machine to run it on (tried ${candidates().join(', ') || 'none'}; WAITGATE_TEST_OLD_NODE names one)`;
const olderTest = older ? test : test.skip;

describe('the bins on an older Node.js', () => {
  olderTest(
    older ? `node bin/waitgate.js --version on ${where} says which Node.js it needs and exits 1` : `node bin/waitgate.js: ${skipped}`,
    async () => {
      const dir = olderNodeFirst((older as { path: string }).path);
      const r = await run(join(dir, 'node'), [join(ROOT, 'bin', 'waitgate.js'), '--version'], dir);
      expect(r).toEqual({ code: 1, stdout: '', stderr: `${expectedLine}\n` });
    },
    Timeouts.testMs,
  );

  olderTest(
    older ? `kubectl waitgate --version, with ${where} first on PATH, goes through the same check` : `kubectl waitgate: ${skipped}`,
    async () => {
      const dir = olderNodeFirst((older as { path: string }).path);
      const r = await run('kubectl', ['waitgate', '--version'], dir);
      expect(r).toEqual({ code: 1, stdout: '', stderr: `${expectedLine}\n` });
    },
    Timeouts.testMs,
  );

  olderTest(
    older ? `the plugin's completer on ${where} says the same and offers nothing` : `kubectl_complete-waitgate: ${skipped}`,
    async () => {
      const dir = olderNodeFirst((older as { path: string }).path);
      const r = await run(join(dir, 'kubectl_complete-waitgate'), ['h'], dir);
      expect(r).toEqual({ code: 1, stdout: '', stderr: `${expectedLine}\n` });
    },
    Timeouts.testMs,
  );

  test(
    'on the Node.js the tests run on, the same bins answer',
    async () => {
      const dir = olderNodeFirst(process.execPath);
      expect(await run(join(dir, 'node'), [join(ROOT, 'bin', 'waitgate.js'), '--version'], dir)).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(/^waitgate \S+\n$/),
        stderr: '',
      });
      expect(await run('kubectl', ['waitgate', '--version'], dir)).toMatchObject({ code: 0, stderr: '' });
      const completion = await run(join(dir, 'kubectl_complete-waitgate'), ['h'], dir);
      expect(completion.code).toBe(0);
      expect(completion.stdout.split('\n')).toContain('held');
    },
    Timeouts.testMs,
  );
});
