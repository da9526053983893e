// The text of one Lua script in lua/ (copied beside the compiled code by `npm run build`), read
// once where its command is defined: ioredis then sends it by its hash, the whole text only
// when the server does not have it yet.
import { readFileSync } from 'node:fs';

export function luaScript(name: string): string {
  return readFileSync(new URL(`./lua/${name}`, import.meta.url), 'utf8');
}
