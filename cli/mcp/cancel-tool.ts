// cancel_held_job: read the HeldJob, ask the human (MCP elicitation) what exactly is about to
// be cancelled, and cancel only on an accepted answer, through the cancel `waitgate cancel`
// runs. Between the question and the delete the HeldJob is read again: gone, replaced by
// another of the same name, or moved on (held → running) means nothing is deleted and the
// answer says so; the delete itself carries the uid, so only the one the human saw can go.
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { classify, describeCancel } from '../cancel-heldjob.js';
import { CancelToolOutcome, confirmMessage, decideConfirm, type ConfirmAnswer } from './confirm.js';
import type { McpPorts, McpSettings } from './ports.js';
import type { CancelData } from './schemas.js';

const POLL_MS = 250;

/** Puts the question to the human; resolves to what became of it (never rejects). */
export type Ask = (question: string) => Promise<ConfirmAnswer>;

export type CancelToolResult = { readonly ok: true; readonly data: CancelData } | { readonly ok: false; readonly data: CancelData };

export async function cancelTool(
  ports: McpPorts,
  settings: McpSettings,
  ask: Ask,
  namespace: string,
  name: string,
): Promise<CancelToolResult> {
  const ref = `${namespace}/${name}`;
  const base = { namespace, name, question: null, was: null, gone: null } as const;

  const seen = await ports.get(namespace, name);
  if (seen === undefined) {
    return {
      ok: false,
      data: { ...base, cancelled: false, outcome: CancelToolOutcome.NotFound, said: `there is no HeldJob ${ref}; nothing to cancel` },
    };
  }
  if (seen.metadata.deletionTimestamp) {
    return {
      ok: true,
      data: {
        ...base,
        cancelled: false,
        outcome: CancelToolOutcome.AlreadyCancelling,
        said: `${ref} is already being cancelled; nobody was asked`,
      },
    };
  }

  const question = confirmMessage(seen, ports.now());
  const decision = decideConfirm(await ask(question));
  if (!decision.cancel) {
    const ok = decision.outcome !== CancelToolOutcome.NoElicitation && decision.outcome !== CancelToolOutcome.Failed;
    const asked = decision.outcome === CancelToolOutcome.NoElicitation ? null : question;
    return { ok, data: { ...base, question: asked, cancelled: false, outcome: decision.outcome, said: `${ref}: ${decision.why}.` } };
  }

  // The answer took a while: cancel only what the human was asked about.
  const now = await ports.get(namespace, name);
  const keep = (outcome: CancelToolOutcome, said: string): CancelToolResult => ({
    ok: true,
    data: { ...base, question, cancelled: false, outcome, gone: now === undefined, said },
  });
  if (now === undefined) return keep(CancelToolOutcome.Gone, `${ref} went while the human was being asked; nothing was cancelled`);
  if (now.metadata.uid !== seen.metadata.uid) {
    return keep(
      CancelToolOutcome.Replaced,
      `${ref} is now another HeldJob of the same name; it was not asked about, so nothing was cancelled`,
    );
  }
  const asked = classify(seen).kind;
  const current = classify(now).kind;
  if (current !== asked) {
    return keep(CancelToolOutcome.Changed, `${ref} was ${asked} when asked and is ${current} now; nothing was cancelled: ask again`);
  }

  const outcome = await ports.cancel(now);
  if (outcome.kind === 'replaced') {
    return keep(
      CancelToolOutcome.Replaced,
      `${ref} was replaced by another HeldJob of the same name while cancelling; nothing was deleted`,
    );
  }
  const said = describeCancel(ref, outcome.subject);
  const gone = await waitGone(ports, now, settings.goneTimeoutMs);
  return {
    ok: true,
    data: {
      ...base,
      question,
      cancelled: true,
      outcome: CancelToolOutcome.Accepted,
      was: outcome.subject.kind,
      gone,
      said: gone ? `${said} ${ref} is gone.` : `${said} ${ref} is still there (its finalizer waits for the operator).`,
    },
  };
}

/** Polls until `hj` (that uid) is gone, or the timeout; true when gone. */
async function waitGone(ports: McpPorts, hj: HeldJobObject, timeoutMs: number): Promise<boolean> {
  const deadline = ports.now() + timeoutMs;
  for (;;) {
    try {
      if ((await ports.get(hj.metadata.namespace, hj.metadata.name))?.metadata.uid !== hj.metadata.uid) return true;
    } catch {
      // a read that fails is tried again until the deadline
    }
    if (ports.now() >= deadline) return false;
    await ports.sleep(Math.min(POLL_MS, Math.max(0, deadline - ports.now())));
  }
}
