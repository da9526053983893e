// waitgate version: this client's version and the running operator's, as the cluster records
// it (cli/operator-version.ts). `waitgate --version` stays the client's alone, offline.
import * as k8s from '@kubernetes/client-node';
import { VERSION } from '../../lib/version.js';
import {
  CLUSTER_FLAGS,
  CLUSTER_FLAGS_HELP,
  flagValue,
  HELP_FLAG,
  OUTPUT_FLAG,
  parseCommandLine,
  WAITGATE_NAMESPACE_FLAG,
} from '../args.js';
import type { CliIo } from '../io.js';
import { describeError, loadCluster } from '../kube.js';
import { operatorVersion, VersionSource, type OperatorVersion } from '../operator-version.js';
import { operatorNamespace } from '../settings.js';
import { ExitCode, printHelp, refuseUsage, wantsHelp, type Command } from './command.js';

export const version: Command = {
  words: ['version'],
  args: '[--waitgate-namespace NS] [-o json]',
  summary: "this client's version and the running operator's",
  help: [
    "Prints the client's version, then the operator's as the cluster records it: the leader",
    'Lease in the waitgate namespace carries the version of the replica holding it (annotation',
    'waitgate.dev/operator-version); without leader election (one replica, no Lease) the',
    "operator Deployment's label app.kubernetes.io/version. `waitgate --version` prints the",
    "client's alone and asks no cluster.",
    '',
    '  --waitgate-namespace NS  where the operator runs (default: $WAITGATE_NAMESPACE, else',
    '                           waitgate-system)',
    '  -o json                  {"client": {...}, "operator": {...}} as one JSON object',
    ...CLUSTER_FLAGS_HELP,
    '',
    'Exit status 0 when the cluster was asked (also when it runs no operator: version null);',
    "1 when it could not be asked (the client's version is printed all the same); 2 for a",
    'usage error.',
  ].join('\n'),
  run: runVersion,
  get flags() {
    return LINE.flags;
  },
};

const LINE = { flags: [WAITGATE_NAMESPACE_FLAG, OUTPUT_FLAG, ...CLUSTER_FLAGS, HELP_FLAG], positionals: [] } as const;

export async function runVersion(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) return printHelp(version, io);
  const parsed = parseCommandLine(args, LINE);
  if (!parsed.ok) return refuseUsage(version, io, parsed.problem);
  const namespace = operatorNamespace(flagValue(parsed, 'waitgate-namespace'), io.env);
  let operator: OperatorVersion | undefined;
  let problem: string | undefined;
  try {
    const { kc } = loadCluster(io, flagValue(parsed, 'kubeconfig'), flagValue(parsed, 'context'));
    const [leases, deployments] = await Promise.all([
      kc.makeApiClient(k8s.CoordinationV1Api).listNamespacedLease({ namespace }),
      kc.makeApiClient(k8s.AppsV1Api).listNamespacedDeployment({ namespace }),
    ]);
    operator = operatorVersion(leases.items, deployments.items);
  } catch (err) {
    problem = describeError(err);
  }
  if (parsed.json) {
    io.stdout(JSON.stringify({ client: { version: VERSION }, operator: operator ? { namespace, ...operator } : null }, null, 2));
  } else {
    io.stdout(`client:   waitgate ${VERSION}`);
    if (operator === undefined) io.stdout(`operator: unknown (cannot ask the cluster)`);
    else if (operator.source === VersionSource.None) io.stdout(`operator: none found in ${namespace}`);
    else io.stdout(`operator: waitgate ${operator.version ?? '?'} (${namespace}/${operator.object ?? '?'}, ${operator.detail ?? ''})`);
  }
  if (problem !== undefined) {
    io.stderr(`waitgate version: cannot read the operator's version in ${namespace}: ${problem}`);
    return ExitCode.Failure;
  }
  return ExitCode.Ok;
}
