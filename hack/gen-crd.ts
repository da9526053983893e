// Writes crds/waitgate.dev_heldjobs.yaml from the zod schemas. `npm run gen:crd` after
// changing api/heldjob-schema.ts; a unit test fails while the file is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderCrdYaml, CRD_PATH } from './crd-file.js';

const out = fileURLToPath(new URL(`../../${CRD_PATH}`, import.meta.url));
writeFileSync(out, renderCrdYaml());
console.log(`wrote ${CRD_PATH}`);
