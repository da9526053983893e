// Property tests: whatever the input, the checks answer (never throw), and every answer is
// well formed. Loaded waits always satisfy the HeldJob schema the CRD is generated from.
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { waitForSchema } from '../heldjob-schema.js';
import { LABEL_ON_KEYS, readsAsRepositories } from './on-rules.js';
import { isTriggerRefusalCode } from './refusal-codes.js';
import { parseRepositoryPattern } from './repositories.js';
import { checkTriggers, parseTriggersFile } from './triggers-file.js';
import type { TriggersCheck } from './types.js';
import { checkWaitFor } from './wait-for-rules.js';

/** Throws (failing the property) unless `r` is a well-formed answer. */
function wellFormed(r: TriggersCheck): true {
  if (r.ok) {
    for (const t of r.triggers) {
      if (t.on.type !== 'label') throw new Error(`loaded a trigger that is not a label trigger: ${JSON.stringify(t)}`);
      if (typeof t.name !== 'string' || t.name.trim() === '') throw new Error(`loaded a trigger without a name: ${JSON.stringify(t)}`);
      if (Object.keys(t.on).some((k) => !(LABEL_ON_KEYS as readonly string[]).includes(k))) {
        throw new Error(`loaded an on with a key it does not read: ${JSON.stringify(t.on)}`);
      }
      const repositories = t.on.repositories;
      if (repositories !== undefined && (repositories.length === 0 || !repositories.every((p) => parseRepositoryPattern(p).ok))) {
        throw new Error(`loaded on.repositories that cannot match: ${JSON.stringify(repositories)}`);
      }
      if (t.run.waitFor !== undefined) {
        if (t.run.waitFor.length < 1 || !waitForSchema.safeParse(t.run.waitFor).success) {
          throw new Error(`loaded a waitFor the HeldJob schema refuses: ${JSON.stringify(t.run.waitFor)}`);
        }
        if (t.on.once === true || t.run.replicas !== undefined) {
          throw new Error(`loaded a wait in a refused combination: ${JSON.stringify(t)}`);
        }
      }
    }
    return true;
  }
  if (r.refusals.length === 0) throw new Error('refused with no refusal');
  for (const x of r.refusals) {
    if (!isTriggerRefusalCode(x.code)) throw new Error(`code outside the vocabulary: ${String(x.code)}`);
    if (typeof x.path !== 'string' || !x.path.startsWith('$')) throw new Error(`bad path: ${String(x.path)}`);
    if (typeof x.message !== 'string' || x.message.trim() === '' || x.message.includes('\n')) throw new Error(`bad message: ${x.message}`);
    if (typeof x.where !== 'string' || x.where === '') throw new Error('no where');
  }
  return true;
}

// Near-valid pieces: mostly right, often wrong in one of the ways a person gets it wrong.
/** `arb` in `weight` cases out of 64 more, otherwise absent. */
const sometimes = <T>(arb: fc.Arbitrary<T>, weight = 16) =>
  fc.oneof({ weight: 64, arbitrary: fc.constant(undefined) }, { weight, arbitrary: arb });
