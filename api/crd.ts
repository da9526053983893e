// Builds the HeldJob and OnceRecord CustomResourceDefinitions from the zod schemas in
// heldjob-schema.ts and once-record-schema.ts.
import { z } from 'zod';
import { heldJobSpecSchema, heldJobStatusSchema } from './heldjob-schema.js';
import { onceRecordSpecSchema } from './once-record-schema.js';
import {
  API_GROUP,
  API_VERSION,
  HELDJOB_KIND,
  HELDJOB_PLURAL,
  HELDJOB_SHORT_NAMES,
  HELDJOB_SINGULAR,
  ONCE_RECORD_KIND,
  ONCE_RECORD_PLURAL,
  ONCE_RECORD_SINGULAR,
} from './vocabulary.js';

type Schema = Record<string, unknown>;

function isObjectSchema(s: Schema): boolean {
  return s['type'] === 'object';
}

/**
 * Turns zod's JSON Schema into a Kubernetes structural schema:
 * - a union of objects becomes one object holding every branch's properties, exactly one
 *   of which may be set (min/maxProperties 1);
 * - a union of string enums or constants becomes one enum;
 * - a record keeps its value schema as `additionalProperties` (its key schema goes);
 * - otherwise `additionalProperties` is dropped: where unknown fields must survive (so that a stale
 *   schema can never silently prune a term of a wait) the schema says
 *   x-kubernetes-preserve-unknown-fields and the operator's strict re-check refuses them.
 */
export function toStructural(input: Schema): Schema {
  const s: Schema = { ...input };
  delete s['$schema'];
  delete s['propertyNames'];
  const additional = s['additionalProperties'];
  delete s['additionalProperties'];
  // A record (a map of names to values) keeps its value schema: that is how a structural
  // schema says "any key, values of this type".
  if (s['properties'] === undefined && typeof additional === 'object' && additional !== null) {
    s['additionalProperties'] = toStructural(additional as Schema);
  }
  const anyOf = s['anyOf'] as Schema[] | undefined;
  if (anyOf) {
    delete s['anyOf'];
    const branches = anyOf.map(toStructural);
    if (branches.every(isObjectSchema)) {
      const properties: Schema = {};
      for (const b of branches) Object.assign(properties, b['properties'] as Schema);
      return {
        ...s,
        type: 'object',
        properties,
        minProperties: 1,
        maxProperties: 1,
        'x-kubernetes-preserve-unknown-fields': true,
      };
    }
    if (branches.every((b) => b['type'] === 'string' && (b['enum'] || b['const'] !== undefined))) {
      const values = branches.flatMap((b) => (b['enum'] as string[] | undefined) ?? [b['const'] as string]);
      return { ...s, type: 'string', enum: values };
    }
    throw new Error(`cannot express this union in a structural schema: ${JSON.stringify(anyOf)}`);
  }
  if (s['const'] !== undefined) {
    s['enum'] = [s['const']];
    delete s['const'];
  }
  const props = s['properties'] as Schema | undefined;
  if (props) {
    const out: Schema = {};
    for (const [k, v] of Object.entries(props)) out[k] = toStructural(v as Schema);
    if (Object.keys(out).length === 0) delete s['properties'];
    else s['properties'] = out;
  }
  if (s['items']) s['items'] = toStructural(s['items'] as Schema);
  return s;
}

function jsonSchema(schema: z.ZodType): Schema {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw' });
}

/** What makes one of waitgate's namespaced kinds: the rest of a CRD is the same for each. */
interface KindDefinition {
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames?: readonly string[];
  readonly description: string;
  readonly columns: readonly Schema[];
  readonly spec: Schema;
  /** With a status subresource, and this status schema. */
  readonly status?: Schema;
}

