#!/usr/bin/env node
// kubectl's completer for the waitgate plugin: `kubectl waitgate <TAB>` runs this with the
// words typed so far; it answers as `waitgate __complete` does (candidates, then :directive).
// Like bin/waitgate.js, it checks the Node.js version before it imports the command line, and
// is written to load on an older Node.js (ES2020 at the newest, no top-level await).
import { existsSync } from 'node:fs';

const dist = new URL('../dist/cli/', import.meta.url);
const check = new URL('node-version.js', dist);
const entry = new URL('main.js', dist);
if (!existsSync(check) || !existsSync(entry)) process.exit(1);
import(check.href)
  .then(({ nodeVersionOk }) => {
    if (!nodeVersionOk(new URL('../package.json', import.meta.url))) return undefined;
    return import(entry.href).then(({ main }) => main(['__complete', ...process.argv.slice(2)]));
  })
  .then((code) => {
    if (code !== undefined) process.exitCode = code;
  });
