// waitgate describe NAME: one HeldJob, its waits, next check, counters, conditions and last
// Events. What it shows of the HeldJob is describe_held_job's data (cli/mcp/describe.ts).
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, flagValue, HELP_FLAG, NAMESPACE_FLAG, OUTPUT_FLAG, parseCommandLine } from '../args.js';
import { DESCRIBE_EVENTS, describeLines } from '../describe-text.js';
import type { CliIo } from '../io.js';
import { describeError, getHeldJob, listHeldJobEvents, loadCluster } from '../kube.js';
import { describeHeldJob } from '../mcp/describe.js';
import { ExitCode, printHelp, refuseUsage, wantsHelp, type Command } from './command.js';

export const describe: Command = {
  words: ['describe'],
  args: 'NAME [-n NAMESPACE] [-o json]',
  summary: 'one HeldJob: its waits, next check, counters, conditions and last Events',
  help: [
    'Shows the HeldJob NAME: its target and conditions, phase, each wait with its state and',
    'detail, when the operator checks next, the counters (checks and faults against their',
    `limits), its conditions and its last ${DESCRIBE_EVENTS} Events. The same data as the MCP tool`,
    'describe_held_job, which -o json prints (with the Events).',
    '',
    "  -n, --namespace NS   default: the kubeconfig context's namespace, else default",
    '  -o json              the HeldJob and its Events as one JSON object',
    ...CLUSTER_FLAGS_HELP,
    '',
    'Exit status 0 when it was shown; 1 when there is no HeldJob of that name or the cluster',
    'could not be asked; 2 for a usage error.',
  ].join('\n'),
  run: runDescribe,
  get flags() {
    return LINE.flags;
  },
};

const LINE = {
  flags: [NAMESPACE_FLAG, OUTPUT_FLAG, ...CLUSTER_FLAGS, HELP_FLAG],
  positionals: ['NAME'],
  missing: 'which HeldJob? give its NAME',
} as const;

export async function runDescribe(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) return printHelp(describe, io);
  const parsed = parseCommandLine(args, LINE);
  if (!parsed.ok) return refuseUsage(describe, io, parsed.problem);
  const [name] = parsed.args;
  let namespace = flagValue(parsed, 'namespace');
  try {
    const cluster = loadCluster(io, flagValue(parsed, 'kubeconfig'), flagValue(parsed, 'context'));
    namespace ??= cluster.contextNamespace;
    const hj = await getHeldJob(cluster.kc, namespace, name);
    if (hj === undefined) {
      io.stderr(`waitgate describe: no HeldJob ${name} in ${namespace}`);
      return ExitCode.Failure;
    }
    const events = await listHeldJobEvents(cluster.kc, hj, DESCRIBE_EVENTS);
    const data = describeHeldJob(hj);
    if (parsed.json) io.stdout(JSON.stringify({ ...data, events }, null, 2));
    else for (const line of describeLines(data, events, io.now())) io.stdout(line);
    return ExitCode.Ok;
  } catch (err) {
    io.stderr(`waitgate describe: cannot read HeldJob ${namespace ?? ''}/${name}: ${describeError(err)}`);
    return ExitCode.Failure;
  }
}
