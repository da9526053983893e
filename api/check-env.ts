// The environment a check script runs with, on the operator and under `waitgate check` alike.
// By default an allow-list: the four names every script may need (PATH, HOME, LANG, TZ) plus
// the names an operator lists in WAITGATE_CHECK_ENV_ALLOW. Everything else (VALKEY_URL, the
// webhook secrets, KUBERNETES_SERVICE_HOST, whatever a Pod spec or an admin's shell holds)
// stays out. Passing the whole environment is an explicit opt-in: WAITGATE_CHECK_ENV_INHERIT.
// Pure: the source environment comes in as data.

/** Always passed (when set): what a script needs to find programs, a home, a language and a zone. */
export const BASE_CHECK_ENV = ['PATH', 'HOME', 'LANG', 'TZ'] as const;

/** A name a POSIX shell can read back: letters, digits and '_', not starting with a digit. */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface CheckEnvPolicy {
  /** Names passed besides BASE_CHECK_ENV. */
  readonly allow: readonly string[];
  /** True: the whole source environment, allow-list or not. */
  readonly inherit: boolean;
}

export const DEFAULT_CHECK_ENV_POLICY: CheckEnvPolicy = { allow: [], inherit: false };

/** The environment of a check: the allowed names found (and defined) in `source`. */
export function checkEnvironment(source: Readonly<Record<string, string | undefined>>, policy: CheckEnvPolicy): Record<string, string> {
  const out: Record<string, string> = {};
  const names = policy.inherit ? Object.keys(source) : [...BASE_CHECK_ENV, ...policy.allow];
  for (const name of names) {
    const value = Object.hasOwn(source, name) ? source[name] : undefined;
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * WAITGATE_CHECK_ENV_ALLOW's text as names: comma-separated, spaces around them ignored, empty
 * entries dropped, duplicates kept once. A name that is not one (ENV_NAME_PATTERN) is a problem.
 */
export function parseEnvAllow(text: string): { ok: true; names: string[] } | { ok: false; problem: string } {
  const names = [
    ...new Set(
      text
        .split(',')
        .map((n) => n.trim())
        .filter((n) => n !== ''),
    ),
  ];
  const bad = names.filter((n) => !ENV_NAME_PATTERN.test(n));
  if (bad.length > 0) {
    return {
      ok: false,
      problem: `must be a comma-separated list of variable names (letters, digits, '_'); not names: ${bad.map((n) => JSON.stringify(n)).join(', ')}`,
    };
  }
  return { ok: true, names };
}
