// The operator's settings as the command line reads them: the same variables, defaults,
// floors and caps (api/config/operator-config.ts), from the command's own environment. VALKEY_URL
// is not required here: only doctor needs it, and it reports a missing one as a finding.
import { ConfigError, parseOperatorConfig, type OperatorConfig } from '../api/config/operator-config.js';

export const DEFAULT_NAMESPACE = 'waitgate-system';

/** A stand-in that satisfies the operator's parser when VALKEY_URL is unset; never dialled. */
const NO_VALKEY = 'redis://valkey-url-is-not-set.invalid';

export type SettingsResult =
  | { readonly ok: true; readonly config: OperatorConfig; readonly valkeyUrl: string | undefined }
  | { readonly ok: false; readonly problems: readonly { variable: string; message: string }[] };

export function readSettings(env: Readonly<Record<string, string | undefined>>): SettingsResult {
  const valkey = env['VALKEY_URL']?.trim() ? env['VALKEY_URL'].trim() : undefined;
  try {
    const config = parseOperatorConfig({ ...env, VALKEY_URL: valkey ?? NO_VALKEY });
    return { ok: true, config, valkeyUrl: valkey };
  } catch (err) {
    if (err instanceof ConfigError) return { ok: false, problems: err.problems };
    throw err;
  }
}

/** The namespace of waitgate's ConfigMaps: the flag, else WAITGATE_NAMESPACE, else waitgate-system. */
export function operatorNamespace(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  const fromEnv = env['WAITGATE_NAMESPACE']?.trim();
  return flag ?? (fromEnv ? fromEnv : DEFAULT_NAMESPACE);
}
