// waitgate held: the panel of what is waiting, in a terminal or as data.
import {
  ALL_NAMESPACES_FLAG,
  CLUSTER_FLAGS,
  CLUSTER_FLAGS_HELP,
  flagValue,
  HELP_FLAG,
  NAMESPACE_FLAG,
  OUTPUT_FLAG,
  parseCommandLine,
} from '../args.js';
import { heldRows, renderPanel, rowData } from '../held-panel.js';
import type { CliIo } from '../io.js';
import { describeError, listHeldJobs, loadCluster } from '../kube.js';
import { ExitCode, printHelp, refuseUsage, wantsHelp, type Command } from './command.js';

export const held: Command = {
  words: ['held'],
  args: '[--all] [-o json] [-n NAMESPACE | -A]',
  summary: 'what is waiting: a count and the three longest-held',
  help: [
    'Prints `held · N waiting` (and `· M pending` when some are pending), then the three',
    'HeldJobs that have waited longest (target, conditions, time waited since the first hold)',
    'and `↓ K more` for the rest. A HeldJob in phase Held is waiting; one in phase Pending',
    '(queued in a pause window, not held yet) is counted apart and listed after them. When',
    'nothing waits and nothing is pending, nothing is printed (the section is hidden).',
    "Rows show the id-only target and the operator's own condition label, nothing else.",
    '',
    '  --all                 every waiting HeldJob, not only three',
    '  -o json               every waiting HeldJob as a JSON array, with namespace and name',
    "  -n, --namespace NS    this namespace (default: the kubeconfig context's, else default)",
    '  -A, --all-namespaces  every namespace',
    ...CLUSTER_FLAGS_HELP,
    '',
    'Exit status 0 when the list was read (also with nothing waiting), 1 when the cluster',
    'could not be asked, 2 for a usage error.',
  ].join('\n'),
  run: runHeld,
  get flags() {
    return LINE.flags;
  },
};

const LINE = {
  flags: [{ name: 'all' }, OUTPUT_FLAG, NAMESPACE_FLAG, ALL_NAMESPACES_FLAG, ...CLUSTER_FLAGS, HELP_FLAG],
  positionals: [],
} as const;

export async function runHeld(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) return printHelp(held, io);
  const parsed = parseCommandLine(args, LINE);
  if (!parsed.ok) return refuseUsage(held, io, parsed.problem);
  const { json } = parsed;
  const namespaceFlag = flagValue(parsed, 'namespace');
  const allNamespaces = parsed.flags.has('all-namespaces');
  if (namespaceFlag !== undefined && allNamespaces) return refuseUsage(held, io, '-n and -A exclude each other');

  let items;
  let namespace: string | undefined;
  try {
    const cluster = loadCluster(io, flagValue(parsed, 'kubeconfig'), flagValue(parsed, 'context'));
    namespace = allNamespaces ? undefined : (namespaceFlag ?? cluster.contextNamespace);
    items = await listHeldJobs(cluster.kc, namespace);
  } catch (err) {
    io.stderr(`waitgate held: cannot list HeldJobs${namespace ? ` in ${namespace}` : ''}: ${describeError(err)}`);
    return ExitCode.Failure;
  }
  const rows = heldRows(items, io.now());
  if (json) {
    io.stdout(JSON.stringify(rows.map(rowData), null, 2));
  } else {
    for (const line of renderPanel(rows, { all: parsed.flags.has('all') })) io.stdout(line);
  }
  return ExitCode.Ok;
}
