import { z } from 'zod';
import { targetProblem } from '../../api/target.js';
import { TargetKind } from '../../api/vocabulary.js';
import { bodyHashOf, Forge, type ParsedEvent } from './event.js';

const repo = z.object({ full_name: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/) });
const labeled = z.object({
  action: z.string(),
  label: z.object({ name: z.string() }).optional(),
  repository: repo,
  issue: z.object({ number: z.number().int().positive() }).optional(),
  pull_request: z.object({ number: z.number().int().positive() }).optional(),
});

/** Turns a verified GitHub delivery into an event. `payload` is already JSON-parsed. */
export function parseGithub(eventName: string | undefined, deliveryId: string | undefined, body: Buffer, payload: unknown): ParsedEvent {
  if (eventName !== 'issues' && eventName !== 'pull_request') return { kind: 'unhandled', eventName: eventName ?? '(none)' };
  const r = labeled.safeParse(payload);
  if (!r.success) return { kind: 'malformed', problem: `not a GitHub ${eventName} payload: ${r.error.issues[0]?.path.join('.')}` };
  const p = r.data;
  if (p.action !== 'labeled' || !p.label) return { kind: 'unhandled', eventName: `${eventName}.${p.action}` };
  const number = eventName === 'issues' ? p.issue?.number : p.pull_request?.number;
  if (number === undefined) return { kind: 'malformed', problem: `GitHub ${eventName} payload without a number` };
  const target = `${p.repository.full_name}#${number}`;
  const problem = targetProblem(target);
  if (problem) return { kind: 'malformed', problem };
  const bodyHash = bodyHashOf(body);
  return {
    kind: 'label',
    event: {
      forge: Forge.GitHub,
      deliveryId: deliveryId || bodyHash,
      bodyHash,
      target,
      kind: eventName === 'issues' ? TargetKind.Issue : TargetKind.PullRequest,
      addedLabels: [p.label.name],
    },
  };
}
