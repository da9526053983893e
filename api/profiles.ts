// The profiles ConfigMap (`waitgate-profiles`). Its `profiles.json` key maps each profile
// name to how its check runs; each check script is another key of the same ConfigMap.
//
//   { "jira": { "mode": "exec", "script": "wait-jira.sh" },
//     "ci":   { "mode": "pod", "script": "wait-ci.sh", "image": "alpine:3.20", "resources": {...} },
//     "lock": { "script": "wait-lock.sh" },
//     "api":  { "script": "wait-api.sh", "secrets": ["jira"],
//               "env": { "JIRA_TOKEN": { "secret": "jira", "key": "token" } } } }
//
// A profile that names no mode runs in pod mode: its script in a Pod of its own, with no
// service-account token, in the profile's image or, when it names none, the operator's default
// check image (WAITGATE_CHECK_IMAGE, the waitgate image in the chart). Exec mode, a process of
// the operator with the operator's reach, is only ever an explicit choice.
//
// parseProfiles never throws: a broken ConfigMap is reported as plain-English problems, one
// per line, each naming the profile and the field.
import { z } from 'zod';
import { waitConditionSchema } from './heldjob-schema.js';
import type { DeclaredProfiles } from './refusal-rules.js';
import {
  envNameProblem,
  isSecretKey,
  isSecretName,
  MAX_PROFILE_ENV,
  MAX_PROFILE_SECRETS,
  SECRETS_MOUNT_ROOT,
  type SecretEnv,
} from './check-secrets.js';
import { nodeSelectorSchema, priorityClassNameSchema, tolerationsSchema, type ProfilePlacement } from './check-pod-placement.js';

export const PROFILES_CONFIGMAP = 'waitgate-profiles';
export const PROFILES_KEY = 'profiles.json';

/** How a profile's check runs: as a process of the operator, or in a Pod of its own. */
export const ProfileMode = {
  Exec: 'exec',
  Pod: 'pod',
} as const;
export type ProfileMode = (typeof ProfileMode)[keyof typeof ProfileMode];
export const PROFILE_MODES = Object.values(ProfileMode);

export interface Profile {
  readonly name: string;
  readonly mode: ProfileMode;
  /** The ConfigMap key holding the script. */
  readonly script: string;
  /**
   * The container image; pod mode only. Absent when the profile names none: the operator then
   * fills in its default check image (withCheckImage).
   */
  readonly image?: string;
  /** Container resources for pod mode, passed through untouched. */
  readonly resources?: Record<string, unknown>;
  /** Annotations for the check Pod (pod mode only), e.g. to keep a mesh sidecar out. */
  readonly annotations?: Record<string, string>;
  /**
   * Secrets of the operator's namespace mounted read-only in the check Pod, each at
   * SECRETS_MOUNT_ROOT/<name>/ (pod mode only; api/check-secrets.ts).
   */
  readonly secrets?: readonly string[];
  /** Environment variables of the check Pod read from keys of those Secrets (pod mode only). */
  readonly env?: Readonly<Record<string, SecretEnv>>;
  /**
   * The check Pod's nodeSelector, tolerations and priorityClassName (pod mode only): each set
   * replaces the operator's default for that key (api/check-pod-placement.ts).
   */
  readonly placement?: ProfilePlacement;
}

export type ProfilesCheck =
  { readonly ok: true; readonly profiles: ReadonlyMap<string, Profile> } | { readonly ok: false; readonly problems: readonly string[] };

/**
 * A ConfigMap key, and so a script's file name on disk: letters, digits, '-', '_' and '.',
 * never '.' or '..'. The same rule keeps ProfileScripts from writing outside its directory.
 */
export const SCRIPT_KEY_PATTERN = /^[-._a-zA-Z0-9]+$/;
export const SCRIPT_KEY_MAX = 253;

export function isScriptKey(key: string): boolean {
  return key.length <= SCRIPT_KEY_MAX && SCRIPT_KEY_PATTERN.test(key) && key !== '.' && key !== '..';
}

/** The same rule the HeldJob schema (and so the CRD) applies to a profile name. */
export function isProfileName(name: string): boolean {
  return waitConditionSchema.safeParse({ profile: name }).success;
}

const NAME_RULE = "1 to 63 lowercase letters, digits or '-', starting and ending with a letter or digit";
const KEY_RULE = "a ConfigMap key: letters, digits, '-', '_' or '.', not '.' or '..'";

