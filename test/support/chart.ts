// The Helm chart (charts/waitgate) against the real apiserver: helm and kubectl run as
// processes, a release per test namespace, and the chart's own ServiceAccounts turned into
// kubeconfig files (a TokenRequest token) so waitgate's processes run with exactly the rights
// the chart grants them.
import * as k8s from '@kubernetes/client-node';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import type { Permission } from '../../cli/doctor/rbac.js';
import { kubeconfigPath, requireEnv, ROOT } from './env.js';
import { TestKube } from './kube.js';

export const CHART_DIR = join(ROOT, 'charts', 'waitgate');
/** Every test installs under this release name, so the chart's names are the documented ones. */
export const RELEASE = 'waitgate';
export const OPERATOR_SA = `${RELEASE}-operator`;
export const RECEIVER_SA = `${RELEASE}-receiver`;

export interface ToolResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command line tool to its end; never throws on a non-zero exit (the caller judges). */
export function runTool(cmd: string, args: readonly string[], input?: string): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', (err) =>
      reject(
        new Error(`cannot run ${cmd}: ${err.message} (is ~/.cache/waitgate/bin/active on PATH? \`make test\` puts it there)`, {
          cause: err,
        }),
      ),
    );
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** Runs the tool and fails, with its output, unless it exits 0. */
export async function mustRun(cmd: string, args: readonly string[], input?: string): Promise<ToolResult> {
  const r = await runTool(cmd, args, input);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${String(r.code)}:\n${r.stderr}${r.stdout}`);
  return r;
}

/** helm against the test cluster's admin kubeconfig. */
export function helm(args: readonly string[]): Promise<ToolResult> {
  return runTool('helm', [...args, '--kubeconfig', kubeconfigPath()]);
}

/** kubectl with the given kubeconfig (the admin one by default). */
export function kubectl(args: readonly string[], opts: { kubeconfig?: string; input?: string } = {}): Promise<ToolResult> {
  return runTool('kubectl', ['--kubeconfig', opts.kubeconfig ?? kubeconfigPath(), ...args], opts.input);
}

function scratchDir(): string {
  const dir = join(tmpdir(), 'waitgate-e2e', 'chart');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** Writes values as a file helm reads with -f (JSON is YAML, and keeps "on" a string). */
export function valuesFile(label: string, values: object): string {
  const path = join(scratchDir(), `${label}-${Date.now()}-values.json`);
  writeFileSync(path, JSON.stringify(values, null, 2), { mode: 0o600 });
  return path;
}

/**
 * Values every test install starts from: the test's Valkey, a key prefix of its own, and the
 * CRD left to the cluster (cluster-up applies it; a release owning it would take it away from
 * the tests running beside it on uninstall; test/e2e/chart-crd.test.ts installs it).
 */
export function baseValues(namespace: string): Record<string, unknown> {
  return { valkey: { url: requireEnv('VALKEY_URL'), prefix: `test-${namespace}` }, crds: { enabled: false } };
}

export interface ChartInstall {
  readonly kube: TestKube;
  readonly namespace: string;
  /** `helm install`'s values (on top of the chart's values.yaml). */
  readonly values: object;
}

/**
 * A fresh namespace, `helm install` of the chart into it (the CRD is the cluster's already:
 * baseValues turns crds.enabled off), the body, then `helm uninstall` (which takes the cluster-scoped RBAC away)
 * and the namespace.
 */
export async function withChart(
  label: string,
  values: (namespace: string) => object,
  body: (c: ChartInstall) => Promise<void>,
): Promise<void> {
  const kube = new TestKube();
  const namespace = await kube.createNamespace(label);
  const v = values(namespace);
  let installed = false;
  try {
    await mustRun('helm', [
      'install',
      RELEASE,
      CHART_DIR,
      '-n',
      namespace,
      '-f',
      valuesFile(namespace, v),
      '--kubeconfig',
      kubeconfigPath(),
    ]);
    installed = true;
    await body({ kube, namespace, values: v });
  } finally {
    if (installed) await helm(['uninstall', RELEASE, '-n', namespace]);
    await kube.deleteNamespace(namespace);
  }
}

/**
 * A kubeconfig file that authenticates as a ServiceAccount, with a token from the
 * TokenRequest API (what the kubelet mounts into the chart's pods), against the admin
 * kubeconfig's server and CA.
 */
export async function serviceAccountKubeconfig(kube: TestKube, namespace: string, serviceAccount: string): Promise<string> {
  const tr = await kube.core.createNamespacedServiceAccountToken({
    name: serviceAccount,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const token = tr.status?.token;
  if (!token) throw new Error(`TokenRequest for ${namespace}/${serviceAccount} returned no token`);
  const cluster = kube.kc.getCurrentCluster();
  if (!cluster) throw new Error('the admin kubeconfig has no current cluster');
  const clusterEntry: Record<string, unknown> = { server: cluster.server };
  if (cluster.caData) clusterEntry['certificate-authority-data'] = cluster.caData;
  else if (cluster.caFile) clusterEntry['certificate-authority'] = cluster.caFile;
  const user = `system:serviceaccount:${namespace}:${serviceAccount}`;
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'test', cluster: clusterEntry }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: user, context: { cluster: 'test', user, namespace } }],
    'current-context': user,
  };
  const path = join(scratchDir(), `${namespace}-${serviceAccount}.kubeconfig`);
  writeFileSync(path, stringify(doc), { mode: 0o600 });
  return path;
}

/**
 * The receiver's waitgate-triggers and waitgate-profiles, as the kubelet mounts them into its
 * Pod (receiver.yaml): read with the admin's rights, as the kubelet reads them, and written in
 * the kubelet's layout (a timestamped folder, `..data` linked to it, each key a link through
 * it). For a receiver run as the chart's ServiceAccount outside a pod, which may not read them.
 * The folders' variables, pointing there.
 */
export async function mountedConfigMaps(kube: TestKube, namespace: string): Promise<Record<string, string>> {
  const root = mkdtempSync(join(scratchDir(), `${namespace}-mounts-`));
  const dirs = { WAITGATE_RECEIVER_TRIGGERS_DIR: 'waitgate-triggers', WAITGATE_RECEIVER_PROFILES_DIR: 'waitgate-profiles' };
  const env: Record<string, string> = {};
  for (const [variable, name] of Object.entries(dirs)) {
    const dir = join(root, name);
    const version = '..2026_09_01_08_00_00.1';
    mkdirSync(join(dir, version), { recursive: true });
    const data = (await kube.core.readNamespacedConfigMap({ name, namespace })).data ?? {};
    for (const [key, value] of Object.entries(data)) writeFileSync(join(dir, version, key), value);
    symlinkSync(version, join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    for (const key of Object.keys(data)) symlinkSync(join('..data', key), join(dir, key));
    env[variable] = dir;
  }
  return env;
}

/**
 * The plain `value` environment of a Deployment's first container, as the chart rendered it.
 * Entries filled from Secrets (valueFrom) are left out: the kubelet fills those in a pod.
 */
export async function deploymentEnv(kube: TestKube, namespace: string, name: string): Promise<Record<string, string>> {
  const apps = kube.kc.makeApiClient(k8s.AppsV1Api);
  const d = await apps.readNamespacedDeployment({ name, namespace });
  const env: Record<string, string> = {};
  for (const e of d.spec?.template.spec?.containers[0]?.env ?? []) if (e.value !== undefined) env[e.name] = e.value;
  return env;
}

/** `kubectl auth can-i VERB RESOURCE ...` as whoever the kubeconfig names: true for "yes". */
export async function canI(kubeconfig: string, args: readonly string[]): Promise<boolean> {
  const r = await kubectl(['auth', 'can-i', ...args], { kubeconfig });
  // "yes" exits 0; "no" (sometimes "no - <why>") exits 1; anything else is an error.
  const answer = r.stdout.trim();
  if (r.code === 0 && answer === 'yes') return true;
  if (r.code === 1 && /^no\b/.test(answer)) return false;
  throw new Error(`kubectl auth can-i ${args.join(' ')} exited ${String(r.code)}: ${r.stderr}${r.stdout}`);
}

/**
 * A permission of doctor's table (cli/doctor/rbac.ts) as `kubectl auth can-i` arguments:
 * `update heldjobs.waitgate.dev --subresource=status -n NS`, `get leases.coordination.k8s.io/NAME -n NS`.
 */
export function canIArgs(p: Permission): string[] {
  const resource = `${p.resource}${p.group ? `.${p.group}` : ''}${p.name !== undefined ? `/${p.name}` : ''}`;
  return [
    p.verb,
    resource,
    ...(p.subresource ? [`--subresource=${p.subresource}`] : []),
    ...(p.namespace === undefined ? ['--all-namespaces'] : ['-n', p.namespace]),
  ];
}

/** A rendered object: kind, name and namespace typed, the rest as it came. */
export type Manifest = { kind: string; metadata: { name: string; namespace?: string; [k: string]: unknown }; [k: string]: unknown };

/**
 * `helm template` of the chart into namespace ns with exactly these helm arguments (no Valkey is
 * added: a test of valkey.* says which it wants); the parsed manifests.
 */
export async function renderChart(ns: string, args: readonly string[]): Promise<Manifest[]> {
  const r = await mustRun('helm', ['template', RELEASE, CHART_DIR, '-n', ns, ...args]);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

/** The one manifest of that kind and name, or a failure listing what there is. */
export function manifest(ms: readonly Manifest[], kind: string, name: string): Manifest {
  const m = ms.find((x) => x.kind === kind && x.metadata.name === name);
  if (!m) throw new Error(`no ${kind} ${name} among ${ms.map((x) => `${x.kind}/${x.metadata.name}`).join(', ')}`);
  return m;
}

/** The NOTES helm prints after an install, rendered client-side (nothing is installed). */
export async function installNotes(ns: string, args: readonly string[]): Promise<string> {
  const r = await mustRun('helm', ['install', RELEASE, CHART_DIR, '--dry-run=client', '-n', ns, ...args]);
  const at = r.stdout.indexOf('NOTES:');
  if (at < 0) throw new Error(`helm install --dry-run printed no NOTES:\n${r.stdout}`);
  return r.stdout.slice(at);
}
