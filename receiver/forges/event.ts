// What the receiver keeps of a forge delivery: ids only. No title, body or other text an
// author typed goes further than the parser.

export const Forge = { GitHub: 'github', GitLab: 'gitlab' } as const;
export type Forge = (typeof Forge)[keyof typeof Forge];

export interface LabelEvent {
  readonly forge: Forge;
  readonly deliveryId: string;
  /** `owner/repo#7`, or `group/repo!12` for a GitLab merge request. */
  readonly target: string;
  /** Labels this event added; matched against triggers, never stored or logged. */
  readonly addedLabels: readonly string[];
}

export type ParsedEvent =
  | { readonly kind: 'label'; readonly event: LabelEvent }
  /** A well-formed event the receiver has no use for (ping, comment, ...). */
  | { readonly kind: 'unhandled'; readonly eventName: string }
  | { readonly kind: 'malformed'; readonly problem: string };
