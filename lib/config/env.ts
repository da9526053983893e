// Building blocks for parsing a process's environment with zod. Empty strings (Helm renders
// unset values as "") count as unset.
import { z } from 'zod';

export class ConfigError extends Error {
  constructor(readonly problems: readonly { variable: string; message: string }[]) {
    super(`invalid configuration: ${problems.map((p) => `${p.variable}: ${p.message}`).join('; ')}`);
    this.name = 'ConfigError';
  }
}

export const unsetIfEmpty = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/** An optional string. */
export function text() {
  return z.preprocess(unsetIfEmpty, z.string().trim().optional());
}

/** A string with a default. */
export function textOr(def: string) {
  return text().transform((s): string => s ?? def);
}

/** A whole number with a default and bounds. */
export function integer(def: number, opts: { min?: number; max?: number } = {}) {
  return z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .regex(/^\s*\d+\s*$/, 'must be a whole number')
      .transform(Number)
      .pipe(
        z
          .number()
          .int()
          .min(opts.min ?? 0)
          .max(opts.max ?? Number.MAX_SAFE_INTEGER),
      )
      .optional()
      .transform((n) => n ?? def),
  );
}

/**
 * An optional cap: a whole number up to `max`, where unset, empty and 0 all mean "no cap"
 * (undefined). A number that would not parse is refused, never read as no cap.
 */
export function capOrNone(opts: { max: number }) {
  return z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .regex(/^\s*\d+\s*$/, 'must be a whole number (0 or unset: no cap)')
      .transform(Number)
      .pipe(z.number().int().min(0).max(opts.max))
      .optional()
      .transform((n): number | undefined => (n === undefined || n === 0 ? undefined : n)),
  );
}

/** true/false (or 1/0, yes/no) with a default. */
export function boolean(def: boolean) {
  return z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' }))
      .transform((v) => v === 'true' || v === '1' || v === 'yes')
      .optional()
      .transform((b): boolean => b ?? def),
  );
}

/** A pino log level, `info` by default. */
export function logLevel() {
  return z.preprocess(unsetIfEmpty, z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal']).optional()).transform((l) => l ?? 'info');
}

/** A required redis:// or rediss:// URL. */
export function valkeyUrl(why: string) {
  return text().pipe(z.string({ message: `is required: ${why}` }).regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL'));
}

/**
 * The cross-field rule of WAITGATE_VALKEY_CA_FILE (a PEM file of the CA that signed Valkey's
 * certificate): it is read for TLS only, so it needs a rediss:// VALKEY_URL. For superRefine.
 */
export function valkeyCaNeedsTls(e: { VALKEY_URL: string; WAITGATE_VALKEY_CA_FILE?: string | undefined }, ctx: z.RefinementCtx): void {
  if (e.WAITGATE_VALKEY_CA_FILE !== undefined && !e.VALKEY_URL.startsWith('rediss://')) {
    ctx.addIssue({
      code: 'custom',
      path: ['WAITGATE_VALKEY_CA_FILE'],
      message: 'is set, but VALKEY_URL is not a rediss:// URL: the CA is only used for TLS',
    });
  }
}

/** Parses `env` with `schema`, throwing a ConfigError that names each bad variable. */
export function parseEnv<T extends z.ZodType>(schema: T, env: Record<string, string | undefined>): z.infer<T> {
  const r = schema.safeParse(env);
  if (!r.success) {
    throw new ConfigError(r.error.issues.map((i) => ({ variable: String(i.path[0] ?? '(environment)'), message: i.message })));
  }
  return r.data;
}

/** For main.ts: the parsed configuration, or exit 2 with one line per bad variable. */
export function configOrExit<T>(program: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const p of err.problems) process.stderr.write(`${program}: ${p.variable}: ${p.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}
