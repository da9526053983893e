// The newest pending wins (#30, finding 4). A trigger without conditions keeps at most one
// running and one pending hold per target, as GitHub's concurrency groups do; a delivery that
// meets a hold still pending makes the next hold, and marks the pending one superseded by it
// (Annotations.supersededBy). The operator then ends that one wait-superseded, unless its Job
// already exists (it started first; it runs), and deletes it: its delivery is counted on the
// trigger and target's wait-superseded record. Only a receiver-made hold without conditions
// is ended so: the annotation on any other HeldJob says nothing.
import type { HeldJobObject } from './heldjob-schema.js';
import { madeByReceiver } from './made-by.js';
import { isDnsLabel } from './object-name.js';
import { Annotations } from './vocabulary.js';

type Annotated = Pick<HeldJobObject, 'metadata'>;

/** The newer hold that superseded this one, when it is receiver-made and says so with a well-formed name. */
export function supersedingHoldOf(heldJob: Annotated): string | undefined {
  if (!madeByReceiver(heldJob)) return undefined;
  const by = heldJob.metadata.annotations?.[Annotations.supersededBy];
  return by !== undefined && isDnsLabel(by) && by !== heldJob.metadata.name ? by : undefined;
}

/** The message a superseded hold ends with. */
export function supersededMessage(by: string): string {
  return `a newer delivery of its trigger for this target made HeldJob ${by} before this one's Job was created; the newest pending hold runs`;
}
