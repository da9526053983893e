// The packaging half of `make release` (hack/release-pack.sh) into a temporary folder: the chart
// archive and the npm tarball are made, and the versions inside them agree with package.json;
// hack/release-version.sh and hack/release-verify.sh refuse versions that disagree. Runs helm,
// npm and tar as processes (no cluster, no network); npm pack runs without its prepack build, so
// dist/ is packed as it is and never rewritten under tests that run from it.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

const ROOT = join(import.meta.dirname, '..');
const TOOLS = join(process.env['WAITGATE_CACHE'] ?? join(homedir(), '.cache', 'waitgate'), 'bin', 'active');
const ENV = { ...process.env, PATH: `${TOOLS}:${process.env['PATH'] ?? ''}`, WAITGATE_RELEASE_NO_BUILD: '1' };
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const SLOW_MS = 180_000;

function run(cmd: string, args: readonly string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { cwd: ROOT, env: ENV, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** One file of a .tgz, as text. */
function fromTarball(tgz: string, path: string): string {
  return execFileSync('tar', ['-xzOf', tgz, path], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function listTarball(tgz: string): string[] {
  return execFileSync('tar', ['-tzf', tgz], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .trim()
    .split('\n');
}

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'waitgate-release-'));
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('hack/release-pack.sh', () => {
  let packed: { code: number | null; stdout: string; stderr: string };
  let chart: string;
  let npm: string;
  beforeAll(() => {
    packed = run(join(ROOT, 'hack', 'release-pack.sh'), [join(work, 'out')]);
    [chart = '', npm = ''] = packed.stdout.trim().split('\n');
  }, SLOW_MS);

  test('makes the chart archive and the npm tarball and prints their paths', () => {
    expect({ code: packed.code, stderr: packed.code === 0 ? '' : packed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(chart).toBe(join(work, 'out', 'chart', `waitgate-${VERSION}.tgz`));
    expect(npm).toBe(join(work, 'out', 'npm', `waitgate-${VERSION}.tgz`));
    expect(existsSync(chart) && existsSync(npm)).toBe(true);
  });

  test("the chart's version and appVersion, inside the archive, are package.json's version", () => {
    const meta = parse(fromTarball(chart, 'waitgate/Chart.yaml')) as { name: string; version: string; appVersion: string };
    expect(meta).toMatchObject({ name: 'waitgate', version: VERSION, appVersion: VERSION });
  });

  test("the npm tarball's package.json has that version, and the commands it installs", () => {
    const pkg = JSON.parse(fromTarball(npm, 'package/package.json')) as { version: string; private?: boolean; bin: Record<string, string> };
    expect(pkg.version).toBe(VERSION);
    expect(pkg.private).toBeUndefined();
    const files = listTarball(npm);
    for (const bin of Object.values(pkg.bin)) expect(files).toContain(`package/${bin}`);
    expect(files).toContain('package/crds/waitgate.dev_heldjobs.yaml');
    expect(files).toContain('package/crds/waitgate.dev_oncerecords.yaml');
    // Built output is packed when there is any (`make release` builds first; a unit run may not have).
    if (existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) expect(files).toContain('package/dist/cli/main.js');
  });

  test('the chart archive carries the helm test hook and no test or development files', () => {
    const files = listTarball(chart);
    expect(files).toContain('waitgate/templates/tests/doctor.yaml');
    expect(files).toContain('waitgate/values.schema.json');
    expect(files.filter((f) => /\.test\.|node_modules|\.cluster/.test(f))).toEqual([]);
  });

  test('hack/release-verify.sh refuses a chart packed at another version, naming it', () => {
    const other = join(work, 'other');
    mkdirSync(other);
    const r = run('helm', [
      'package',
      join(ROOT, 'charts', 'waitgate'),
      '--version',
      '9.9.9',
      '--app-version',
      '9.9.8',
      '--destination',
      other,
    ]);
    expect(r.code).toBe(0);
    const bad = join(other, 'waitgate-9.9.9.tgz');
    const verify = run(join(ROOT, 'hack', 'release-verify.sh'), [VERSION, bad, npm]);
    expect(verify.code).toBe(1);
    expect(verify.stderr).toContain(`${bad}: Chart.yaml version 9.9.9, not ${VERSION}`);
    expect(verify.stderr).toContain(`${bad}: Chart.yaml appVersion 9.9.8, not ${VERSION}`);
    expect(verify.stderr).not.toContain('package.json');
    // And the good pair passes.
    expect(run(join(ROOT, 'hack', 'release-verify.sh'), [VERSION, chart, npm]).code).toBe(0);
  });
});

describe('hack/release-version.sh', () => {
  /** A copy of package.json and Chart.yaml with the given versions. */
  function tree(label: string, [pkgVersion, chartVersion, appVersion]: readonly [string, string, string]): string {
    const dir = join(work, label);
    mkdirSync(join(dir, 'charts', 'waitgate'), { recursive: true });
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...pkg, version: pkgVersion }));
    cpSync(join(ROOT, 'charts', 'waitgate', 'Chart.yaml'), join(dir, 'charts', 'waitgate', 'Chart.yaml'));
    const chartYaml = readFileSync(join(dir, 'charts', 'waitgate', 'Chart.yaml'), 'utf8')
      .replace(/^version: .*$/m, `version: ${chartVersion}`)
      .replace(/^appVersion: .*$/m, `appVersion: "${appVersion}"`);
    writeFileSync(join(dir, 'charts', 'waitgate', 'Chart.yaml'), chartYaml);
    return dir;
  }

  test.each([
    ['the clone as it is', undefined, 0, `${VERSION}\n`, ''],
    ['all three equal', ['1.2.3', '1.2.3', '1.2.3'], 0, '1.2.3\n', ''],
    ["the chart's version behind", ['1.2.3', '1.2.2', '1.2.3'], 1, '', 'Chart.yaml version 1.2.2'],
    ['appVersion behind', ['1.2.3', '1.2.3', '1.2.2'], 1, '', 'appVersion 1.2.2'],
    ['package.json behind', ['1.2.2', '1.2.3', '1.2.3'], 1, '', 'package.json 1.2.2'],
  ] as const)('%s', (label, versions, code, stdout, stderr) => {
    const root = versions ? tree(label.replace(/\W+/g, '-'), versions) : ROOT;
    const r = run(join(ROOT, 'hack', 'release-version.sh'), [root]);
    expect(r.code).toBe(code);
    expect(r.stdout).toBe(stdout);
    expect(r.stderr).toContain(stderr);
  });
});

describe('the install commands follow the release', () => {
  const values = parse(readFileSync(join(ROOT, 'charts', 'waitgate', 'values.yaml'), 'utf8')) as { image: { repository: string } };
  // ghcr.io/<owner>/waitgate: the owner the release workflow pushes under for the project's own repository.
  const owner = /^ghcr\.io\/([^/]+)\/waitgate$/.exec(values.image.repository)?.[1];
  const workflow = readFileSync(join(ROOT, '.github', 'workflows', 'release.yml'), 'utf8');

  test("the chart's image and the workflow's pushes name one registry owner", () => {
    expect(owner).toBeDefined();
    expect(workflow).toContain('oci://ghcr.io/${{ needs.version.outputs.owner }}/charts');
    expect(workflow).toContain('IMAGE: ghcr.io/${{ needs.version.outputs.owner }}/waitgate');
  });

  // The project's README installs from a clone (nothing is published until a tag is), and names
  // the registry only as what a release tag publishes; the chart's own README travels with the
  // published chart, so it installs that version from the registry.
  test('README.md installs from the clone and names what a release tag publishes, under that owner', () => {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const installs = [...text.matchAll(/helm (?:install|upgrade) waitgate (\S+)/g)].map((m) => m[1]);
    expect(installs.length).toBeGreaterThan(0);
    expect(installs.filter((ref) => ref !== './charts/waitgate')).toEqual([]);
    expect(text).toContain(`oci://ghcr.io/${owner ?? '?'}/charts/waitgate --version X.Y.Z`);
    expect(text).toContain(`ghcr.io/${owner ?? '?'}/waitgate:X.Y.Z`);
    expect(text).not.toMatch(/npm install -g waitgate\b/);
  });

  test.each([[join('charts', 'waitgate', 'README.md')]])('%s installs this version from that registry', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const installs = [...text.matchAll(/helm (?:install|upgrade) waitgate (oci:\/\/\S+) --version (\S+)/g)].map((m) => [m[1], m[2]]);
    expect(installs.length).toBeGreaterThan(0);
    for (const [ref, version] of installs) {
      expect(ref).toBe(`oci://ghcr.io/${owner ?? '?'}/charts/waitgate`);
      if (version !== 'NEW') expect(version).toBe(VERSION);
    }
  });
});