const profileEntrySchema = z
  .object({
    mode: z.enum(PROFILE_MODES, { error: (iss) => `mode must be "exec" or "pod", but it is ${show(iss.input)}` }).default(ProfileMode.Pod),
    script: z
      .string({
        error: (iss) =>
          iss.input === undefined
            ? 'script is missing; it must name another key of this ConfigMap'
            : `script must be a string naming another key of this ConfigMap, but it is ${kindOf(iss.input)}`,
      })
      .refine(isScriptKey, { error: (iss) => `script ${show(iss.input)} is not ${KEY_RULE}` })
      .refine((key) => key !== PROFILES_KEY, { error: `script may not be ${PROFILES_KEY}, which holds the profiles themselves` }),
    image: z
      .string({ error: (iss) => `image must be a string naming a container image, but it is ${kindOf(iss.input)}` })
      .refine((s) => s.trim() !== '' && !/\s/.test(s), {
        error: (iss) => `image ${show(iss.input)} is not a container image reference`,
      })
      .optional(),
    resources: z
      .record(z.string(), z.unknown(), {
        error: (iss) => `resources must be an object (container resources), but it is ${kindOf(iss.input)}`,
      })
      .optional(),
    annotations: z
      .record(z.string(), z.string(), {
        error: (iss) => `annotations must be an object of strings (Pod annotations), but it is ${kindOf(iss.input)}`,
      })
      .optional(),
    secrets: z
      .array(
        z.string({ error: (iss) => `secrets must list Secret names (strings), but one is ${kindOf(iss.input)}` }).refine(isSecretName, {
          error: (iss) => `secrets: ${show(iss.input)} is not a Secret name (a DNS subdomain: lowercase letters, digits, '-' and '.')`,
        }),
        { error: (iss) => `secrets must be an array of Secret names, but it is ${kindOf(iss.input)}` },
      )
      .max(MAX_PROFILE_SECRETS, { error: `secrets may name at most ${MAX_PROFILE_SECRETS} Secrets` })
      .refine((names) => new Set(names).size === names.length, { error: 'secrets names a Secret twice' })
      .optional(),
    env: z
      .record(
        z.string(),
        z
          .object(
            {
              secret: z.string({ error: 'secret must be a string naming a Secret listed in secrets' }),
              key: z
                .string({ error: 'key must be a string naming a key of the Secret' })
                .refine(isSecretKey, { error: (iss) => `key ${show(iss.input)} is not a Secret key: letters, digits, '-', '_' or '.'` }),
            },
            { error: (iss) => `env: each variable must be {"secret": "<name>", "key": "<key>"}, but one is ${kindOf(iss.input)}` },
          )
          .strict(),
        { error: (iss) => `env must be an object mapping variable names to {"secret", "key"}, but it is ${kindOf(iss.input)}` },
      )
      .optional(),
    nodeSelector: nodeSelectorSchema.optional(),
    tolerations: tolerationsSchema.optional(),
    priorityClassName: priorityClassNameSchema.optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.mode === ProfileMode.Exec) {
      for (const field of ['image', 'resources', 'annotations', 'nodeSelector', 'tolerations', 'priorityClassName'] as const) {
        if (p[field] !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [field],
            message: `${field} is for pod mode only; an exec-mode profile runs its script as a process of the operator, so ${field} would do nothing`,
          });
        }
      }
      for (const field of ['secrets', 'env'] as const) {
        if (p[field] !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [field],
            message: `${field} is for pod mode only; an exec-mode profile runs as a process of the operator, which reads no Secret: remove "mode": "exec" to run it in a Pod of its own, where the Secrets are mounted`,
          });
        }
      }
    }
    const env = Object.entries(p.env ?? {});
    if (env.length > MAX_PROFILE_ENV) {
      ctx.addIssue({ code: 'custom', path: ['env'], message: `env may set at most ${MAX_PROFILE_ENV} variables` });
    }
    const listed = new Set(p.secrets ?? []);
    for (const [name, from] of env) {
      const problem = envNameProblem(name);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', path: ['env', name], message: `env: ${problem}` });
      else if (!listed.has(from.secret)) {
        ctx.addIssue({
          code: 'custom',
          path: ['env', name],
          message: `env ${name}: Secret ${show(from.secret)} is not in secrets; list it there too (every Secret a check reads is named in secrets)`,
        });
      }
    }
  });

/**
 * data: the ConfigMap's data (may be undefined). Checks profiles.json parses, each name is a
 * valid profile name, mode/script/image are right, and that each script key exists in data and
 * is non-empty. Never throws. Missing ConfigMap data or a missing profiles.json key is a
 * ConfigMap declaring no profiles: ok, with none.
 */
