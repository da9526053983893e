// waitgate mcp: a Model Context Protocol server on stdio (cli/mcp/server.ts), under the
// kubeconfig's identity. Standard output is the protocol: nothing else is ever written there.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, flagValue, HELP_FLAG, NAMESPACE_FLAG, parseCommandLine } from '../args.js';
import { formatSpan, parseDuration } from '../format.js';
import type { CliIo } from '../io.js';
import { describeError, loadCluster } from '../kube.js';
import { clusterPorts } from '../mcp/ports.js';
import { createMcpServer } from '../mcp/server.js';
import { DEFAULT_CANCEL_TIMEOUT_MS } from './cancel.js';
import { ExitCode, printHelp, refuseUsage, wantsHelp, type Command } from './command.js';

export const DEFAULT_CONFIRM_TIMEOUT_MS = 120_000;
/** The longest a human may be given to answer: a confirm never waits for ever. */
export const MAX_CONFIRM_TIMEOUT_MS = 30 * 60_000;

export const mcp: Command = {
  words: ['mcp'],
  args: '[-n NAMESPACE] [--confirm-timeout 2m]',
  summary: 'a Model Context Protocol server on stdio: list, describe and (confirmed) cancel HeldJobs',
  help: [
    'Serves MCP on standard input and output, for an MCP client (an editor, an agent) to start.',
    "It acts as the kubeconfig identity, so that identity's RBAC decides what it may read and",
    'cancel. Tools:',
    '  list_held_jobs     the rows `waitgate held` shows, as data with namespace and name',
    '                     (namespace optional; allNamespaces for every namespace)',
    '  describe_held_job  one HeldJob: target, trigger, conditions, phase, reason, waits, counters',
    '  cancel_held_job    asks the human through MCP elicitation first ("Cancel acme/web#7',
    '                     (team-a/web-7-deploy), waiting 2h14m for jira?") and cancels as',
    '                     `waitgate cancel` does only on an accepted answer; a decline, no answer',
    '                     in time or a client without elicitation cancels nothing, and says so',
    'No tool writes anything else. Messages go to standard error, never to standard output.',
    '',
    "  -n, --namespace NS   the tools' default namespace (the kubeconfig context's, else default)",
    '  --confirm-timeout DURATION',
    '                       how long the human has to answer a cancel (2m; at most 30m)',
    ...CLUSTER_FLAGS_HELP,
    '',
    'Exit status 0 when the client closes the connection, 1 when the kubeconfig cannot be',
    'loaded, 2 for a usage error.',
  ].join('\n'),
  run: runMcp,
  get flags() {
    return LINE.flags;
  },
};

const LINE = {
  flags: [NAMESPACE_FLAG, { name: 'confirm-timeout', value: true }, ...CLUSTER_FLAGS, HELP_FLAG],
  positionals: [],
} as const;

export async function runMcp(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) return printHelp(mcp, io);
  const parsed = parseCommandLine(args, LINE);
  if (!parsed.ok) return refuseUsage(mcp, io, parsed.problem);
  const timeoutText = flagValue(parsed, 'confirm-timeout');
  const confirmTimeoutMs = timeoutText === undefined ? DEFAULT_CONFIRM_TIMEOUT_MS : parseDuration(timeoutText);
  if (confirmTimeoutMs === undefined || confirmTimeoutMs <= 0 || confirmTimeoutMs > MAX_CONFIRM_TIMEOUT_MS) {
    return refuseUsage(
      mcp,
      io,
      `--confirm-timeout ${timeoutText}: a duration above 0 and at most ${formatSpan(MAX_CONFIRM_TIMEOUT_MS)}, such as 2m or 90s`,
    );
  }

  let cluster;
  try {
    cluster = loadCluster(io, flagValue(parsed, 'kubeconfig'), flagValue(parsed, 'context'));
  } catch (err) {
    io.stderr(`waitgate mcp: ${describeError(err)}`);
    return ExitCode.Failure;
  }
  const defaultNamespace = flagValue(parsed, 'namespace') ?? cluster.contextNamespace;

  // Standard output is the protocol: whatever a library would print there goes to stderr.
  console.log = console.info = console.debug = console.error;
  const server = createMcpServer(clusterPorts(cluster.kc), {
    defaultNamespace,
    confirmTimeoutMs,
    goneTimeoutMs: DEFAULT_CANCEL_TIMEOUT_MS,
  });
  const transport = new StdioServerTransport(process.stdin, process.stdout);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  // The client closing our standard input is the end of the session.
  process.stdin.once('end', () => void server.close());
  await server.connect(transport);
  io.stderr(
    `waitgate mcp: serving on stdio; cluster ${cluster.server}, namespace ${defaultNamespace}, confirm timeout ${formatSpan(confirmTimeoutMs)}`,
  );
  await closed;
  io.stderr('waitgate mcp: the client closed the connection');
  return ExitCode.Ok;
}