function namespacedCrd(d: KindDefinition): Schema {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${d.plural}.${API_GROUP}` },
    spec: {
      group: API_GROUP,
      names: {
        kind: d.kind,
        listKind: `${d.kind}List`,
        plural: d.plural,
        singular: d.singular,
        ...(d.shortNames ? { shortNames: [...d.shortNames] } : {}),
        categories: ['waitgate'],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: API_VERSION,
          served: true,
          storage: true,
          ...(d.status ? { subresources: { status: {} } } : {}),
          additionalPrinterColumns: [...d.columns],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: d.description,
              required: ['spec'],
              properties: {
                apiVersion: {
                  type: 'string',
                  description: `The versioned schema of this representation of an object (${API_GROUP}/${API_VERSION}).`,
                },
                kind: { type: 'string', description: `The REST resource this object represents (${d.kind}).` },
                // The apiserver allows no more than this for metadata (ObjectMeta is its own).
                metadata: { type: 'object' },
                spec: d.spec,
                ...(d.status ? { status: d.status } : {}),
              },
            },
          },
        },
      ],
    },
  };
}

export function buildCrd(): Schema {
  const spec = toStructural(jsonSchema(heldJobSpecSchema));
  // Unknown spec fields are kept so a misspelt or newer field reaches the operator and is
  // refused loudly (wait-unreadable) instead of being pruned into a wait that never happens.
  spec['x-kubernetes-preserve-unknown-fields'] = true;
  return namespacedCrd({
    kind: HELDJOB_KIND,
    plural: HELDJOB_PLURAL,
    singular: HELDJOB_SINGULAR,
    shortNames: HELDJOB_SHORT_NAMES,
    description: 'A job held unstarted until every wait condition it names has cleared.',
    columns: [
      { name: 'Target', type: 'string', jsonPath: '.spec.target' },
      { name: 'Waiting For', type: 'string', jsonPath: '.status.waitLabel' },
      { name: 'State', type: 'string', jsonPath: '.status.phase' },
      {
        name: 'Waited',
        type: 'date',
        jsonPath: '.status.waitingSince',
        description: 'How long it has waited so far (empty once it stopped waiting).',
      },
      // A future instant as an absolute time: a date column would print <invalid> for it.
      { name: 'Next Check', type: 'string', jsonPath: '.status.nextCheckAt' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      { name: 'Reason', type: 'string', jsonPath: '.status.reason', priority: 1 },
      { name: 'Job', type: 'string', jsonPath: '.status.jobName', priority: 1 },
      { name: 'Checks', type: 'integer', jsonPath: '.status.checks', priority: 1 },
      { name: 'Last Exit', type: 'integer', jsonPath: '.status.lastExitCode', priority: 1 },
      { name: 'Releases', type: 'string', jsonPath: '.status.releaseAt', priority: 1 },
      { name: 'Gives Up', type: 'string', jsonPath: '.status.givesUpAt', priority: 1 },
    ],
    spec,
    status: toStructural(jsonSchema(heldJobStatusSchema)),
  });
}

/**
 * The OnceRecord CRD: a spec of ids, every field required and nothing else kept (a record the
 * receiver cannot read spends its trigger, so admission refuses one it could not read).
 */
export function buildOnceRecordCrd(): Schema {
  return namespacedCrd({
    kind: ONCE_RECORD_KIND,
    plural: ONCE_RECORD_PLURAL,
    singular: ONCE_RECORD_SINGULAR,
    description: 'The record that a once trigger has fired for a target: no later delivery fires it again there.',
    columns: [
      { name: 'Trigger', type: 'string', jsonPath: '.spec.trigger' },
      { name: 'Target', type: 'string', jsonPath: '.spec.target' },
      { name: 'State', type: 'string', jsonPath: '.spec.state' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      { name: 'HeldJob', type: 'string', jsonPath: '.spec.heldJob', priority: 1 },
      { name: 'Delivery', type: 'string', jsonPath: '.spec.delivery', priority: 1 },
    ],
    spec: toStructural(jsonSchema(onceRecordSpecSchema)),
  });
}
