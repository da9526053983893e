#!/usr/bin/env node
// kubectl's completer for the waitgate plugin: `kubectl waitgate <TAB>` runs this with the
// words typed so far; it answers as `waitgate __complete` does (candidates, then :directive).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) process.exit(1);
const { main } = await import(entry.href);
process.exitCode = await main(['__complete', ...process.argv.slice(2)]);
