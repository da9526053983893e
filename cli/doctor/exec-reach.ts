// Doctor's look at what exec-mode checks can reach. An exec check runs as a process of the
// operator, in its container, as its user: whatever the operator can read, the script can
// read. That is its service-account token (in a cluster) and with it the operator's rights
// (create Jobs wherever it watches HeldJobs), and the operator's own environment, read back
// from /proc/<its pid>/environ: VALKEY_URL with its password, the forge token or GitHub App
// key. The environment allow-list only keeps those out of the script's own environment. So an
// exec-mode profile next to an operator Deployment that mounts a token or carries credentials
// is a warning, with pod mode as the way out. Pure: the profiles and the Deployments come in
// as data.
import * as k8s from '@kubernetes/client-node';
import { execProfiles, parseProfiles, PROFILES_CONFIGMAP } from '../../api/profiles.js';
import type { ConfigMapRead } from './config-checks.js';
import { ok, warn, type Finding } from './findings.js';

/** Where the kubelet puts the token of a Pod that mounts one. */
export const TOKEN_PATH = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** What doctor needs to know of one Deployment that runs the operator. */
export interface OperatorDeployment {
  readonly name: string;
  /** The token is mounted: the Pod spec does not turn it off, nor (when the Pod spec is silent) its ServiceAccount. */
  readonly tokenMounted: boolean;
  /** WAITGATE_CHECK_ENV_INHERIT is set to a true value in its container. */
  readonly inheritsEnv: boolean;
  /**
   * The credentials among its container's variables (CREDENTIAL_VARIABLES), sorted; plus
   * `envFrom` when whole ConfigMaps or Secrets are poured in, whose names doctor cannot see.
   */
  readonly credentials: readonly string[];
}

/** The operator's settings that carry a secret: what a script reading its environment gets. */
export const CREDENTIAL_VARIABLES = [
  'VALKEY_URL',
  'WAITGATE_GITHUB_APP_PRIVATE_KEY',
  'WAITGATE_GITHUB_TOKEN',
  'WAITGATE_GITLAB_TOKEN',
  'WAITGATE_AZURE_TOKEN',
] as const;

/** True for a container that runs the operator (the chart's command, or one like it). */
export function runsOperator(c: k8s.V1Container): boolean {
  return [...(c.command ?? []), ...(c.args ?? [])].some((a) => /(^|\/)operator\/main\.js$/.test(a));
}

/** The operator Deployments among `deployments`, with the ServiceAccounts of the namespace to settle an unset automount. */
export function operatorDeployments(
  deployments: readonly k8s.V1Deployment[],
  accounts: readonly k8s.V1ServiceAccount[],
): OperatorDeployment[] {
  const out: OperatorDeployment[] = [];
  for (const d of deployments) {
    const spec = d.spec?.template.spec;
    const container = spec?.containers.find(runsOperator);
    if (!spec || !container) continue;
    const accountName = spec.serviceAccountName ?? 'default';
    const account = accounts.find((a) => a.metadata?.name === accountName);
    const tokenMounted = spec.automountServiceAccountToken ?? account?.automountServiceAccountToken ?? true;
    const inherit =
      container.env
        ?.find((e) => e.name === 'WAITGATE_CHECK_ENV_INHERIT')
        ?.value?.trim()
        .toLowerCase() ?? '';
    const names = new Set((container.env ?? []).map((e) => e.name));
    const credentials: string[] = CREDENTIAL_VARIABLES.filter((n) => names.has(n));
    if ((container.envFrom ?? []).length > 0) credentials.push('envFrom');
    out.push({ name: d.metadata?.name ?? '?', tokenMounted, inheritsEnv: ['true', '1', 'yes'].includes(inherit), credentials });
  }
  return out;
}

export function execReachFindings(input: {
  readonly namespace: string;
  readonly profiles: ConfigMapRead;
  /** undefined when the Deployments could not be read: `problem` says why. */
  readonly operators: readonly OperatorDeployment[] | undefined;
  readonly problem?: string;
}): Finding[] {
  if (input.profiles.state !== 'ok') return [];
  const parsed = parseProfiles(input.profiles.data);
  if (!parsed.ok) return [];
  const exec = execProfiles(parsed);
  if (exec.length === 0)
    return [ok('checks', `no exec-mode profile in ${input.namespace}/${PROFILES_CONFIGMAP}: every check runs in a Pod without a token`)];
  exec.sort();
  const names = exec.join(', ');
  if (input.operators === undefined) {
    return [
      warn(
        'checks',
        `cannot read the Deployments of ${input.namespace} (${input.problem ?? 'unknown'}), so whether exec-mode profiles (${names}) can read a service-account token or the operator's credentials is unknown`,
      ),
    ];
  }
  if (input.operators.length === 0) {
    return [
      ok(
        'checks',
        `no operator Deployment in ${input.namespace}: exec-mode profiles (${names}) run wherever the operator runs, with what it can read`,
      ),
    ];
  }
  const findings: Finding[] = [];
  for (const d of input.operators) {
    const where = `Deployment ${input.namespace}/${d.name}`;
    const environment =
      d.credentials.length > 0
        ? `the operator's whole environment from /proc/<its pid>/environ (${d.credentials.join(', ')}), whatever the allow-list`
        : `the operator's whole environment from /proc/<its pid>/environ, whatever the allow-list`;
    if (d.tokenMounted) {
      findings.push(
        warn(
          'checks',
          `exec-mode profiles (${names}) run as the operator's user inside ${where}, which mounts a service-account token: any of these scripts can read ${TOKEN_PATH} and act as the operator (create Jobs wherever it watches HeldJobs), and read ${environment}. Give them "mode": "pod" (no token, not the operator's process), or review each script as you would code the operator runs`,
        ),
      );
    } else if (d.credentials.length > 0) {
      findings.push(
        warn(
          'checks',
          `exec-mode profiles (${names}) run as the operator's user inside ${where}: it mounts no service-account token, but any of these scripts can read ${environment}. Give them "mode": "pod", or review each script as you would code the operator runs`,
        ),
      );
    } else {
      findings.push(
        ok(
          'checks',
          `${where} mounts no service-account token and carries no credential, so exec-mode profiles (${names}) can read neither`,
        ),
      );
    }
    if (d.inheritsEnv) {
      findings.push(
        warn(
          'checks',
          `Deployment ${input.namespace}/${d.name} sets WAITGATE_CHECK_ENV_INHERIT: exec-mode checks see its whole environment, VALKEY_URL included`,
        ),
      );
    }
  }
  return findings;
}
