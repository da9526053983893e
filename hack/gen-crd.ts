// Writes crds/ (waitgate.dev_heldjobs.yaml, waitgate.dev_oncerecords.yaml) from the zod
// schemas. `npm run gen:crd` after changing api/heldjob-schema.ts or api/once-record-schema.ts;
// a unit test fails while a file is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CRD_FILES } from './crd-file.js';

for (const { path, render } of CRD_FILES) {
  writeFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), render());
  console.log(`wrote ${path}`);
}
