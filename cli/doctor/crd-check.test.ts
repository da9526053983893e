import { describe, expect, test } from '@jest/globals';
import { buildCrd, buildOnceRecordCrd } from '../../api/crd.js';
import { crdFindings, onceRecordCrdFindings, schemaDifferences } from './crd-check.js';

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
type Crd = {
  spec: {
    versions: { name: string; schema: { openAPIV3Schema: { properties: Record<string, { properties: Record<string, unknown> }> } } }[];
  };
};

describe('doctor: the installed CRD against this waitgate', () => {
  test('the same schema, keys in any order, is ok', () => {
    const installed = clone(buildCrd()) as unknown as Crd;
    const spec = installed.spec.versions[0]!.schema.openAPIV3Schema.properties['spec']!;
    spec.properties = Object.fromEntries(Object.entries(spec.properties).reverse());
    expect(crdFindings(installed)).toEqual([{ level: 'ok', area: 'crd', message: "heldjobs.waitgate.dev matches this waitgate's schema" }]);
  });

  test('an installed CRD without spec.waitFor is the skew trap', () => {
    const installed = clone(buildCrd()) as unknown as Crd;
    delete installed.spec.versions[0]!.schema.openAPIV3Schema.properties['spec']!.properties['waitFor'];
    const [f] = crdFindings(installed);
    expect(f).toMatchObject({ level: 'FAIL', area: 'crd' });
    expect(f?.message).toMatch(/has no spec\.waitFor: it is older than this operator .*skew trap/);
  });

  test('any other difference fails too, naming where', () => {
    const installed = clone(buildCrd()) as unknown as Crd;
    delete installed.spec.versions[0]!.schema.openAPIV3Schema.properties['status']!.properties['waitLabel'];
    const [f] = crdFindings(installed);
    expect(f?.level).toBe('FAIL');
    expect(f?.message).toMatch(/differs .* at 1 place: properties\.status\.properties\.waitLabel \(missing in the cluster\)/);
  });

  test('not installed, or without the version, fails', () => {
    expect(crdFindings(undefined)[0]?.message).toMatch(/is not installed/);
    expect(crdFindings({ spec: { versions: [{ name: 'v1beta1' }] } })[0]?.message).toMatch(/serves no v1alpha1 schema/);
  });

  test('schemaDifferences names missing, extra and changed paths', () => {
    expect(schemaDifferences({ a: 1, b: { c: [1, 2] }, d: 'x' }, { a: 1, b: { c: [1, 3] }, e: 'y' })).toEqual([
      { path: 'b.c[1]', kind: 'changed' },
      { path: 'd', kind: 'missing' },
      { path: 'e', kind: 'extra' },
    ]);
  });
});

describe('doctor: the installed OnceRecord CRD', () => {
  test.each<[string, unknown, string, RegExp]>([
    ['the same schema: ok', buildOnceRecordCrd(), 'ok', /^oncerecords\.waitgate\.dev matches this waitgate's schema$/],
    [
      'not installed: the receiver cannot record a once trigger',
      undefined,
      'FAIL',
      /is not installed: the receiver cannot record a once trigger/,
    ],
    [
      'a field missing: differs, naming it',
      (() => {
        const c = clone(buildOnceRecordCrd()) as unknown as Crd;
        delete c.spec.versions[0]!.schema.openAPIV3Schema.properties['spec']!.properties['delivery'];
        return c;
      })(),
      'FAIL',
      /differs .* properties\.spec\.properties\.delivery \(missing in the cluster\)/,
    ],
  ])('%s', (_name, installed, level, message) => {
    const [f, ...rest] = onceRecordCrdFindings(installed);
    expect(rest).toEqual([]);
    expect(f?.level).toBe(level);
    expect(f?.message).toMatch(message);
  });
});
