#!/usr/bin/env node
// The `waitgate` command. The command line itself is TypeScript (cli/main.ts); this runs its
// build output, so `npm run build` has to have run first.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('waitgate: run `npm run build` first\n');
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