/** Drops the keys whose value is undefined, as JSON would. */
const defined = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
const zone = fc.constantFrom('Z', '+02:00', '-05:30', '+00:00', '-12:00', '+14:00');
const fraction = fc.constantFrom('', '.5', '.250', '.123456789');
const validInstant = fc
  .tuple(fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2999-12-31T23:59:59Z'), noInvalidDate: true }), fraction, zone)
  .map(([d, frac, z]) => `${d.toISOString().slice(0, 19)}${frac}${z}`);
const afterValue = fc.oneof(
  { weight: 12, arbitrary: validInstant },
  validInstant.map((s) => s.replace(/(Z|[+-]\d\d:\d\d)$/, '')),
  fc.constantFrom('2026-02-31T09:00:00Z', '2026-09-01T24:00:00Z', '2026-09-01T09:00:00+24:00', 'tomorrow', '', '2026-09-01'),
  fc.string(),
  fc.jsonValue(),
);
const profileName = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/);
const profileValue = fc.oneof(
  { weight: 24, arbitrary: fc.constantFrom('jira', 'ci', 'deploy-window', 'a', 'b', 'c') },
  { weight: 4, arbitrary: profileName },
  fc.constantFrom('Jira', '-x', 'x-', '', 'wait_jira', 'p'.repeat(64)),
  fc.string(),
  fc.jsonValue(),
);
const condition: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: afterValue.map((after) => ({ after })) },
  { weight: 16, arbitrary: profileValue.map((profile) => ({ profile })) },
  fc.constantFrom({ exclusive: true }, {}, { After: '2026-09-01T09:00:00Z' }, null, 'jira'),
  fc.record({ after: afterValue, profile: profileValue }),
  fc.tuple(fc.string(), fc.jsonValue()).map(([k, v]) => ({ [k]: v })),
  fc.jsonValue(),
);
const waitFor = fc.oneof(
  { weight: 24, arbitrary: fc.array(condition, { minLength: 1, maxLength: 4 }) },
  fc.array(condition, { maxLength: 6 }),
  fc.jsonValue(),
);
const job = fc.oneof(
  { weight: 40, arbitrary: fc.constant({ backoffLimit: 0, template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } }) },
  fc.constantFrom({}, { template: 'x' }, [], null, undefined),
  fc.jsonValue(),
);
const repositoryValue = fc.oneof(
  { weight: 16, arbitrary: fc.constantFrom('acme/web', 'acme/*', 'group/sub/*', 'group/**', 'github:acme/web', 'gitlab:g/p') },
  fc.constantFrom('', ' acme/web', 'acme', '*/web', 'acme/we?', 'acme//web', 'svn:acme/web', 'acme/web**', 'github:a/b/c'),
  fc.string(),
  fc.jsonValue(),
);
const repositories = fc.oneof(
  { weight: 24, arbitrary: fc.array(repositoryValue, { minLength: 1, maxLength: 3 }) },
  fc.constant([]),
  fc.jsonValue(),
);
const on = fc.oneof(
  {
    weight: 40,
    arbitrary: fc
      .record({
        type: fc.constant('label'),
        any: fc.oneof({ weight: 40, arbitrary: fc.constant(['waitgate:go']) }, fc.array(fc.string(), { maxLength: 3 }), fc.jsonValue()),
        once: sometimes(fc.oneof({ weight: 8, arbitrary: fc.boolean() }, fc.jsonValue())),
        repositories: sometimes(repositories),
        repos: sometimes(repositories, 2),
        waitFor: sometimes(waitFor, 2),
      })
      .map(defined),
  },
  {
    weight: 4,
    arbitrary: fc
      .record({ type: fc.constant('cron'), schedule: fc.oneof(fc.constant('0 9 * * *'), fc.jsonValue()), once: sometimes(fc.boolean()) })
      .map(defined),
  },
  fc.record({ type: fc.jsonValue(), any: fc.jsonValue() }, { requiredKeys: [] }),
  fc.jsonValue(),
);
const text = (value: string) => fc.oneof({ weight: 40, arbitrary: fc.constant(value) }, fc.jsonValue());
const run = fc.oneof(
  {
    weight: 40,
    arbitrary: fc
      .record({
        kind: text('github'),
        flow: text('deploy'),
        replicas: sometimes(fc.oneof(fc.integer({ min: -2, max: 5 }), fc.double(), fc.jsonValue()), 8),
        waitFor: sometimes(waitFor, 128),
        waitfor: sometimes(waitFor, 2),
        wait_for: sometimes(waitFor, 2),
        job,
        extra: sometimes(fc.jsonValue()),
      })
      .map(defined),
  },
  fc.jsonValue(),
);
const entry = fc.oneof(
  {
    weight: 40,
    arbitrary: fc
      .record({
        name: fc.oneof(
          { weight: 40, arbitrary: fc.constantFrom('deploy', 'fix', 'nightly', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i') },
          fc.string(),
          fc.jsonValue(),
        ),
        on,
        run,
      })
      .map(defined),
  },
  fc.record({ name: fc.jsonValue(), on: fc.jsonValue(), run: fc.jsonValue() }, { requiredKeys: [] }),
  fc.jsonValue(),
);
const nearValidFile = fc.array(entry, { maxLength: 3 });

/** Files valid by construction: every one must load, with its waits intact. */
const validFile = fc
  .uniqueArray(
    fc.record({
      name: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== ''),
      waits: fc.option(
        fc
          .tuple(fc.option(validInstant, { nil: undefined }), fc.uniqueArray(profileName, { maxLength: 3 }))
          .filter(([a, p]) => a !== undefined || p.length > 0),
        { nil: undefined },
      ),
      repositories: fc.option(
        fc.array(fc.constantFrom('acme/web', 'Acme/*', 'group/sub/*', 'group/**/web', 'gitlab:g/p'), { minLength: 1, maxLength: 3 }),
        {
          nil: undefined,
        },
      ),
      extra: fc.dictionary(
        fc.string().filter((k) => !/wait.?for/i.test(k.replace(/[\s_.-]/g, '')) && !readsAsRepositories(k)),
        fc.jsonValue(),
        { maxKeys: 2 },
      ),
    }),
    { selector: (e) => e.name, maxLength: 4 },
  )
  .map((entries) =>
    entries.map(({ name, waits, repositories, extra }) => ({
      name,
      on: { type: 'label', any: ['waitgate:go'], ...(repositories && { repositories }) },
      run: {
        ...extra,
        kind: 'github',
        flow: 'deploy',
        job: { template: {} },
        ...(waits && { waitFor: [...(waits[0] ? [{ after: waits[0] }] : []), ...waits[1].map((profile) => ({ profile }))] }),
      },
    })),
  );

describe('checkTriggers, whatever it is given', () => {
  test('never throws on arbitrary JSON, and answers well formed (3,000 runs)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => wellFormed(checkTriggers(v))),
      { numRuns: 3_000 },
    );
  });

  test('never throws on arbitrary JavaScript values (2,000 runs)', () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBigInt: true,
          withMap: true,
          withSet: true,
          withDate: true,
          withNullPrototype: true,
          withSparseArray: true,
          withBoxedValues: true,
        }),
        (v) => wellFormed(checkTriggers(v)),
      ),
      {
        numRuns: 2_000,
      },
    );
  });

  test('never throws on near-valid files, and answers well formed (4,000 runs)', () => {
    fc.assert(
      fc.property(nearValidFile, (file) => {
        wellFormed(checkTriggers(file));
        // The text form answers the same as the value (JSON.stringify writes no repeated keys).
        expect(parseTriggersFile(JSON.stringify(file))).toEqual(checkTriggers(JSON.parse(JSON.stringify(file))));
      }),
      { numRuns: 4_000 },
    );
  });

  test('never throws on arbitrary text (1,000 runs)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          nearValidFile.map((f) => JSON.stringify(f)),
        ),
        (text) => wellFormed(parseTriggersFile(text)),
      ),
      { numRuns: 1_000 },
    );
  });

  test('loads every valid-by-construction file, keeping names, waits and repositories (1,000 runs)', () => {
    fc.assert(
      fc.property(validFile, (file) => {
        const r = checkTriggers(file);
        if (!r.ok) throw new Error(JSON.stringify(r.refusals));
        expect(r.triggers.map((t) => [t.name, t.run.waitFor, t.on.repositories])).toEqual(
          file.map((e) => [e.name, e.run.waitFor, (e.on as { repositories?: string[] }).repositories]),
        );
      }),
      { numRuns: 1_000 },
    );
  });

  test('conditions come back exactly when nothing is refused (2,000 runs)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.array(condition, { maxLength: 6 }), fc.jsonValue()), (v) => {
        const r = checkWaitFor(v, '$[0].run.waitFor');
        expect(r.conditions === undefined).toBe(r.refusals.length > 0);
        for (const x of r.refusals) expect(x.path.startsWith('$[0].run.waitFor')).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  test('deeply nested values anywhere are refused, not thrown', () => {
    const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    for (const text of [
      deep,
      `[${deep}]`,
      `[{"name": ${deep}, "on": ${deep}, "run": {"kind": "a", "flow": "b", "replicas": ${deep}, "job": ${deep}, "waitFor": [${deep}, {"after": ${deep}}, {"profile": ${deep}}]}}]`,
    ]) {
      wellFormed(parseTriggersFile(text));
    }
  });
});
