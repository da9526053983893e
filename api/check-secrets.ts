// Credentials for pod-mode checks: the Secrets of the operator's namespace a profile names
// ("secrets"), mounted read-only in its check Pod, and the keys of them it asks for as
// environment variables ("env"). Only a Secret labelled CHECK_SECRET_LABEL may be named: the
// admission policy waitgate-check-pod-secrets refuses a check Pod that references any other.
// The operator never reads a Secret (it has no RBAC on Secrets); the kubelet mounts them.

/** The label a Secret of the operator's namespace must carry, value "true", to be named by a profile. */
export const CHECK_SECRET_LABEL = 'waitgate.dev/check-secret';
export const CHECK_SECRET_LABEL_VALUE = 'true';
/** The admission policy that holds the label rule (policies/; the chart prefixes its release). */
export const CHECK_SECRET_POLICY = 'check-pod-secrets';

/** Where a check Pod finds Secret <name>'s keys: one file per key under <root>/<name>/. */
export const SECRETS_MOUNT_ROOT = '/var/run/waitgate/secrets';

/** The file a check reads Secret `secret`'s `key` from. */
export function secretFilePath(secret: string, key: string): string {
  return `${SECRETS_MOUNT_ROOT}/${secret}/${key}`;
}

/** At most this many Secrets a profile, and this many environment variables from them. */
export const MAX_PROFILE_SECRETS = 16;
export const MAX_PROFILE_ENV = 32;

// A Secret's name is a DNS subdomain (RFC 1123): at most 253 characters, lowercase
// alphanumeric labels joined by '.' with '-' inside.
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function isSecretName(name: string): boolean {
  return name.length <= 253 && DNS_SUBDOMAIN.test(name);
}

/** A Secret's data key (and so a file name under its mount): letters, digits, '-', '_' and '.', never '.' or '..'. */
export function isSecretKey(key: string): boolean {
  return key.length <= 253 && /^[-._a-zA-Z0-9]+$/.test(key) && key !== '.' && key !== '..';
}

/** An environment variable a profile may set from a Secret: upper case, digits and '_'. */
export const CHECK_ENV_NAME_PATTERN = /^[A-Z_][A-Z0-9_]*$/;
/** Names the check's own environment depends on, or the loader reads: never set from a Secret. */
export const RESERVED_ENV_NAMES: readonly string[] = [
  'PATH',
  'HOME',
  'LANG',
  'TZ',
  'HOSTNAME',
  'SHELL',
  'USER',
  'PWD',
  'IFS',
  'ENV',
  'BASH_ENV',
];
export const RESERVED_ENV_PREFIXES: readonly string[] = ['WAITGATE_', 'LD_', 'KUBERNETES_'];

/** Why `name` may not be a check's environment variable from a Secret, or undefined when it may. */
export function envNameProblem(name: string): string | undefined {
  if (name.length > 128 || !CHECK_ENV_NAME_PATTERN.test(name)) {
    return `${JSON.stringify(name.slice(0, 80))} is not an environment variable name a profile may set: upper-case letters, digits and '_', not starting with a digit`;
  }
  if (RESERVED_ENV_NAMES.includes(name)) return `${name} is reserved: the check's own environment sets it`;
  const prefix = RESERVED_ENV_PREFIXES.find((p) => name.startsWith(p));
  if (prefix !== undefined) return `${name} is reserved: names starting ${prefix} are never set from a Secret`;
  return undefined;
}

/** One environment variable of a check Pod, read from a key of a Secret the profile names. */
export interface SecretEnv {
  readonly secret: string;
  readonly key: string;
}

/**
 * The admission refusal of a check Pod by the check-pod-secrets policy, read from the
 * apiserver's message: the Secret it names, or undefined when the message is not that policy's.
 */
export function refusedSecretOf(message: string): { readonly secret: string } | undefined {
  const m = /a check Pod references Secret ([a-z0-9.-]+) which is not labelled waitgate\.dev\/check-secret=true/.exec(message);
  return m?.[1] === undefined ? undefined : { secret: m[1] };
}
