// What the receiver keeps of a forge delivery: ids only. No title, body or other text an
// author typed goes further than the parser.
import { createHash } from 'node:crypto';
import { Forge, type TargetKind } from '../../api/vocabulary.js';

export { Forge };

export interface LabelEvent {
  readonly forge: Forge;
  /** The forge's delivery id (a UUID), or the body's hash when the forge sent none. */
  readonly deliveryId: string;
  /** SHA-256 of the signed body, hex: the same body under another delivery id is the same delivery. */
  readonly bodyHash: string;
  /** `owner/repo#7`, or `group/repo!12` for a GitLab merge request or an Azure DevOps pull request. */
  readonly target: string;
  /** Whether the target is an issue, a pull request or a merge request. */
  readonly kind: TargetKind;
  /** Labels this event added; matched against triggers, never stored or logged. */
  readonly addedLabels: readonly string[];
  /**
   * The forge sent every label on the target, not the ones this event added (an Azure DevOps
   * pull request update says nothing of what changed): which were added is told against the
   * labels seen last (receiver/adapters/valkey-seen-labels.ts).
   */
  readonly labelsAreWholeSet?: true;
  /** The head commit of a pull or merge request, as the payload gave it; undefined for an issue. */
  readonly revision?: string | undefined;
}

export type ParsedEvent =
  | { readonly kind: 'label'; readonly event: LabelEvent }
  /** A well-formed event the receiver has no use for (ping, comment, ...). */
  | { readonly kind: 'unhandled'; readonly eventName: string }
  | { readonly kind: 'malformed'; readonly problem: string };

/** The hex SHA-256 of a delivery's raw body. */
export function bodyHashOf(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}
