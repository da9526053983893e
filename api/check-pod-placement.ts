// Where check Pods run and what they pull with: the operator's defaults
// (WAITGATE_CHECK_POD_DEFAULTS, from the chart's operator.checkPods) and a profile's own
// nodeSelector, tolerations and priorityClassName, which replace the defaults key by key.
// imagePullSecrets and affinity come only from the defaults. One home: the operator's config,
// the profile schema (api/profiles.ts) and the check Pod builder (operator/checks/pod-check.ts)
// all use these schemas and checkPodPlacement.
import { z } from 'zod';

/** A DNS subdomain (RFC 1123): a Secret or PriorityClass name. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const isSubdomain = (s: string) => s.length <= 253 && DNS_SUBDOMAIN.test(s);
/** A label key: an optional DNS-subdomain prefix and '/', then a name of up to 63 characters. */
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const isLabelKey = (k: string) => {
  const slash = k.lastIndexOf('/');
  const name = slash < 0 ? k : k.slice(slash + 1);
  const prefix = slash < 0 ? undefined : k.slice(0, slash);
  return name.length <= 63 && LABEL_NAME.test(name) && (prefix === undefined || isSubdomain(prefix));
};
const isLabelValue = (v: string) => v === '' || (v.length <= 63 && LABEL_NAME.test(v));

export const TolerationOperator = { Exists: 'Exists', Equal: 'Equal' } as const;
export type TolerationOperator = (typeof TolerationOperator)[keyof typeof TolerationOperator];
export const TaintEffect = { NoSchedule: 'NoSchedule', PreferNoSchedule: 'PreferNoSchedule', NoExecute: 'NoExecute' } as const;
export type TaintEffect = (typeof TaintEffect)[keyof typeof TaintEffect];

export const nodeSelectorSchema = z
  .record(z.string(), z.string({ error: 'nodeSelector values must be strings (label values)' }), {
    error: 'nodeSelector must be an object of label keys to label values',
  })
  .superRefine((m, ctx) => {
    for (const [k, v] of Object.entries(m)) {
      if (!isLabelKey(k)) ctx.addIssue({ code: 'custom', path: [k], message: `nodeSelector: ${JSON.stringify(k)} is not a label key` });
      else if (!isLabelValue(v)) {
        ctx.addIssue({ code: 'custom', path: [k], message: `nodeSelector ${k}: ${JSON.stringify(v)} is not a label value` });
      }
    }
  });

export const tolerationSchema = z
  .object(
    {
      key: z.string({ error: 'tolerations: key must be a string (a taint key)' }).optional(),
      operator: z.enum(Object.values(TolerationOperator), { error: 'tolerations: operator must be "Exists" or "Equal"' }).optional(),
      value: z.string({ error: 'tolerations: value must be a string' }).optional(),
      effect: z
        .enum(Object.values(TaintEffect), { error: 'tolerations: effect must be "NoSchedule", "PreferNoSchedule" or "NoExecute"' })
        .optional(),
      tolerationSeconds: z.number({ error: 'tolerations: tolerationSeconds must be an integer' }).int().optional(),
    },
    { error: 'tolerations: each toleration must be an object {key, operator, value, effect, tolerationSeconds}' },
  )
  .strict()
  .refine((t) => t.operator !== TolerationOperator.Exists || t.value === undefined || t.value === '', {
    error: 'tolerations: a toleration with operator "Exists" has no value',
  })
  .refine((t) => t.key !== undefined || t.operator === TolerationOperator.Exists, {
    error: 'tolerations: a toleration without a key must have operator "Exists"',
  });
export type Toleration = z.infer<typeof tolerationSchema>;

export const tolerationsSchema = z.array(tolerationSchema, { error: 'tolerations must be an array of tolerations' });

export const priorityClassNameSchema = z
  .string({ error: 'priorityClassName must be a string naming a PriorityClass' })
  .refine(isSubdomain, { error: (iss) => `priorityClassName ${JSON.stringify(iss.input)} is not a PriorityClass name` });

export const imagePullSecretsSchema = z.array(
  z
    .object(
      {
        name: z
          .string({ error: 'imagePullSecrets: name must be a string naming a Secret' })
          .refine(isSubdomain, { error: (iss) => `imagePullSecrets: ${JSON.stringify(iss.input)} is not a Secret name` }),
      },
      { error: 'imagePullSecrets: each entry must be {"name": "<Secret>"}' },
    )
    .strict(),
  { error: 'imagePullSecrets must be an array of {"name": "<Secret>"}' },
);

