// waitgate approve NAME / waitgate reject NAME: says go (or no) to a hold's approval condition,
// as the user the kubeconfig names. The record is cli/approve-heldjob.ts's; the operator acts on it.
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, flagValue, HELP_FLAG, NAMESPACE_FLAG, parseCommandLine } from '../args.js';
import { annotateHeldJob, approvalProblem, verdictAnnotations, whoAmI, type Verdict } from '../approve-heldjob.js';
import type { CliIo } from '../io.js';
import { describeError, getHeldJob, loadCluster } from '../kube.js';
import { statusCodeOf } from '../../lib/kube/client.js';
import { ExitCode, printHelp, refuseUsage, wantsHelp, type Command } from './command.js';

const LINE = {
  flags: [NAMESPACE_FLAG, { name: 'reason', value: true }, ...CLUSTER_FLAGS, HELP_FLAG],
  positionals: ['NAME'],
  missing: 'which HeldJob? give its NAME',
} as const;

function command(verdict: Verdict): Command {
  const approve = verdict === 'approve';
  const self: Command = {
    words: [verdict],
    args: 'NAME [-n NAMESPACE] [--reason TEXT]',
    summary: approve
      ? "say go to a HeldJob's approval condition, as yourself (a member of its group)"
      : "say no to a HeldJob's approval condition: it ends Refused wait-refused, naming you",
    help: [
      approve
        ? 'Records you as the approver of the HeldJob NAME (annotation waitgate.dev/approved-by);'
        : 'Records you as the rejecter of the HeldJob NAME (annotation waitgate.dev/rejected-by);',
      approve
        ? 'the operator then goes on to its other conditions and launches it, telling the Job who'
        : 'the operator then ends it Refused wait-refused, "rejected by <you>[: reason]".',
      approve ? '(WAITGATE_APPROVED_BY, WAITGATE_APPROVED_AT).' : '',
      'Your name is the one the apiserver knows you by (a SelfSubjectReview); the admission',
      "policy waitgate-heldjob-approval admits only a member of the condition's group naming",
      'themselves, once.',
      '',
      "  -n, --namespace NS   default: the kubeconfig context's namespace, else default",
      '  --reason TEXT        why, in a few words (at most 256 characters), kept beside your name',
      ...CLUSTER_FLAGS_HELP,
      '',
      'Exit status 0 once recorded; 1 when it cannot be (no approval condition, already approved,',
      'rejected or finished, not a member, refused by the apiserver); 2 for a usage error; 3 when',
      'there is no HeldJob of that name.',
    ]
      .filter((l, i) => l !== '' || i > 3)
      .join('\n'),
    run: (args, io) => runVerdict(self, verdict, args, io),
    get flags() {
      return LINE.flags;
    },
  };
  return self;
}

export const approve = command('approve');
export const reject = command('reject');

async function runVerdict(cmd: Command, verdict: Verdict, args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) return printHelp(cmd, io);
  const parsed = parseCommandLine(args, LINE);
  if (!parsed.ok) return refuseUsage(cmd, io, parsed.problem);
  const [name] = parsed.args;
  const reason = flagValue(parsed, 'reason');
  const say = (line: string) => io.stderr(`waitgate ${verdict}: ${line}`);
  let cluster;
  try {
    cluster = loadCluster(io, flagValue(parsed, 'kubeconfig'), flagValue(parsed, 'context'));
  } catch (err) {
    say(describeError(err));
    return ExitCode.Failure;
  }
  const namespace = flagValue(parsed, 'namespace') ?? cluster.contextNamespace;
  const ref = `${namespace}/${name}`;
  let hj: HeldJobObject | undefined;
  let me;
  try {
    [hj, me] = await Promise.all([getHeldJob(cluster.kc, namespace, name), whoAmI(cluster.kc)]);
  } catch (err) {
    say(`cannot read ${ref}: ${describeError(err)}`);
    return ExitCode.Failure;
  }
  if (hj === undefined) {
    say(`there is no HeldJob ${ref}`);
    return ExitCode.NotFound;
  }
  const problem = approvalProblem(hj, verdict, me, reason);
  if (problem !== undefined) {
    say(problem);
    return ExitCode.Failure;
  }
  try {
    await annotateHeldJob(cluster.kc, hj, verdictAnnotations(verdict, me.username, reason));
  } catch (err) {
    say(
      statusCodeOf(err) === 409
        ? `${ref} changed while ${verdict === 'approve' ? 'approving' : 'rejecting'}; nothing was written, look again (waitgate held)`
        : `cannot write to ${ref}: ${describeError(err)}`,
    );
    return ExitCode.Failure;
  }
  io.stdout(`${ref} ${verdict === 'approve' ? 'approved' : 'rejected'} by ${me.username}${reason ? `: ${reason.trim()}` : ''}.`);
  return ExitCode.Ok;
}
