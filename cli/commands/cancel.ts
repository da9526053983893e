// waitgate cancel NAME: deletes one HeldJob, says what it was, and waits until it is gone.
// The cancel itself is cli/cancel-heldjob.ts, which the held panel's x key runs too.
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { FINALIZER, OPERATOR_CANCEL } from '../../api/vocabulary.js';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, flagValue, HELP_FLAG, NAMESPACE_FLAG, OUTPUT_FLAG, parseCommandLine } from '../args.js';
import { cancelHeldJob, describeCancel } from '../cancel-heldjob.js';
import { formatSpan, parseDuration } from '../format.js';
import type { CliIo } from '../io.js';
import { describeError, getHeldJob, loadCluster } from '../kube.js';
import { ExitCode, printHelp, refuseUsage, wantsHelp, type Command } from './command.js';

export const DEFAULT_CANCEL_TIMEOUT_MS = 30_000;
const POLL_MS = 250;

export const cancel: Command = {
  words: ['cancel'],
  args: 'NAME [-n NAMESPACE] [--timeout 30s] [-o json]',
  summary: 'cancel one HeldJob, say what it was, and wait until it is gone',
  help: [
    "Deletes the HeldJob NAME; the operator's finalizer does the rest. Says which it was:",
    '  held      waiting on its conditions; it never ran and nothing starts now',
    '  queued    Pending (in a pause window, its hold not begun); it never ran',
    `  running   its Job is being deleted with it, and the record says ${OPERATOR_CANCEL}`,
    '  finished  it had already ended (Succeeded, Failed or Refused): only the record goes',
    'then waits until the HeldJob is gone.',
    '',
    "  -n, --namespace NS   default: the kubeconfig context's namespace, else default",
    '  --timeout DURATION   how long to wait for it to go (30s; e.g. 500ms, 2m, 90)',
    '  -o json              the outcome as one JSON object',
    ...CLUSTER_FLAGS_HELP,
    '',
    'Exit status 0 once it is gone; 1 when it is still there at the timeout (is the operator',
    'running?) or the cluster could not be asked; 2 for a usage error; 3 when there is no',
    'HeldJob of that name.',
  ].join('\n'),
  run: runCancel,
  get flags() {
    return LINE.flags;
  },
};

const LINE = {
  flags: [NAMESPACE_FLAG, { name: 'timeout', value: true }, OUTPUT_FLAG, ...CLUSTER_FLAGS, HELP_FLAG],
  positionals: ['NAME'],
  missing: 'which HeldJob? give its NAME',
} as const;

export async function runCancel(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) return printHelp(cancel, io);
  const parsed = parseCommandLine(args, LINE);
  if (!parsed.ok) return refuseUsage(cancel, io, parsed.problem);
  const [name] = parsed.args;
  const { json } = parsed;
  const timeoutText = flagValue(parsed, 'timeout');
  const timeoutMs = timeoutText === undefined ? DEFAULT_CANCEL_TIMEOUT_MS : parseDuration(timeoutText);
  if (timeoutMs === undefined) return refuseUsage(cancel, io, `--timeout ${timeoutText}: a duration such as 30s, 2m or 500ms`);

  let cluster;
  try {
    cluster = loadCluster(io, flagValue(parsed, 'kubeconfig'), flagValue(parsed, 'context'));
  } catch (err) {
    io.stderr(`waitgate cancel: ${describeError(err)}`);
    return ExitCode.Failure;
  }
  const namespace = flagValue(parsed, 'namespace') ?? cluster.contextNamespace;
  const ref = `${namespace}/${name}`;
  const fail = (what: string, err: unknown) => {
    io.stderr(`waitgate cancel: ${what} ${ref}: ${describeError(err)}`);
    return ExitCode.Failure;
  };

  let hj: HeldJobObject | undefined;
  try {
    hj = await getHeldJob(cluster.kc, namespace, name);
  } catch (err) {
    return fail('cannot read', err);
  }
  if (hj === undefined) {
    io.stderr(`waitgate cancel: there is no HeldJob ${ref}; nothing to cancel`);
    if (json) io.stdout(JSON.stringify({ namespace, name, found: false, gone: true }, null, 2));
    return ExitCode.NotFound;
  }

  let outcome;
  try {
    outcome = await cancelHeldJob(cluster.kc, hj);
  } catch (err) {
    return fail('cannot delete', err);
  }
  if (outcome.kind === 'replaced') {
    io.stderr(`waitgate cancel: ${ref} was replaced by another HeldJob of the same name while cancelling; nothing was deleted`);
    return ExitCode.Failure;
  }
  const { subject } = outcome;
  if (!json) io.stdout(describeCancel(ref, subject));

  const started = io.now();
  const deadline = started + timeoutMs;
  let gone: boolean;
  for (;;) {
    try {
      gone = (await getHeldJob(cluster.kc, namespace, name))?.metadata.uid !== hj.metadata.uid;
    } catch (err) {
      return fail('cannot read', err);
    }
    if (gone || io.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(0, deadline - io.now()))));
  }
  if (json) {
    io.stdout(
      JSON.stringify(
        {
          namespace,
          name,
          found: true,
          was: subject.kind,
          phase: subject.phase,
          target: subject.target ?? null,
          jobName: subject.jobName ?? null,
          gone,
        },
        null,
        2,
      ),
    );
  }
  if (!gone) {
    io.stderr(
      `waitgate cancel: ${ref} is still there after ${formatSpan(timeoutMs)}: its finalizer ${FINALIZER} waits for the operator; is an operator running and watching ${namespace}?`,
    );
    return ExitCode.Failure;
  }
  if (!json) io.stdout(`${ref} is gone.`);
  return ExitCode.Ok;
}
