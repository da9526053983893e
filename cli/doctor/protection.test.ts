import { describe, expect, test } from '@jest/globals';
import { protectionFindings, type ProtectionInput } from './protection.js';

const policy: ProtectionInput['jobPolicy'] = { state: 'ok', level: 'baseline', namespaces: {} };
const receiver = (...env: { name: string; value?: string }[]) => [{ deployment: 'waitgate-receiver', env }];
const lines = (input: ProtectionInput) => protectionFindings(input).map((f) => `${f.level} ${f.message}`);

describe('protectionFindings', () => {
  test.each<[string, ProtectionInput, string[]]>([
    [
      'no receiver, the default policy',
      { receivers: [], jobPolicy: policy },
      ["ok the operator's Jobs meet Pod Security baseline and are created only under a HeldJob, never in kube-system"],
    ],
    [
      'the approval policy bound',
      { receivers: [], jobPolicy: policy, approvalPolicy: true },
      [
        "ok the operator's Jobs meet Pod Security baseline and are created only under a HeldJob, never in kube-system",
        'ok approvals name their writer and only a member of the group approves (the heldjob-approval admission policy)',
      ],
    ],
    [
      'no approval policy: approvals are not enforced',
      { receivers: [], jobPolicy: policy, approvalPolicy: false },
      [
        "ok the operator's Jobs meet Pod Security baseline and are created only under a HeldJob, never in kube-system",
        "WARN no heldjob-approval admission policy is bound: an approval condition's approved-by is not enforced, and whoever may patch a HeldJob may approve it in anyone's name (admissionPolicy.enabled)",
      ],
    ],
    [
      'one GitHub secret from a Secret: it speaks for every repository',
      { receivers: receiver({ name: 'WAITGATE_GITHUB_WEBHOOK_SECRET' }), jobPolicy: policy },
      [
        "WARN waitgate-receiver: WAITGATE_GITHUB_WEBHOOK_SECRET speaks for every repository: whoever holds it can fire any repository's github triggers; scope secrets to repositories with WAITGATE_GITHUB_WEBHOOK_SCOPED_SECRETS",
        "ok waitgate-receiver: a verified delivery's label is believed without asking the forge (WAITGATE_RECEIVER_CONFIRM_LABELS is off)",
        "ok the operator's Jobs meet Pod Security baseline and are created only under a HeldJob, never in kube-system",
      ],
    ],
    [
      'scoped GitLab tokens and confirmed labels; an empty unscoped variable (Helm renders one) is unset',
      {
        receivers: receiver(
          { name: 'WAITGATE_GITLAB_WEBHOOK_SCOPED_TOKENS' },
          { name: 'WAITGATE_GITLAB_WEBHOOK_TOKEN', value: '' },
          { name: 'WAITGATE_RECEIVER_CONFIRM_LABELS', value: 'true' },
        ),
        jobPolicy: policy,
      },
      [
        'ok waitgate-receiver: every gitlab webhook secret speaks for the repositories it names only (WAITGATE_GITLAB_WEBHOOK_SCOPED_TOKENS)',
        'ok waitgate-receiver: a label is confirmed with the forge before it holds (WAITGATE_RECEIVER_CONFIRM_LABELS)',
        "ok the operator's Jobs meet Pod Security baseline and are created only under a HeldJob, never in kube-system",
      ],
    ],
    [
      'scoped and unscoped Azure secrets side by side: the unscoped one still speaks for all',
      {
        receivers: receiver(
          { name: 'WAITGATE_AZURE_WEBHOOK_SCOPED_SECRETS' },
          { name: 'WAITGATE_AZURE_WEBHOOK_SECRETS' },
          { name: 'WAITGATE_RECEIVER_CONFIRM_LABELS', value: 'false' },
        ),
        jobPolicy: { state: 'missing' },
      },
      [
        "WARN waitgate-receiver: WAITGATE_AZURE_WEBHOOK_SECRETS speaks for every repository: whoever holds it can fire any repository's azure triggers; scope secrets to repositories with WAITGATE_AZURE_WEBHOOK_SCOPED_SECRETS (some already are)",
        "ok waitgate-receiver: a verified delivery's label is believed without asking the forge (WAITGATE_RECEIVER_CONFIRM_LABELS is off)",
        'WARN no operator-jobs admission policy is bound: the operator may create any Job, privileged ones and ones in kube-system included (admissionPolicy.enabled)',
      ],
    ],
    [
      'a widened namespace is said loudly; one set to the default level is not',
      { receivers: [], jobPolicy: { state: 'ok', level: 'baseline', namespaces: { 'gpu-team': 'privileged', web: 'baseline' } } },
      [
        "ok the operator's Jobs meet Pod Security baseline and are created only under a HeldJob, never in kube-system",
        'WARN Jobs in gpu-team may be privileged (admissionPolicy.jobPodSecurity.namespaces): whoever may write a HeldJob there may run one',
      ],
    ],
    [
      'privileged everywhere',
      { receivers: [], jobPolicy: { state: 'ok', level: 'privileged', namespaces: {} } },
      ["WARN the operator's Jobs may be privileged in every namespace it serves (admissionPolicy.jobPodSecurity.default)"],
    ],
    [
      'the policy cannot be read',
      { receivers: [], jobPolicy: { state: 'error', problem: 'forbidden' } },
      ['WARN cannot read the operator-jobs admission policy: forbidden'],
    ],
  ])('%s', (_name, input, want) => {
    expect(lines(input)).toEqual(want);
  });
});
