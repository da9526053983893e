// JSON.parse keeps the last of two equal keys and drops the first without a word. In a
// triggers file that can silently drop a wait, so the text is scanned for repeated keys.

import { childPath } from './json-path.js';

export interface DuplicateKey {
  /** The path of the repeated key's second (or later) occurrence. */
  readonly path: string;
  readonly key: string;
}

type Frame =
  { kind: 'object'; path: string; keys: Set<string>; expectingKey: boolean; key: string } | { kind: 'array'; path: string; index: number };

/**
 * Finds keys that occur twice in one object. `text` must be valid JSON (JSON.parse has
 * accepted it); the scan is iterative, so deep nesting cannot overflow the stack.
 */
export function findDuplicateKeys(text: string): DuplicateKey[] {
  const found: DuplicateKey[] = [];
  const stack: Frame[] = [];
  const nextValuePath = (): string => {
    const top = stack[stack.length - 1];
    if (top === undefined) return '$';
    return top.kind === 'object' ? childPath(top.path, top.key) : childPath(top.path, top.index);
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    switch (c) {
      case '"': {
        let j = i + 1;
        while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
        const top = stack[stack.length - 1];
        if (top?.kind === 'object' && top.expectingKey) {
          const key = JSON.parse(text.slice(i, j + 1)) as string;
          if (top.keys.has(key)) found.push({ path: childPath(top.path, key), key });
          top.keys.add(key);
          top.key = key;
          top.expectingKey = false;
        }
        i = j + 1;
        break;
      }
      case '{':
        stack.push({ kind: 'object', path: nextValuePath(), keys: new Set(), expectingKey: true, key: '' });
        i++;
        break;
      case '[':
        stack.push({ kind: 'array', path: nextValuePath(), index: 0 });
        i++;
        break;
      case '}':
      case ']':
        stack.pop();
        i++;
        break;
      case ',': {
        const top = stack[stack.length - 1];
        if (top?.kind === 'object') top.expectingKey = true;
        else if (top?.kind === 'array') top.index++;
        i++;
        break;
      }
      default:
        i++; // whitespace, ':' and the characters of numbers, true, false and null
    }
  }
  return found;
}
