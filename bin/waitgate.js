#!/usr/bin/env node
// The `waitgate` command, and `kubectl waitgate` (the same file under the plugin's name). The
// command line itself is TypeScript (cli/main.ts); this runs its build output, so `npm run
// build` has to have run first.
//
// On a Node.js older than package.json's engines.node, the command line would die inside a
// dependency with an error that names no version; so this file, and the check it imports first
// (dist/cli/node-version.js), must load on any Node.js that runs ES modules: only node:
// built-ins are imported up front, nothing newer than ES2020 is written (no top-level await),
// and the command line is imported only once the check has passed.
import { existsSync } from 'node:fs';

const dist = new URL('../dist/cli/', import.meta.url);
const check = new URL('node-version.js', dist);
const entry = new URL('main.js', dist);
if (!existsSync(check) || !existsSync(entry)) {
  process.stderr.write('waitgate: run `npm run build` first\n');
  process.exit(1);
}
import(check.href)
  .then(({ nodeVersionOk }) => {
    if (!nodeVersionOk(new URL('../package.json', import.meta.url))) return undefined;
    return import(entry.href).then(({ main }) => main(process.argv.slice(2)));
  })
  .then((code) => {
    if (code !== undefined) process.exitCode = code;
  });