/** A Pod's affinity, passed through as written: its three kinds, each an object. */
export const affinitySchema = z
  .object(
    {
      nodeAffinity: z.record(z.string(), z.unknown(), { error: 'affinity.nodeAffinity must be an object' }).optional(),
      podAffinity: z.record(z.string(), z.unknown(), { error: 'affinity.podAffinity must be an object' }).optional(),
      podAntiAffinity: z.record(z.string(), z.unknown(), { error: 'affinity.podAntiAffinity must be an object' }).optional(),
    },
    { error: 'affinity must be an object (a Pod affinity)' },
  )
  .strict();

/** WAITGATE_CHECK_POD_DEFAULTS: exactly these five keys, each optional. */
export const checkPodDefaultsSchema = z
  .object(
    {
      imagePullSecrets: imagePullSecretsSchema.optional(),
      nodeSelector: nodeSelectorSchema.optional(),
      tolerations: tolerationsSchema.optional(),
      affinity: affinitySchema.optional(),
      priorityClassName: priorityClassNameSchema.optional(),
    },
    { error: 'must be a JSON object with the keys imagePullSecrets, nodeSelector, tolerations, affinity, priorityClassName' },
  )
  .strict();
export type CheckPodDefaults = z.infer<typeof checkPodDefaultsSchema>;

/** What a profile may say of its own check Pod's placement. */
export interface ProfilePlacement {
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly tolerations?: readonly Toleration[];
  readonly priorityClassName?: string;
}

/** The placement fields a check Pod's spec carries: set keys only. */
export interface CheckPodPlacement {
  readonly imagePullSecrets?: readonly { readonly name: string }[];
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly tolerations?: readonly Toleration[];
  readonly affinity?: CheckPodDefaults['affinity'];
  readonly priorityClassName?: string;
}

/**
 * The check Pod's placement: the defaults, with each of nodeSelector, tolerations and
 * priorityClassName the profile sets replacing the default's whole (never merged within a key).
 * Empty lists and objects are left out. Pure.
 */
export function checkPodPlacement(defaults: CheckPodDefaults | undefined, profile: ProfilePlacement = {}): CheckPodPlacement {
  const d = defaults ?? {};
  const nodeSelector = profile.nodeSelector ?? d.nodeSelector;
  const tolerations = profile.tolerations ?? d.tolerations;
  const priorityClassName = profile.priorityClassName ?? d.priorityClassName;
  return {
    ...(d.imagePullSecrets && d.imagePullSecrets.length > 0 ? { imagePullSecrets: d.imagePullSecrets } : {}),
    ...(nodeSelector && Object.keys(nodeSelector).length > 0 ? { nodeSelector } : {}),
    ...(tolerations && tolerations.length > 0 ? { tolerations } : {}),
    ...(d.affinity && Object.keys(d.affinity).length > 0 ? { affinity: d.affinity } : {}),
    ...(priorityClassName !== undefined && priorityClassName !== '' ? { priorityClassName } : {}),
  };
}

/**
 * WAITGATE_CHECK_POD_DEFAULTS parsed: the defaults, or the problems, each naming the key
 * (`nodeSelector.disktype: ...`). Empty or unset: no defaults. Never throws.
 */
export function parseCheckPodDefaults(
  raw: string | undefined,
): { readonly ok: true; readonly defaults: CheckPodDefaults } | { readonly ok: false; readonly problems: readonly string[] } {
  if (raw === undefined || raw.trim() === '') return { ok: true, defaults: {} };
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch (err) {
    return { ok: false, problems: [`is not valid JSON: ${err instanceof Error ? err.message : String(err)}`] };
  }
  const r = checkPodDefaultsSchema.safeParse(doc);
  if (r.success) return { ok: true, defaults: r.data };
  return {
    ok: false,
    problems: r.error.issues.map((i) => {
      const path = i.path.map(String).join('.');
      const keys = i.code === 'unrecognized_keys' ? i.keys : [];
      if (keys.length > 0) {
        const named = keys.map((k) => JSON.stringify(k)).join(', ');
        return path === ''
          ? `unknown key ${named}: the keys are imagePullSecrets, nodeSelector, tolerations, affinity, priorityClassName`
          : `${path}: unknown key ${named}`;
      }
      return path === '' ? i.message : `${path}: ${i.message}`;
    }),
  };
}
