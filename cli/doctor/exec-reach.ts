// Doctor's look at what exec-mode checks can reach. An exec check runs as a process of the
// operator, in its container: whatever file the operator can read, the script can read. In a
// cluster that includes the operator's service-account token, and with it the operator's
// rights (create Jobs wherever it watches HeldJobs). The environment allow-list cannot help
// there: the token is a file. So an exec-mode profile next to an operator Deployment that
// mounts a token is a warning, with pod mode (no token) as the way out. Pure: the profiles
// and the Deployments come in as data.
import * as k8s from '@kubernetes/client-node';
import { parseProfiles, PROFILES_CONFIGMAP, ProfileMode } from '../../api/profiles.js';
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
}

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
    out.push({ name: d.metadata?.name ?? '?', tokenMounted, inheritsEnv: ['true', '1', 'yes'].includes(inherit) });
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
  const exec = [...parsed.profiles.values()].filter((p) => p.mode === ProfileMode.Exec).map((p) => p.name);
  if (exec.length === 0)
    return [ok('checks', `no exec-mode profile in ${input.namespace}/${PROFILES_CONFIGMAP}: every check runs in a Pod without a token`)];
  exec.sort();
  const names = exec.join(', ');
  if (input.operators === undefined) {
    return [
      warn(
        'checks',
        `cannot read the Deployments of ${input.namespace} (${input.problem ?? 'unknown'}), so whether exec-mode profiles (${names}) can read a service-account token is unknown`,
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
    if (d.tokenMounted) {
      findings.push(
        warn(
          'checks',
          `exec-mode profiles (${names}) run inside Deployment ${input.namespace}/${d.name}, which mounts a service-account token: any of these scripts can read ${TOKEN_PATH} and act as the operator (create Jobs wherever it watches HeldJobs). Give them "mode": "pod" (no token), or review each script as you would code the operator runs`,
        ),
      );
    } else {
      findings.push(
        ok(
          'checks',
          `Deployment ${input.namespace}/${d.name} mounts no service-account token, so exec-mode profiles (${names}) cannot read one`,
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
