// Who made a HeldJob, from its labels: the receiver labels every HeldJob it creates
// (Labels.madeBy); one without the label was written by hand. The trigger binding
// (api/trigger-binding.ts), the scope key (api/target.ts) and forge reports ask it.
import { isForge } from './forges.js';
import type { HeldJobObject } from './heldjob-schema.js';
import { Labels, MADE_BY_RECEIVER, type Forge } from './vocabulary.js';

type Labelled = Pick<HeldJobObject, 'metadata'>;

/** Whether the receiver made this HeldJob (Labels.madeBy). */
export function madeByReceiver(heldJob: Labelled): boolean {
  return heldJob.metadata.labels?.[Labels.madeBy] === MADE_BY_RECEIVER;
}

/** The forge of a HeldJob the receiver made, from its forge label; undefined for any other. */
export function receiverForgeOf(heldJob: Labelled): Forge | undefined {
  const forge = heldJob.metadata.labels?.[Labels.forge];
  return madeByReceiver(heldJob) && isForge(forge) ? forge : undefined;
}
