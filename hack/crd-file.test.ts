import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { CRD_PATH, renderCrdYaml } from './crd-file.js';

describe('crds/', () => {
  test('is generated from the current schema (run `npm run build && npm run gen:crd`)', () => {
    expect(readFileSync(CRD_PATH, 'utf8')).toBe(renderCrdYaml());
  });
});
