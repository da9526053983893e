// Receiver configuration, from the environment; parsed once, in main.ts. Empty strings
// count as unset; a bad value stops the receiver naming the variable.
import { z } from 'zod';
import { ConfigError } from '../operator/config/config.js';

const unsetIfEmpty = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const optionalText = () => z.preprocess(unsetIfEmpty, z.string().optional());
const textOr = (def: string) => optionalText().transform((s): string => s ?? def);
const integer = (def: number, min: number, max: number) =>
  z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .regex(/^\s*\d+\s*$/, 'must be a whole number')
      .transform(Number)
      .pipe(z.number().int().min(min).max(max))
      .optional()
      .transform((n) => n ?? def),
  );

export const receiverEnvSchema = z.object({
  KUBECONFIG: optionalText(),
  VALKEY_URL: optionalText().pipe(
    z.string({ message: 'is required: the receiver deduplicates deliveries and serialises holds in Valkey' }).regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL'),
  ),
  WAITGATE_VALKEY_PREFIX: textOr('waitgate'),
  WAITGATE_RECEIVER_PORT: integer(8080, 0, 65535),
  WAITGATE_RECEIVER_HOST: textOr('0.0.0.0'),
  WAITGATE_GITHUB_WEBHOOK_SECRET: optionalText(),
  WAITGATE_GITLAB_WEBHOOK_TOKEN: optionalText(),
  WAITGATE_JOB_NAMESPACE: textOr('default'),
  WAITGATE_NAMESPACE: textOr('waitgate-system'),
  WAITGATE_WAIT_AFTER_MAX_MS: integer(2_592_000_000, 1, Number.MAX_SAFE_INTEGER),
  WAITGATE_LOG_LEVEL: z
    .preprocess(unsetIfEmpty, z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal']).optional())
    .transform((l) => l ?? 'info'),
});

export interface ReceiverConfig {
  readonly kubeconfigPath: string | undefined;
  readonly valkeyUrl: string;
  readonly valkeyPrefix: string;
  readonly port: number;
  readonly host: string;
  readonly githubSecret: string | undefined;
  readonly gitlabToken: string | undefined;
  readonly jobNamespace: string;
  readonly namespace: string;
  readonly afterMaxMs: number;
  readonly logLevel: string;
}

export function parseReceiverConfig(env: Record<string, string | undefined>): ReceiverConfig {
  const r = receiverEnvSchema.safeParse(env);
  if (!r.success) {
    throw new ConfigError(r.error.issues.map((i) => ({ variable: String(i.path[0] ?? '(environment)'), message: i.message })));
  }
  const e = r.data;
  return {
    kubeconfigPath: e.KUBECONFIG,
    valkeyUrl: e.VALKEY_URL,
    valkeyPrefix: e.WAITGATE_VALKEY_PREFIX,
    port: e.WAITGATE_RECEIVER_PORT,
    host: e.WAITGATE_RECEIVER_HOST,
    githubSecret: e.WAITGATE_GITHUB_WEBHOOK_SECRET,
    gitlabToken: e.WAITGATE_GITLAB_WEBHOOK_TOKEN,
    jobNamespace: e.WAITGATE_JOB_NAMESPACE,
    namespace: e.WAITGATE_NAMESPACE,
    afterMaxMs: e.WAITGATE_WAIT_AFTER_MAX_MS,
    logLevel: e.WAITGATE_LOG_LEVEL,
  };
}
