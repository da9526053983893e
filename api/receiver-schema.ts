// The receiver's schema stamp (annotation waitgate.dev/receiver-schema on every HeldJob it
// makes), one home: the receiver writes it, the operator reads it to say which side of a skew
// to upgrade. wait-skew (the HeldJob lacks what its trigger says) points at the receiver;
// wait-unreadable (the HeldJob says what the operator cannot read) at the operator. The stamp
// tells the two apart where the token alone would only say something is out of step.
import { Annotations, assertNever } from './vocabulary.js';

/** Bumped whenever what the receiver writes into a HeldJob changes meaning. */
export const RECEIVER_SCHEMA_VERSION = 1;

export type ReceiverStamp =
  /** Not made by the receiver, or stamped as this operator's own receiver stamps. */
  | { readonly kind: 'current' }
  /** Made by a receiver that predates the stamp. */
  | { readonly kind: 'unstamped' }
  | { readonly kind: 'older'; readonly version: number }
  | { readonly kind: 'newer'; readonly version: number }
  /** A stamp that is not a version number: said as it is, bounded. */
  | { readonly kind: 'garbled'; readonly value: string };

/** The stamp of a receiver-made HeldJob, against this release's RECEIVER_SCHEMA_VERSION. */
export function receiverStampOf(annotations: Readonly<Record<string, string>> | undefined, madeByReceiver: boolean): ReceiverStamp {
  if (!madeByReceiver) return { kind: 'current' };
  const raw = annotations?.[Annotations.receiverSchema];
  if (raw === undefined || raw === '') return { kind: 'unstamped' };
  if (!/^[0-9]{1,6}$/.test(raw)) return { kind: 'garbled', value: raw.slice(0, 32) };
  const version = Number(raw);
  if (version < RECEIVER_SCHEMA_VERSION) return { kind: 'older', version };
  if (version > RECEIVER_SCHEMA_VERSION) return { kind: 'newer', version };
  return { kind: 'current' };
}

/** Which side to upgrade, in a sentence; undefined when the stamp says nothing of it. */
export function upgradeAdvice(stamp: ReceiverStamp): string | undefined {
  const mine = `this operator reads schema ${RECEIVER_SCHEMA_VERSION}`;
  switch (stamp.kind) {
    case 'current':
      return undefined;
    case 'unstamped':
      return `it was made by a receiver older than schema stamps (${mine}): upgrade the receiver`;
    case 'older':
      return `it was made by a receiver of schema ${stamp.version} (${mine}): upgrade the receiver`;
    case 'newer':
      return `it was made by a receiver of schema ${stamp.version} (${mine}): upgrade the operator`;
    case 'garbled':
      return `its receiver schema stamp "${stamp.value}" is not a version (${mine})`;
    default:
      return assertNever(stamp);
  }
}
