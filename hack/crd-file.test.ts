import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { CRD_FILES } from './crd-file.js';

describe('crds/', () => {
  test.each(CRD_FILES.map((f) => [f.path, f.render] as const))(
    '%s is generated from the current schema (run `npm run build && npm run gen:crd`)',
    (path, render) => {
      expect(readFileSync(path, 'utf8')).toBe(render());
    },
  );
});
