// Text from the cluster, made safe to hand to a model or to show a human through MCP: one
// line (oneLine: control characters and line separators become '?'), the invisible format
// characters too (bidi overrides, zero-width joiners: text that reads one way and says
// another), and cut at a bound. Pure.
import { oneLine } from '../format.js';

/** Bidi controls, zero-width characters, the BOM and the other Unicode format characters. */
const FORMAT = /\p{Cf}/gu;

/** A cluster string as data: one line, no invisible characters, at most `max` characters. */
export function dataText(text: string, max = 200): string {
  return oneLine(text.replace(FORMAT, '?'), max);
}

/** dataText of a string; null for anything that is not a non-empty string. */
export function dataTextOrNull(value: unknown, max = 200): string | null {
  return typeof value === 'string' && value !== '' ? dataText(value, max) : null;
}
