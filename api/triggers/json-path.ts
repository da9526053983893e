// JSON paths for refusals (`$[2].run.waitFor[1].after`) and short, safe renderings of
// values for their messages.

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Appends one key or index to a path; keys that are not plain identifiers are quoted. */
export function childPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return IDENTIFIER.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

export function joinPath(base: string, keys: readonly PropertyKey[]): string {
  let path = base;
  for (const key of keys) path = childPath(path, typeof key === 'number' ? key : String(key));
  return path;
}

const MAX_SHOWN = 60;

/**
 * A value as a message may quote it: strings JSON-quoted (so control characters stay
 * escaped and a line stays one line), long renderings cut short, and nothing that can throw.
 */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol' || typeof value === 'function') return `a ${typeof value}`;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) return kindOf(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text;
}

/** `a string`, `an array`, `null`...: what a value is, for "expected X, found Y" messages. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'object':
      return 'an object';
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'bigint':
      return 'a bigint';
    default:
      return `a ${typeof value}`;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
