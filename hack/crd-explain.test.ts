// `kubectl explain heldjob` says what every field is: each property of each CRD in crds/ has a
// description, and every counter refuses a negative value.
import { describe, expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';

interface Schema {
  readonly description?: string;
  readonly type?: string;
  readonly minimum?: number;
  readonly properties?: Record<string, Schema>;
  readonly items?: Schema;
  readonly additionalProperties?: Schema | boolean;
}

/** Every property below `s`, by its path as kubectl explain names it (`status.waits.state`). */
function fieldsOf(s: Schema, path = ''): { path: string; schema: Schema }[] {
  const out: { path: string; schema: Schema }[] = [];
  for (const [name, child] of Object.entries(s.properties ?? {})) {
    const p = path ? `${path}.${name}` : name;
    out.push({ path: p, schema: child }, ...fieldsOf(child, p));
  }
  if (s.items) out.push(...fieldsOf(s.items, path));
  if (typeof s.additionalProperties === 'object') out.push(...fieldsOf(s.additionalProperties, path));
  return out;
}

/** An integer field, or a map of integers, under its path. */
function integersOf(s: Schema, path = ''): { path: string; schema: Schema }[] {
  return fieldsOf(s, path).flatMap(({ path: p, schema }) => {
    if (schema.type === 'integer') return [{ path: p, schema }];
    const values = schema.additionalProperties;
    return typeof values === 'object' && values.type === 'integer' ? [{ path: `${p}.*`, schema: values }] : [];
  });
}

const crds = readdirSync('crds')
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => {
    const doc = parse(readFileSync(`crds/${f}`, 'utf8')) as {
      spec: { versions: { schema: { openAPIV3Schema: Schema } }[] };
    };
    return { file: f, root: doc.spec.versions[0]!.schema.openAPIV3Schema };
  });

/** Integers that are not counts: an exit code may be any number a process gives. */
const SIGNED = new Set(['status.lastExitCode']);

describe('kubectl explain over crds/', () => {
  test('both CRDs are read', () => {
    expect(crds.map((c) => c.file).sort()).toEqual(['waitgate.dev_heldjobs.yaml', 'waitgate.dev_oncerecords.yaml']);
  });

  test.each(crds.map((c) => [c.file, c.root] as const))('%s: every field has a description (coverage 100 %%)', (_file, root) => {
    const fields = fieldsOf(root);
    // metadata is the apiserver's own: a CRD may say nothing of it (kubectl explain describes ObjectMeta).
    const missing = fields.filter((f) => f.path !== 'metadata' && !f.schema.description?.trim()).map((f) => f.path);
    expect(fields.length).toBeGreaterThan(5);
    expect(missing).toEqual([]);
  });

  test.each(crds.map((c) => [c.file, c.root] as const))('%s: every counter has minimum 0', (_file, root) => {
    const unbounded = integersOf(root)
      .filter((f) => !SIGNED.has(f.path) && f.schema.minimum !== 0)
      .map((f) => f.path);
    expect(unbounded).toEqual([]);
  });

  test('the walk finds a field without a description and a counter without a minimum', () => {
    const sample: Schema = {
      properties: {
        spec: { description: 'x', properties: { bare: { type: 'string' } } },
        status: {
          description: 'y',
          properties: {
            n: { type: 'integer', description: 'z' },
            m: { type: 'object', description: 'w', additionalProperties: { type: 'integer' } },
          },
        },
      },
    };
    expect(
      fieldsOf(sample)
        .filter((f) => !f.schema.description)
        .map((f) => f.path),
    ).toEqual(['spec.bare']);
    expect(integersOf(sample).map((f) => f.path)).toEqual(['status.n', 'status.m.*']);
  });
});
