// Is the HeldJob CRD in the cluster the one this waitgate was built with? A CRD older than
// the operator may prune spec.waitFor on admission: the HeldJob then carries no wait, and the
// job runs at once looking perfectly normal (the skew trap). Pure: the CRD comes in as data.
import { buildCrd, buildOnceRecordCrd } from '../../api/crd.js';
import { API_GROUP, API_VERSION, HELDJOB_PLURAL, ONCE_RECORD_PLURAL } from '../../api/vocabulary.js';
import { fail, ok, type Finding } from './findings.js';

export const CRD_NAME = `${HELDJOB_PLURAL}.${API_GROUP}`;
export const ONCE_RECORD_CRD_NAME = `${ONCE_RECORD_PLURAL}.${API_GROUP}`;
const MAX_SHOWN = 3;

export interface SchemaDifference {
  /** A dotted path into openAPIV3Schema. */
  readonly path: string;
  /** missing: this waitgate has it, the cluster does not; extra: the other way; changed: both, unequal. */
  readonly kind: 'missing' | 'extra' | 'changed';
}

/** Every difference between two JSON values, as paths; key order does not matter. */
export function schemaDifferences(expected: unknown, installed: unknown, path = ''): SchemaDifference[] {
  if (isRecord(expected) && isRecord(installed)) {
    const out: SchemaDifference[] = [];
    for (const key of new Set([...Object.keys(expected), ...Object.keys(installed)])) {
      const at = path ? `${path}.${key}` : key;
      if (!(key in installed)) out.push({ path: at, kind: 'missing' });
      else if (!(key in expected)) out.push({ path: at, kind: 'extra' });
      else out.push(...schemaDifferences(expected[key], installed[key], at));
    }
    return out;
  }
  if (Array.isArray(expected) && Array.isArray(installed) && expected.length === installed.length) {
    return expected.flatMap((e, i) => schemaDifferences(e, installed[i], `${path}[${i}]`));
  }
  return JSON.stringify(expected) === JSON.stringify(installed) ? [] : [{ path: path || '(root)', kind: 'changed' }];
}

/** installed: the CRD object as the apiserver returns it (raw JSON), or undefined when absent. */
export function crdFindings(installed: unknown, expected: Record<string, unknown> = buildCrd()): Finding[] {
  if (installed === undefined) {
    return [fail('crd', `${CRD_NAME} is not installed: no HeldJob can be created (apply crds/ from this version)`)];
  }
  const want = schemaOf(expected);
  const have = schemaOf(installed);
  if (have === undefined) {
    return [
      fail('crd', `${CRD_NAME} serves no ${API_VERSION} schema: it is not the CRD this waitgate needs (apply crds/ from this version)`),
    ];
  }
  const spec = (have as { properties?: { spec?: { properties?: Record<string, unknown> } } }).properties?.spec?.properties;
  if (spec === undefined || !('waitFor' in spec)) {
    return [
      fail(
        'crd',
        `${CRD_NAME} has no spec.waitFor: it is older than this operator and may drop every wait on admission, so held jobs would run at once (the skew trap). Apply crds/ from this version.`,
      ),
    ];
  }
  return differenceFindings(CRD_NAME, want, have);
}

/**
 * The OnceRecord CRD: without it the receiver cannot record that a once trigger fired, so
 * every delivery for a once trigger fails (500, and the forge retries).
 */
export function onceRecordCrdFindings(installed: unknown, expected: Record<string, unknown> = buildOnceRecordCrd()): Finding[] {
  if (installed === undefined) {
    return [
      fail(
        'crd',
        `${ONCE_RECORD_CRD_NAME} is not installed: the receiver cannot record a once trigger, so every delivery for one fails (apply crds/ from this version)`,
      ),
    ];
  }
  const have = schemaOf(installed);
  if (have === undefined) {
    return [
      fail(
        'crd',
        `${ONCE_RECORD_CRD_NAME} serves no ${API_VERSION} schema: it is not the CRD this waitgate needs (apply crds/ from this version)`,
      ),
    ];
  }
  return differenceFindings(ONCE_RECORD_CRD_NAME, schemaOf(expected), have);
}

function differenceFindings(name: string, want: unknown, have: unknown): Finding[] {
  const diffs = schemaDifferences(want, have);
  if (diffs.length === 0) return [ok('crd', `${name} matches this waitgate's schema`)];
  const shown = diffs
    .slice(0, MAX_SHOWN)
    .map((d) => `${d.path} (${d.kind === 'missing' ? 'missing in the cluster' : d.kind === 'extra' ? 'only in the cluster' : 'differs'})`)
    .join(', ');
  const older = diffs.some((d) => d.kind === 'missing');
  return [
    fail(
      'crd',
      `${name} differs from this waitgate's schema at ${diffs.length} ${diffs.length === 1 ? 'place' : 'places'}: ${shown}${diffs.length > MAX_SHOWN ? ', ...' : ''}. ${older ? 'An older CRD may prune fields the operator relies on (the skew trap); apply' : 'Apply'} crds/ from the same version as the operator.`,
    ),
  ];
}

function schemaOf(crd: unknown): unknown {
  const versions = (crd as { spec?: { versions?: unknown } } | null)?.spec?.versions;
  if (!Array.isArray(versions)) return undefined;
  const v = versions.find((x) => isRecord(x) && x['name'] === API_VERSION) as { schema?: { openAPIV3Schema?: unknown } } | undefined;
  return v?.schema?.openAPIV3Schema;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
