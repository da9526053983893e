import { z } from 'zod';
import { targetProblem } from '../../api/target.js';
import { TargetKind } from '../../api/vocabulary.js';
import { bodyHashOf, Forge, type ParsedEvent } from './event.js';

const labelList = z.array(z.object({ title: z.string() })).optional();
const hook = z.object({
  object_kind: z.string(),
  project: z.object({ path_with_namespace: z.string().regex(/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/) }),
  object_attributes: z.object({ iid: z.number().int().positive() }),
  changes: z.object({ labels: z.object({ previous: labelList, current: labelList }).optional() }).optional(),
});

/** Turns a verified GitLab delivery into an event. `payload` is already JSON-parsed. */
export function parseGitlab(eventName: string | undefined, deliveryId: string | undefined, body: Buffer, payload: unknown): ParsedEvent {
  const sep = eventName === 'Issue Hook' ? '#' : eventName === 'Merge Request Hook' ? '!' : undefined;
  if (!sep) return { kind: 'unhandled', eventName: eventName ?? '(none)' };
  const r = hook.safeParse(payload);
  if (!r.success) return { kind: 'malformed', problem: `not a GitLab ${eventName} payload: ${r.error.issues[0]?.path.join('.')}` };
  const p = r.data;
  const before = new Set((p.changes?.labels?.previous ?? []).map((l) => l.title));
  const added = (p.changes?.labels?.current ?? []).map((l) => l.title).filter((t) => !before.has(t));
  if (added.length === 0) return { kind: 'unhandled', eventName: `${eventName} without added labels` };
  const target = `${p.project.path_with_namespace}${sep}${p.object_attributes.iid}`;
  const problem = targetProblem(target);
  if (problem) return { kind: 'malformed', problem };
  const bodyHash = bodyHashOf(body);
  return {
    kind: 'label',
    event: {
      forge: Forge.GitLab,
      deliveryId: deliveryId || bodyHash,
      bodyHash,
      target,
      kind: sep === '!' ? TargetKind.MergeRequest : TargetKind.Issue,
      addedLabels: added,
    },
  };
}
