// How much text waitgate writes into a status or an Event, once. Messages come from outside
// (an apiserver's refusal that echoes a 40 KB label value, a parse error that lists every
// unknown key), and the apiserver refuses a condition message over 32 KiB: the write that
// records a hold's end would then fail on every try and the hold never end. So every message
// is cut to STATUS_TEXT_MAX_BYTES, head kept, with a marker that says it was cut and from what.
// The limit is the one events.k8s.io keeps an Event's note to (1 KiB); a status holds one
// message in a handful of places, so a status stays far under any limit. Cutting is
// idempotent: a cut text is within the limit and comes back unchanged, so a decision that
// compares what it would write with what is stored sees no change the second time.
import type { HeldJobStatus } from './heldjob-schema.js';

/** The most UTF-8 bytes of one message in a status or an Event. */
export const STATUS_TEXT_MAX_BYTES = 1024;

const encoder = new TextEncoder();

/** The UTF-8 length of `text`, in bytes. */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}

/** What ends a cut text: the ellipsis and the size it was cut from. */
export const cutMarker = (fromBytes: number): string => `… [cut from ${String(fromBytes)} bytes]`;

/**
 * `text` when it fits in `maxBytes` UTF-8 bytes; otherwise as much of its head as fits with
 * the cut marker after it, cut between code points (never inside a character).
 */
export function boundText(text: string, maxBytes: number = STATUS_TEXT_MAX_BYTES): string {
  // Most messages are short: no encoding at all when even 4 bytes a character would fit.
  if (text.length * 4 <= maxBytes) return text;
  const total = utf8Bytes(text);
  if (total <= maxBytes) return text;
  const marker = cutMarker(total);
  const room = maxBytes - utf8Bytes(marker);
  // A limit too small for the marker: the head alone.
  return room <= 0 ? head(text, maxBytes) : head(text, room) + marker;
}

/** The longest head of `text` that fits in `bytes` UTF-8 bytes, whole code points only. */
function head(text: string, bytes: number): string {
  let used = 0;
  let end = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    // A lone surrogate is written as U+FFFD: three bytes, like the rest of its plane.
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (used + size > bytes) break;
    used += size;
    end += ch.length;
  }
  return text.slice(0, end);
}

/**
 * The status with every message in it bounded: status.message, each condition's message and
 * each wait's detail. What a status write sends, and what a decision compares with the stored
 * status before it writes.
 */
export function boundedStatus(status: HeldJobStatus): HeldJobStatus {
  const { message, conditions, waits } = status;
  return {
    ...status,
    ...(message !== undefined ? { message: boundText(message) } : {}),
    ...(conditions ? { conditions: conditions.map((c) => (c.message === undefined ? c : { ...c, message: boundText(c.message) })) } : {}),
    ...(waits ? { waits: waits.map((w) => (w.detail === undefined ? w : { ...w, detail: boundText(w.detail) })) } : {}),
  };
}
