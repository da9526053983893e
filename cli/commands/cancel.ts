// waitgate cancel NAME: deletes one HeldJob, says what it was, and waits until it is gone.
// Deleting is the whole cancel: the operator's finalizer stops a running check, gives back
// the slots and, when the Job already runs, deletes it and records operator-cancel.
import * as k8s from '@kubernetes/client-node';
import { TARGET_PATTERN, type HeldJobObject } from '../../api/heldjob-schema.js';
import { API_GROUP, API_VERSION, FINALIZER, HELDJOB_PLURAL, OPERATOR_CANCEL, Phase } from '../../api/vocabulary.js';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, flagValue, HELP_FLAG, NAMESPACE_FLAG, OUTPUT_FLAG, parseCommandLine } from '../args.js';
import { formatSpan, oneLine, parseDuration } from '../format.js';
import type { CliIo } from '../io.js';
import { describeError, getHeldJob, loadCluster } from '../kube.js';
import { statusCodeOf } from '../../lib/kube/client.js';
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

export type CancelKind = 'held' | 'queued' | 'running' | 'finished';

export interface CancelSubject {
  readonly kind: CancelKind;
  readonly phase: string;
  readonly target: string | undefined;
  readonly jobName: string | undefined;
  /** The refusal token of a Refused one. */
  readonly reason: string | undefined;
  /** Someone had already asked for it to go. */
  readonly alreadyDeleting: boolean;
}

const TARGET = new RegExp(TARGET_PATTERN);

/** What a HeldJob is, as far as cancelling it goes. No status yet reads as queued. */
export function classify(hj: HeldJobObject): CancelSubject {
  const phase = hj.status?.phase ?? Phase.Pending;
  const target = (hj.spec as { target?: unknown } | undefined)?.target;
  const kind: CancelKind =
    phase === Phase.Held ? 'held' : phase === Phase.Pending ? 'queued' : phase === Phase.Running ? 'running' : 'finished';
  return {
    kind,
    phase,
    target: typeof target === 'string' && target.length <= 256 && TARGET.test(target) ? target : undefined,
    jobName: typeof hj.status?.jobName === 'string' && hj.status.jobName !== '' ? oneLine(hj.status.jobName, 253) : undefined,
    reason: typeof hj.status?.reason === 'string' && hj.status.reason !== '' ? hj.status.reason : undefined,
    alreadyDeleting: Boolean(hj.metadata.deletionTimestamp),
  };
}

/** The sentence that says what was cancelled. */
export function describeCancel(ref: string, s: CancelSubject): string {
  const who = `${ref}${s.target ? ` (${s.target})` : ''}`;
  const lead = s.alreadyDeleting
    ? `${who} was already being cancelled:`
    : s.kind === 'finished'
      ? `Deleting the record of ${who}:`
      : `Cancelling ${who}:`;
  switch (s.kind) {
    case 'held':
      return `${lead} it was held on its conditions and never ran; nothing will start.`;
    case 'queued':
      return `${lead} it was queued (Pending, its hold had not begun) and never ran; nothing will start.`;
    case 'running':
      return `${lead} it was running; its Job${s.jobName ? ` ${s.jobName}` : ''} is deleted with it and the record says ${OPERATOR_CANCEL}.`;
    case 'finished':
      return `${lead} it had already finished (${s.phase}${s.reason ? `, ${s.reason}` : ''}); there was nothing to stop.`;
  }
}

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

  let subject = classify(hj);
  try {
    const custom = cluster.kc.makeApiClient(k8s.CustomObjectsApi);
    // The uid precondition: delete exactly the HeldJob just read, not a new one of the same name.
    const after = (await custom.deleteNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: HELDJOB_PLURAL,
      namespace,
      name,
      body: { preconditions: { uid: hj.metadata.uid } },
    })) as Partial<HeldJobObject> | undefined;
    // The object as the delete found it tells what it was at that moment.
    if (after?.metadata?.uid === hj.metadata.uid && !subject.alreadyDeleting)
      subject = { ...classify(after as HeldJobObject), alreadyDeleting: false };
  } catch (err) {
    if (statusCodeOf(err) === 409) {
      io.stderr(`waitgate cancel: ${ref} was replaced by another HeldJob of the same name while cancelling; nothing was deleted`);
      return ExitCode.Failure;
    }
    if (statusCodeOf(err) !== 404) return fail('cannot delete', err);
  }
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
