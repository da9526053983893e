// Which of the tenancy protections are in force, read from what is installed (pure: the
// receiver's container environment and the operator-jobs policy come in as data):
// - each forge's webhook secrets: scoped to repositories, or speaking for every repository;
// - whether the receiver confirms a label with the forge before holding;
// - the Pod Security level the operator's Jobs are held to, and the namespaces widened from it.
import { CONFIRM_LABELS_VARIABLE, WEBHOOK_VARIABLES } from '../../api/webhook-variables.js';
import { FORGES } from '../../api/vocabulary.js';
import { ok, warn, type Finding } from './findings.js';

/** One variable of the receiver's container: its value when set inline, or that it comes from elsewhere. */
export interface ReceiverVariable {
  readonly name: string;
  readonly value?: string | undefined;
}

export type JobPolicyRead =
  /** The operator-jobs policy and its binding, with the levels the chart recorded on it. */
  | { readonly state: 'ok'; readonly level: string; readonly namespaces: Readonly<Record<string, string>> }
  | { readonly state: 'missing' }
  | { readonly state: 'error'; readonly problem: string };

export interface ProtectionInput {
  /** The receiver Deployments' containers found, by Deployment name (none: no receiver here). */
  readonly receivers: readonly { readonly deployment: string; readonly env: readonly ReceiverVariable[] }[];
  readonly jobPolicy: JobPolicyRead;
  /** Whether the heldjob-approval policy of this release is bound (undefined: it could not be read). */
  readonly approvalPolicy?: boolean | undefined;
}

const AREA = 'protection';

/** Where the chart records admissionPolicy.jobPodSecurity on the operator-jobs policy, as JSON. */
export const JOB_POD_SECURITY_ANNOTATION = 'waitgate.dev/job-pod-security';
const TRUE = new Set(['1', 'true', 'yes', 'on']);

export function protectionFindings(input: ProtectionInput): Finding[] {
  return [
    ...input.receivers.flatMap((r) => receiverFindings(r.deployment, r.env)),
    ...jobPolicyFindings(input.jobPolicy),
    ...approvalPolicyFindings(input.approvalPolicy),
  ];
}

/** Without the heldjob-approval policy, an approval's name is whatever its writer typed. */
function approvalPolicyFindings(bound: boolean | undefined): Finding[] {
  if (bound === undefined) return [];
  return [
    bound
      ? ok(AREA, 'approvals name their writer and only a member of the group approves (the heldjob-approval admission policy)')
      : warn(
          AREA,
          "no heldjob-approval admission policy is bound: an approval condition's approved-by is not enforced, and whoever may patch a HeldJob may approve it in anyone's name (admissionPolicy.enabled)",
        ),
  ];
}

function receiverFindings(deployment: string, env: readonly ReceiverVariable[]): Finding[] {
  const set = (name: string) => env.some((v) => v.name === name && (v.value === undefined || v.value.trim() !== ''));
  const findings: Finding[] = [];
  for (const forge of FORGES) {
    const v = WEBHOOK_VARIABLES[forge];
    const unscoped = v.unscoped.filter(set);
    const scoped = set(v.scoped);
    if (unscoped.length === 0 && !scoped) continue;
    if (unscoped.length === 0) {
      findings.push(ok(AREA, `${deployment}: every ${forge} webhook secret speaks for the repositories it names only (${v.scoped})`));
    } else {
      findings.push(
        warn(
          AREA,
          `${deployment}: ${unscoped.join(', ')} speaks for every repository: whoever holds it can fire any repository's ${forge} triggers; scope secrets to repositories with ${v.scoped}${scoped ? ' (some already are)' : ''}`,
        ),
      );
    }
  }
  const confirm = env.find((v) => v.name === CONFIRM_LABELS_VARIABLE);
  const confirmed = confirm !== undefined && (confirm.value === undefined || TRUE.has(confirm.value.trim().toLowerCase()));
  findings.push(
    ok(
      AREA,
      confirmed
        ? `${deployment}: a label is confirmed with the forge before it holds (${CONFIRM_LABELS_VARIABLE})`
        : `${deployment}: a verified delivery's label is believed without asking the forge (${CONFIRM_LABELS_VARIABLE} is off)`,
    ),
  );
  return findings;
}

function jobPolicyFindings(read: JobPolicyRead): Finding[] {
  switch (read.state) {
    case 'missing':
      return [
        warn(
          AREA,
          'no operator-jobs admission policy is bound: the operator may create any Job, privileged ones and ones in kube-system included (admissionPolicy.enabled)',
        ),
      ];
    case 'error':
      return [warn(AREA, `cannot read the operator-jobs admission policy: ${read.problem}`)];
    case 'ok': {
      const widened = Object.entries(read.namespaces)
        .filter(([, level]) => level !== read.level)
        .sort(([a], [b]) => a.localeCompare(b));
      const level =
        read.level === 'privileged'
          ? warn(AREA, "the operator's Jobs may be privileged in every namespace it serves (admissionPolicy.jobPodSecurity.default)")
          : ok(AREA, `the operator's Jobs meet Pod Security ${read.level} and are created only under a HeldJob, never in kube-system`);
      return [
        level,
        ...widened.map(([ns, level]) =>
          warn(
            AREA,
            `Jobs in ${ns} may be ${level} (admissionPolicy.jobPodSecurity.namespaces): whoever may write a HeldJob there may run one`,
          ),
        ),
      ];
    }
    default: {
      const never: never = read;
      return never;
    }
  }
}
