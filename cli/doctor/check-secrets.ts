// Doctor's look at the Secrets pod-mode checks read: which profile reads which Secret (as
// files, and which variables), and, where the caller may list Secret metadata in the
// operator's namespace, a warning for one that is missing or not labelled for checks (its
// check Pod would never start, or be refused). Only names and labels are ever looked at: the
// list is asked for as metadata (PartialObjectMetadataList), so no Secret data is read.
import * as https from 'node:https';
import type * as k8s from '@kubernetes/client-node';
import { CHECK_SECRET_LABEL, CHECK_SECRET_LABEL_VALUE } from '../../api/check-secrets.js';
import { parseProfiles, PROFILES_CONFIGMAP, secretsRead } from '../../api/profiles.js';
import type { ConfigMapRead } from './config-checks.js';
import { ok, warn, type Finding } from './findings.js';

/** The Secrets of the operator's namespace as metadata: name to labels; or why they could not be listed. */
export type SecretsMetadata =
  | { readonly state: 'ok'; readonly labels: ReadonlyMap<string, Readonly<Record<string, string>>> }
  | { readonly state: 'unreadable'; readonly problem: string };

/** Pure: the findings for the profiles' Secrets. */
export function checkSecretFindings(namespace: string, profiles: ConfigMapRead, secrets: SecretsMetadata): Finding[] {
  if (profiles.state !== 'ok') return [];
  const parsed = parseProfiles(profiles.data);
  if (!parsed.ok) return [];
  const findings: Finding[] = [];
  const readers = [...parsed.profiles.values()].filter((p) => (p.secrets ?? []).length > 0).sort((a, b) => (a.name < b.name ? -1 : 1));
  if (readers.length === 0) return [ok('secrets', `no profile of ${namespace}/${PROFILES_CONFIGMAP} reads a Secret`)];
  for (const p of readers) {
    const reads = secretsRead(p).map(
      (r) => `${r.secret} (files in ${r.files}${r.envNames.length ? `; env ${r.envNames.join(', ')}` : ''})`,
    );
    findings.push(ok('secrets', `profile ${p.name} reads ${reads.join(', ')}`));
  }
  const named = [...new Set(readers.flatMap((p) => p.secrets ?? []))].sort();
  if (secrets.state === 'unreadable') {
    findings.push(
      warn(
        'secrets',
        `cannot list Secret metadata in ${namespace} (${secrets.problem}): whether ${named.join(', ')} exist and carry ${CHECK_SECRET_LABEL} is not checked`,
      ),
    );
    return findings;
  }
  for (const name of named) {
    const users = readers.filter((p) => p.secrets?.includes(name)).map((p) => p.name);
    const labels = secrets.labels.get(name);
    if (labels === undefined) {
      findings.push(
        warn(
          'secrets',
          `Secret ${namespace}/${name}, read by ${users.join(', ')}, does not exist: its check Pods cannot start (could not tell, counted) until it does`,
        ),
      );
    } else if (labels[CHECK_SECRET_LABEL] !== CHECK_SECRET_LABEL_VALUE) {
      findings.push(
        warn(
          'secrets',
          `Secret ${namespace}/${name}, read by ${users.join(', ')}, is not labelled ${CHECK_SECRET_LABEL}=${CHECK_SECRET_LABEL_VALUE}: their check Pods are refused at admission and the holds pause (CheckSecretRefused)`,
        ),
      );
    }
  }
  return findings;
}

/** Lists the namespace's Secrets as metadata only (no data crosses the wire). */
export async function readSecretsMetadata(kc: k8s.KubeConfig, namespace: string): Promise<SecretsMetadata> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) return { state: 'unreadable', problem: 'no current cluster in the kubeconfig' };
  const url = new URL(`/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`, cluster.server);
  const opts: https.RequestOptions = {
    method: 'GET',
    headers: { Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' },
  };
  try {
    await kc.applyToHTTPSOptions(opts);
    const body = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = https.request(url, { ...opts, timeout: 10_000 }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', reject);
      req.end();
    });
    if (body.status !== 200) return { state: 'unreadable', problem: `HTTP ${body.status}` };
    const list = JSON.parse(body.text) as { kind?: string; items?: { metadata?: { name?: string; labels?: Record<string, string> } }[] };
    // Anything but metadata would be a server that ignored the ask: use nothing of it.
    if (list.kind !== 'PartialObjectMetadataList') return { state: 'unreadable', problem: `the apiserver answered ${String(list.kind)}` };
    const labels = new Map<string, Record<string, string>>();
    for (const item of list.items ?? []) if (item.metadata?.name) labels.set(item.metadata.name, item.metadata.labels ?? {});
    return { state: 'ok', labels };
  } catch (err) {
    return { state: 'unreadable', problem: err instanceof Error ? err.message : String(err) };
  }
}
