// Rewrites the generated blocks of docs/cli.md from the commands' own help. `npm run build &&
// npm run gen:cli-doc` after changing a command's help, flags or summary; a unit test fails
// while the page is stale (hack/cli-doc.test.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CLI_DOC_PATH, proseFlagProblems, renderCliDoc } from './cli-doc.js';

const path = fileURLToPath(new URL(`../../${CLI_DOC_PATH}`, import.meta.url));
const page = await renderCliDoc(readFileSync(path, 'utf8'));
writeFileSync(path, page);
console.log(`wrote ${CLI_DOC_PATH}`);
const problems = proseFlagProblems(page);
for (const p of problems) console.error(p);
if (problems.length > 0) process.exitCode = 1;
