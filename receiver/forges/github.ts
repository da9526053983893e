import { createHash } from 'node:crypto';
import { z } from 'zod';
import { Forge, type ParsedEvent } from './event.js';

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
  return {
    kind: 'label',
    event: {
      forge: Forge.GitHub,
      deliveryId: deliveryId || createHash('sha256').update(body).digest('hex'),
      target: `${p.repository.full_name}#${number}`,
      addedLabels: [p.label.name],
    },
  };
}