export function parseProfiles(data: Record<string, string> | undefined): ProfilesCheck {
  const raw = data?.[PROFILES_KEY];
  // No ConfigMap at all declares nothing; a ConfigMap without the key is a slip, not "no profiles".
  if (raw === undefined) {
    return data === undefined ? { ok: true, profiles: new Map() } : { ok: false, problems: [`the ConfigMap has no "${PROFILES_KEY}" key`] };
  }

  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch (err) {
    return { ok: false, problems: [`${PROFILES_KEY} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`] };
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    return {
      ok: false,
      problems: [`${PROFILES_KEY} must be a JSON object mapping each profile name to its settings, but it is ${kindOf(doc)}`],
    };
  }

  const problems: string[] = [];
  const profiles = new Map<string, Profile>();
  for (const [name, entry] of Object.entries(doc)) {
    const where = `profile ${show(name)}`;
    if (!isProfileName(name)) {
      problems.push(`${where}: the name is not a profile name: ${NAME_RULE}`);
      continue;
    }
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${where}: must be an object such as {"mode": "exec", "script": "<key>"}, but it is ${kindOf(entry)}`);
      continue;
    }
    const r = profileEntrySchema.safeParse(entry);
    if (!r.success) {
      for (const issue of r.error.issues) problems.push(`${where}: ${issueMessage(issue)}`);
      continue;
    }
    const p = r.data;
    const script = Object.hasOwn(data ?? {}, p.script) ? data?.[p.script] : undefined;
    if (script === undefined) {
      problems.push(`${where}: script ${show(p.script)} is not a key of the ${PROFILES_CONFIGMAP} ConfigMap`);
      continue;
    }
    if (script.trim() === '') {
      problems.push(`${where}: script ${show(p.script)} is empty`);
      continue;
    }
    profiles.set(name, {
      name,
      mode: p.mode,
      script: p.script,
      ...(p.image !== undefined ? { image: p.image } : {}),
      ...(p.resources !== undefined ? { resources: p.resources } : {}),
      ...(p.annotations !== undefined ? { annotations: p.annotations } : {}),
      ...(p.secrets !== undefined && p.secrets.length > 0 ? { secrets: p.secrets } : {}),
      ...(p.env !== undefined && Object.keys(p.env).length > 0 ? { env: p.env } : {}),
      ...(p.nodeSelector !== undefined || p.tolerations !== undefined || p.priorityClassName !== undefined
        ? {
            placement: {
              ...(p.nodeSelector !== undefined ? { nodeSelector: p.nodeSelector } : {}),
              ...(p.tolerations !== undefined ? { tolerations: p.tolerations } : {}),
              ...(p.priorityClassName !== undefined ? { priorityClassName: p.priorityClassName } : {}),
            },
          }
        : {}),
    });
  }
  return problems.length ? { ok: false, problems } : { ok: true, profiles };
}

/**
 * The profiles as the operator runs them: each pod-mode profile that names no image gets the
 * operator's default check image. With no default, such a profile is a configuration slip, named
 * with the variable that would fix it (the holds that need it pause; nothing is refused).
 */
export function withCheckImage(check: ProfilesCheck, defaultImage: string | undefined): ProfilesCheck {
  if (!check.ok) return check;
  const problems: string[] = [];
  const profiles = new Map<string, Profile>();
  for (const [name, p] of check.profiles) {
    if (p.mode !== ProfileMode.Pod || p.image !== undefined) profiles.set(name, p);
    else if (defaultImage !== undefined) profiles.set(name, { ...p, image: defaultImage });
    else
      problems.push(
        `profile ${show(name)}: image is missing and the operator has no default check image (WAITGATE_CHECK_IMAGE); a pod-mode profile runs its script in a container of that image`,
      );
  }
  return problems.length ? { ok: false, problems } : { ok: true, profiles };
}

/** The profiles that run as a process of the operator, with its reach (docs/security.md). */
export function execProfiles(check: ProfilesCheck): string[] {
  return check.ok ? [...check.profiles.values()].filter((p) => p.mode === ProfileMode.Exec).map((p) => p.name) : [];
}

/**
 * The profile names a parsed profiles ConfigMap declares, as the refusal rules read them:
 * unreadable when it does not load (a slip pauses work, it never refuses it).
 */
export function declaredNames(check: ProfilesCheck): DeclaredProfiles {
  return check.ok ? { state: 'ok', names: new Set(check.profiles.keys()) } : { state: 'unreadable' };
}

/** The Secrets a profile reads, each with how: mounted as files, and the variables set from it. */
export function secretsRead(profile: Profile): { secret: string; files: string; envNames: string[] }[] {
  return (profile.secrets ?? []).map((secret) => ({
    secret,
    files: `${SECRETS_MOUNT_ROOT}/${secret}/`,
    envNames: Object.entries(profile.env ?? {})
      .filter(([, from]) => from.secret === secret)
      .map(([name]) => name)
      .sort(),
  }));
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map(show).join(', ');
    if (issue.path[0] === 'env')
      return `env ${String(issue.path[1])}: ${keys} ${issue.keys.length === 1 ? 'is not a setting' : 'are not settings'}; a variable has secret and key`;
    return `${keys} ${issue.keys.length === 1 ? 'is not a setting' : 'are not settings'} of a profile; a profile has mode, script, image, resources, annotations, secrets, env, nodeSelector, tolerations and priorityClassName`;
  }
  return issue.message;
}

function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  switch (typeof v) {
    case 'string':
      return `the string ${show(v)}`;
    case 'number':
    case 'boolean':
      return `${typeof v} ${String(v)}`;
    case 'object':
      return 'an object';
    default:
      return typeof v;
  }
}
