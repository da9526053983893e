// The chart installs and upgrades the HeldJob CRD (templates/, crds.enabled, crds.keep): over a
// CRD applied by hand from crds/, and from the chart of 0.1.0, whose CRD sat in crds/ where Helm
// never upgrades it, `helm upgrade` brings the changed CRD; uninstall keeps it. And the
// aggregated ClusterRoles give a namespace's view and edit users their HeldJobs and OnceRecords.
//
// The CRD is the cluster's own and every other test uses it, so the steps that own it run one
// after another inside one test, change nothing but a printer column's name, and hand the CRD
// back as they found it (no Helm ownership) at the end.
import { describe, expect, test } from '@jest/globals';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterIn, heldJob } from '../support/builders.js';
import { baseValues, canI, CHART_DIR, helm, kubectl, mustRun, RELEASE, valuesFile, withChart } from '../support/chart.js';
import { ROOT, requireEnv } from '../support/env.js';
import { TestKube } from '../support/kube.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const CRD = 'heldjobs.waitgate.dev';
/** The chart owns this one too (templates/crd-oncerecords.yaml), beside the HeldJob's. */
const ONCE_RECORD_CRD = 'oncerecords.waitgate.dev';
const OLD_CHART = join(ROOT, 'test', 'fixtures', 'charts', 'waitgate-0.1.0.tgz');
const HELM_OWNERSHIP = {
  annotations: ['meta.helm.sh/release-name', 'meta.helm.sh/release-namespace', 'helm.sh/resource-policy'],
  labels: [
    'app.kubernetes.io/managed-by',
    'app.kubernetes.io/name',
    'app.kubernetes.io/instance',
    'app.kubernetes.io/version',
    'app.kubernetes.io/part-of',
    'helm.sh/chart',
  ],
};

