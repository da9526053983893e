// waitgate held: the panel of what is waiting, printed once, as data, or live (--watch).
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
import { HELD_OUTPUTS, heldOutputLines, type HeldOutput } from '../held-output.js';
import { watchHeld } from '../held-watch.js';
import type { CliIo } from '../io.js';
import { describeError, listHeldJobs, loadCluster } from '../kube.js';
import { ExitCode, printHelp, refuseUsage, wantsHelp, type Command } from './command.js';

export const held: Command = {
  words: ['held'],
  args: '[--watch | --all | -o wide|name|yaml|json] [-n NAMESPACE | -A]',
  summary: 'what is waiting: a count and the three longest-held (--watch: live, with cancel)',
  help: [
    'Prints `held · N waiting`, then the three HeldJobs that have waited longest (target,',
    'conditions, time waited since the first hold) and `↓ K more` for the rest. Three kinds',
    'are counted apart: waiting (phase Held, its conditions being watched), queued for a',
    'scope slot (phase Held, every condition cleared, its scope full: the Waiting condition',
    'says ScopeQueued) and pending (phase Pending, not held yet: a pause window), listed last.',
    'When nothing waits and nothing is pending, nothing is printed (the section is hidden).',
    "Rows show the id-only target and the operator's own condition label, nothing else.",
    '',
    'With --watch the panel stays on the screen and follows a watch of the HeldJobs. Keys:',
    '  h        open the held view (every row, one under the cursor); h or Esc goes back',
    '  ↑ ↓ k j  move the cursor in the held view',
    '  x        cancel the hold under the cursor: asks y/n in the frame; y cancels it as',
    '           `waitgate cancel` does, any other key keeps it',
    '  q        quit (so does Ctrl-C); the terminal is given back as it was',
    '',
    '  --watch               live, in the terminal, with the keys above',
    '  --all                 every waiting HeldJob, not only three',
    '  -o json               every waiting HeldJob as a JSON array, with namespace and name',
    '  -o yaml               the same rows as YAML',
    '  -o wide               a table: namespace, name, target, state, waited, next check',
    '  -o name               heldjob.waitgate.dev/NAME, one a line (what cancel and kubectl take)',
    "  -n, --namespace NS    this namespace (default: the kubeconfig context's, else default)",
    '  -A, --all-namespaces  every namespace',
    ...CLUSTER_FLAGS_HELP,
    '',
    'Exit status 0 when the list was read (also with nothing waiting) or the watch was quit,',
    '1 when the cluster could not be asked, 2 for a usage error (--watch without a terminal).',
  ].join('\n'),
  run: runHeld,
  get flags() {
    return LINE.flags;
  },
};

const LINE = {
  flags: [{ name: 'watch' }, { name: 'all' }, OUTPUT_FLAG, NAMESPACE_FLAG, ALL_NAMESPACES_FLAG, ...CLUSTER_FLAGS, HELP_FLAG],
  positionals: [],
  outputs: HELD_OUTPUTS,
} as const;

export async function runHeld(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) return printHelp(held, io);
  const parsed = parseCommandLine(args, LINE);
  if (!parsed.ok) return refuseUsage(held, io, parsed.problem);
  const { output } = parsed;
  const namespaceFlag = flagValue(parsed, 'namespace');
  const allNamespaces = parsed.flags.has('all-namespaces');
  if (namespaceFlag !== undefined && allNamespaces) return refuseUsage(held, io, '-n and -A exclude each other');
  const watch = parsed.flags.has('watch');
  if (watch && (output !== 'text' || parsed.flags.has('all')))
    return refuseUsage(held, io, `--watch shows every row with h; not with --all or -o ${output === 'text' ? 'json' : output}`);
  const terminal = watch ? io.terminal?.() : undefined;
  if (watch && terminal === undefined) return refuseUsage(held, io, '--watch needs a terminal on standard input and output');

  let items;
  let namespace: string | undefined;
  try {
    const cluster = loadCluster(io, flagValue(parsed, 'kubeconfig'), flagValue(parsed, 'context'));
    namespace = allNamespaces ? undefined : (namespaceFlag ?? cluster.contextNamespace);
    if (terminal !== undefined) {
      await watchHeld({ kc: cluster.kc, namespace, terminal, now: () => io.now() });
      return ExitCode.Ok;
    }
    items = await listHeldJobs(cluster.kc, namespace);
  } catch (err) {
    io.stderr(`waitgate held: cannot list HeldJobs${namespace ? ` in ${namespace}` : ''}: ${describeError(err)}`);
    return ExitCode.Failure;
  }
  const now = io.now();
  const rows = heldRows(items, now);
  if (output === 'json') {
    io.stdout(JSON.stringify(rows.map(rowData), null, 2));
  } else if (output !== 'text') {
    for (const line of heldOutputLines(output as HeldOutput, rows, now)) io.stdout(line);
  } else {
    for (const line of renderPanel(rows, { all: parsed.flags.has('all') })) io.stdout(line);
  }
  return ExitCode.Ok;
}