interface CrdObject {
  metadata: { annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: { versions: { additionalPrinterColumns?: { name: string }[] }[] };
}

async function readCrd(): Promise<CrdObject> {
  const r = await mustRun('kubectl', ['--kubeconfig', requireEnv('KUBECONFIG'), 'get', 'crd', CRD, '-o', 'json']);
  return JSON.parse(r.stdout) as CrdObject;
}

const columns = (crd: CrdObject) => (crd.spec.versions[0]?.additionalPrinterColumns ?? []).map((c) => c.name);

/** The generated CRD with its wait-label column under the name 0.1.0 gave it: what an older install has. */
function olderCrd(): string {
  const text = readFileSync(join(ROOT, 'crds', 'waitgate.dev_heldjobs.yaml'), 'utf8');
  const older = text.replace('name: Waiting For', 'name: Conditions');
  expect(older).not.toBe(text);
  return older;
}

/** A copy of the chart whose CRD differs in one printer column's name: a later release. */
function nextChart(): string {
  const dir = mkdtempSync(join(tmpdir(), 'waitgate-next-chart-'));
  cpSync(CHART_DIR, dir, { recursive: true });
  const template = join(dir, 'templates', 'crd-heldjobs.yaml');
  const text = readFileSync(template, 'utf8');
  const changed = text.replace('name: Waiting For', 'name: Waiting For (next)');
  expect(changed).not.toBe(text);
  writeFileSync(template, changed);
  return dir;
}

/** Hands the CRDs back as cluster-up leaves them: the generated spec, no Helm ownership. */
async function restoreCrd(): Promise<void> {
  for (const crd of [CRD, ONCE_RECORD_CRD]) {
    await kubectl(['annotate', 'crd', crd, ...HELM_OWNERSHIP.annotations.map((a) => `${a}-`)]);
    await kubectl(['label', 'crd', crd, ...HELM_OWNERSHIP.labels.map((l) => `${l}-`)]);
  }
  await mustRun('kubectl', ['--kubeconfig', requireEnv('KUBECONFIG'), 'apply', '-f', join(ROOT, 'crds')]);
}

/** Values for a release that owns the CRD. No admission policy: bound to every namespace, it would judge the other tests' receivers. */
const owning = (ns: string) => ({ ...baseValues(ns), crds: { enabled: true, keep: true }, admissionPolicy: { enabled: false } });
/** The 0.1.0 chart knows neither crds nor rbac values (its schema refuses unknown keys). */
const oldValues = (ns: string) => ({
  valkey: { url: requireEnv('VALKEY_URL'), prefix: `test-${ns}` },
  admissionPolicy: { enabled: false },
});

describe('the chart owns the HeldJob CRD', () => {
  test(
    'from a CRD applied by hand and from the 0.1.0 chart, `helm upgrade` brings the changed CRD; uninstall keeps it and its HeldJobs',
    async () => {
      const kube = new TestKube();
      const a = await kube.createNamespace('crd-upgrade');
      const b = await kube.createNamespace('crd-install');
      const helmIn = (ns: string, args: string[]) => helm([...args, '-n', ns]);
      try {
        // An older CRD, applied with kubectl from a release's crds/ folder: no Helm ownership.
        await mustRun('kubectl', ['--kubeconfig', requireEnv('KUBECONFIG'), 'apply', '-f', '-'], olderCrd());
        expect(columns(await readCrd())).toContain('Conditions');
        // A HeldJob that lives through everything below.
        await kube.createHeldJob(a, heldJob({ name: 'survivor', waitFor: [{ after: afterIn(3_600_000).after }] }));

        // The 0.1.0 chart installed over the CRD that is already there.
        await mustRun('helm', [
          'install',
          RELEASE,
          OLD_CHART,
          '-n',
          a,
          // Helm 4 would server-side apply its crds/ copy over the one kubectl applied: conflict.
          '--skip-crds',
          '-f',
          valuesFile(a, oldValues(a)),
          '--kubeconfig',
          requireEnv('KUBECONFIG'),
        ]);
        expect(columns(await readCrd())).toContain('Conditions');

        // Upgrading to this chart: Helm will not take over an object it did not make without being told.
        const refused = await helmIn(a, ['upgrade', RELEASE, CHART_DIR, '-f', valuesFile(a, owning(a))]);
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toMatch(
          new RegExp(
            `CustomResourceDefinition "${CRD.replace(/\./g, '\\.')}".*(exists and cannot be imported|invalid ownership metadata)`,
            's',
          ),
        );

        // With --take-ownership, and --force-conflicts for the fields kubectl's apply had set
        // (docs/helm.md): the changed CRD arrives, owned and kept.
        const upgraded = await helmIn(a, [
          'upgrade',
          RELEASE,
          CHART_DIR,
          '--take-ownership',
          '--force-conflicts',
          '-f',
          valuesFile(a, owning(a)),
        ]);
        expect(upgraded.stderr).not.toMatch(/Error/);
        expect(upgraded.code).toBe(0);
        const owned = await readCrd();
        expect(columns(owned)).toContain('Waiting For');
        expect(columns(owned)).not.toContain('Conditions');
        expect(owned.metadata.annotations).toMatchObject({
          'meta.helm.sh/release-name': RELEASE,
          'meta.helm.sh/release-namespace': a,
          'helm.sh/resource-policy': 'keep',
        });
        expect(owned.metadata.labels?.['app.kubernetes.io/managed-by']).toBe('Helm');

        // From then on a chart whose CRD changed brings the change with a plain `helm upgrade`.
        const next = nextChart();
        const toNext = await helmIn(a, ['upgrade', RELEASE, next, '-f', valuesFile(a, owning(a))]);
        expect(toNext.stderr).not.toMatch(/Error/);
        expect(toNext.code).toBe(0);
        expect(columns(await readCrd())).toContain('Waiting For (next)');
        const back = await helmIn(a, ['upgrade', RELEASE, CHART_DIR, '-f', valuesFile(a, owning(a))]);
        expect(back.code).toBe(0);
        expect(columns(await readCrd())).toContain('Waiting For');

        // Uninstall keeps the CRD (resource-policy keep), so no HeldJob is lost.
        await mustRun('helm', ['uninstall', RELEASE, '-n', a, '--kubeconfig', requireEnv('KUBECONFIG')]);
        expect(columns(await readCrd())).toContain('Waiting For');
        expect((await kube.getHeldJob(a, 'survivor'))?.metadata.name).toBe('survivor');

        // A new release elsewhere over the CRD the first one left behind.
        const installed = await helmIn(b, ['install', RELEASE, CHART_DIR, '--take-ownership', '-f', valuesFile(b, owning(b))]);
        expect(installed.stderr).not.toMatch(/Error/);
        expect(installed.code).toBe(0);
        expect((await readCrd()).metadata.annotations?.['meta.helm.sh/release-namespace']).toBe(b);
        await mustRun('helm', ['uninstall', RELEASE, '-n', b, '--kubeconfig', requireEnv('KUBECONFIG')]);
        expect((await kube.getHeldJob(a, 'survivor'))?.metadata.name).toBe('survivor');
      } finally {
        await helm(['uninstall', RELEASE, '-n', a]);
        await helm(['uninstall', RELEASE, '-n', b]);
        await restoreCrd();
        await kube.deleteNamespace(a);
        await kube.deleteNamespace(b);
      }
      const after = await readCrd();
      expect(columns(after)).toContain('Waiting For');
      expect(after.metadata.annotations?.['meta.helm.sh/release-name']).toBeUndefined();
    },
    Timeouts.testMs * 2,
  );
});

describe('the aggregated ClusterRoles', () => {
  test(
    'a namespace user bound to view reads HeldJobs, one bound to edit also creates and deletes them; the roles leave with the release',
    async () => {
      let ns = '';
      await withChart(
        'chart-aggregate',
        (n) => ({ ...baseValues(n), admissionPolicy: { enabled: false } }),
        async (c) => {
          ns = c.namespace;
          for (const [user, role] of [
            ['alice', 'view'],
            ['bob', 'edit'],
          ] as const) {
            await mustRun('kubectl', [
              '--kubeconfig',
              requireEnv('KUBECONFIG'),
              'create',
              'rolebinding',
              `${user}-${role}`,
              `--clusterrole=${role}`,
              `--user=${user}`,
              '-n',
              ns,
            ]);
          }
          const admin = requireEnv('KUBECONFIG');
          const can = (user: string, verb: string) => canI(admin, [verb, 'heldjobs.waitgate.dev', '-n', ns, '--as', user]);
          // The aggregation controller folds the chart's rules into view and edit shortly after install.
          await eventually(
            'view and edit to include HeldJobs',
            async () => ((await can('alice', 'list')) && (await can('bob', 'create')) ? true : undefined),
            Timeouts.jobMs,
          );
          expect(await can('alice', 'get')).toBe(true);
          expect(await can('alice', 'watch')).toBe(true);
          expect(await can('alice', 'create')).toBe(false);
          expect(await can('alice', 'delete')).toBe(false);
          expect(await can('bob', 'delete')).toBe(true);
          expect(await can('bob', 'patch')).toBe(true);
          // Neither may write a HeldJob's status: that is the operator's.
          expect(await canI(admin, ['update', 'heldjobs.waitgate.dev', '--subresource=status', '-n', ns, '--as', 'bob'])).toBe(false);
          // OnceRecords likewise: view reads them, edit may also delete one (its once trigger then fires there again).
          const once = (user: string, verb: string) => canI(admin, [verb, 'oncerecords.waitgate.dev', '-n', ns, '--as', user]);
          expect(await Promise.all([once('alice', 'list'), once('alice', 'delete'), once('bob', 'delete'), once('bob', 'create')])).toEqual(
            [true, false, true, true],
          );
        },
      );
      // Uninstalled: the release's aggregated ClusterRoles are gone with it.
      for (const role of ['view', 'edit']) {
        expect((await kubectl(['get', 'clusterrole', `${ns}-waitgate-heldjobs-${role}`])).stderr).toMatch(/NotFound/);
      }
    },
    Timeouts.testMs,
  );
});
