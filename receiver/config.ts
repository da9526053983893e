// Receiver configuration, from the environment; parsed once, in main.ts. Empty strings
// count as unset; a bad value stops the receiver naming the variable.
import { z } from 'zod';
import { integer, logLevel, parseEnv, text, textOr, unsetIfEmpty, valkeyCaNeedsTls, valkeyUrl } from '../lib/config/env.js';

/** A list of secrets, one a line or comma-separated; blanks around each are dropped. */
function secretList() {
  return z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .optional()
      .transform((s) =>
        (s ?? '')
          .split(/[\n,]/)
          .map((x) => x.trim())
          .filter((x) => x !== ''),
      ),
  );
}

export const receiverEnvSchema = z.object({
  KUBECONFIG: text(),
  VALKEY_URL: valkeyUrl('the receiver deduplicates deliveries and serialises holds in Valkey'),
  WAITGATE_VALKEY_PREFIX: textOr('waitgate'),
  WAITGATE_VALKEY_CA_FILE: text(),
  WAITGATE_RECEIVER_PORT: integer(8080, { min: 0, max: 65535 }),
  /** Unset: every address, IPv6 and IPv4 (Node listens on :: dual-stack, or 0.0.0.0 without IPv6). */
  WAITGATE_RECEIVER_HOST: text(),
  /** /metrics and /readyz, apart from the public webhook port. */
  WAITGATE_RECEIVER_METRICS_PORT: integer(8082, { min: 0, max: 65535 }),
  WAITGATE_RECEIVER_METRICS_HOST: text(),
  /** On SIGTERM, how long readiness fails before the listener closes (endpoints catch up meanwhile). */
  WAITGATE_RECEIVER_DRAIN_MS: integer(5_000, { min: 0, max: 120_000 }),
  WAITGATE_RECEIVER_HEADERS_TIMEOUT_MS: integer(10_000, { min: 100, max: 600_000 }),
  WAITGATE_RECEIVER_REQUEST_TIMEOUT_MS: integer(15_000, { min: 100, max: 600_000 }),
  WAITGATE_RECEIVER_MAX_CONNECTIONS: integer(256, { min: 1, max: 100_000 }),
  WAITGATE_RECEIVER_MAX_INFLIGHT_BODY_BYTES: integer(16 * 1024 * 1024, { min: 1024 * 1024, max: 1024 * 1024 * 1024 }),
  WAITGATE_GITHUB_WEBHOOK_SECRET: text(),
  /** More GitHub secrets (a rotation): one a line or comma-separated; any may sign. */
  WAITGATE_GITHUB_WEBHOOK_SECRETS: secretList(),
  WAITGATE_GITLAB_WEBHOOK_TOKEN: text(),
  /** More GitLab tokens (a rotation): one a line or comma-separated; any may be sent. */
  WAITGATE_GITLAB_WEBHOOK_TOKENS: secretList(),
  WAITGATE_JOB_NAMESPACE: textOr('default'),
  WAITGATE_NAMESPACE: textOr('waitgate-system'),
  /**
   * Where the waitgate-triggers and waitgate-profiles ConfigMaps are mounted (the chart sets
   * both): read from there, with no right on ConfigMaps. Unset: watched through the API.
   */
  WAITGATE_RECEIVER_TRIGGERS_DIR: text(),
  WAITGATE_RECEIVER_PROFILES_DIR: text(),
  WAITGATE_WAIT_AFTER_MAX_MS: integer(2_592_000_000, { min: 1 }),
  WAITGATE_LOG_LEVEL: logLevel(),
});

/** What the receiver accepts before it reads a body, and how long it waits for one. */
export interface ReceiverLimits {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly maxConnections: number;
  readonly maxInflightBodyBytes: number;
}

export interface ReceiverConfig {
  readonly kubeconfigPath: string | undefined;
  readonly valkeyUrl: string;
  readonly valkeyPrefix: string;
  /** A PEM file of the CA that signed Valkey's certificate (rediss:// only); unset: the system's CAs. */
  readonly valkeyCaFile: string | undefined;
  readonly port: number;
  /** undefined: every address, IPv6 and IPv4. */
  readonly host: string | undefined;
  readonly metricsPort: number;
  readonly metricsHost: string | undefined;
  /** On SIGTERM, how long readiness fails before the listener closes, ms. */
  readonly drainMs: number;
  readonly limits: ReceiverLimits;
  /** Every GitHub secret that may sign; empty refuses GitHub deliveries. */
  readonly githubSecrets: readonly string[];
  /** Every GitLab token that may be sent; empty refuses GitLab deliveries. */
  readonly gitlabTokens: readonly string[];
  readonly jobNamespace: string;
  readonly namespace: string;
  /** The mounted triggers and profiles ConfigMaps; undefined: watch them through the API. */
  readonly configFolders: { readonly triggersDir: string; readonly profilesDir: string } | undefined;
  readonly afterMaxMs: number;
  readonly logLevel: string;
}

const union = (one: string | undefined, more: readonly string[]) => [...new Set([...(one === undefined ? [] : [one]), ...more])];

/** The two folders go together: one alone would read one ConfigMap from files, the other from nowhere. */
function foldersTogether(
  e: { WAITGATE_RECEIVER_TRIGGERS_DIR?: string | undefined; WAITGATE_RECEIVER_PROFILES_DIR?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  const [set, unset] =
    e.WAITGATE_RECEIVER_TRIGGERS_DIR === undefined
      ? ['WAITGATE_RECEIVER_PROFILES_DIR', 'WAITGATE_RECEIVER_TRIGGERS_DIR']
      : ['WAITGATE_RECEIVER_TRIGGERS_DIR', 'WAITGATE_RECEIVER_PROFILES_DIR'];
  if ((e.WAITGATE_RECEIVER_TRIGGERS_DIR === undefined) !== (e.WAITGATE_RECEIVER_PROFILES_DIR === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: [unset],
      message: `is required when ${set} is set: both ConfigMaps are read from files, or neither`,
    });
  }
}

export function parseReceiverConfig(env: Record<string, string | undefined>): ReceiverConfig {
  const e = parseEnv(
    receiverEnvSchema.superRefine((e, ctx) => {
      valkeyCaNeedsTls(e, ctx);
      foldersTogether(e, ctx);
    }),
    env,
  );
  return {
    kubeconfigPath: e.KUBECONFIG,
    valkeyUrl: e.VALKEY_URL,
    valkeyPrefix: e.WAITGATE_VALKEY_PREFIX,
    valkeyCaFile: e.WAITGATE_VALKEY_CA_FILE,
    port: e.WAITGATE_RECEIVER_PORT,
    host: e.WAITGATE_RECEIVER_HOST,
    metricsPort: e.WAITGATE_RECEIVER_METRICS_PORT,
    metricsHost: e.WAITGATE_RECEIVER_METRICS_HOST,
    drainMs: e.WAITGATE_RECEIVER_DRAIN_MS,
    limits: {
      headersTimeoutMs: e.WAITGATE_RECEIVER_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.WAITGATE_RECEIVER_REQUEST_TIMEOUT_MS,
      maxConnections: e.WAITGATE_RECEIVER_MAX_CONNECTIONS,
      maxInflightBodyBytes: e.WAITGATE_RECEIVER_MAX_INFLIGHT_BODY_BYTES,
    },
    githubSecrets: union(e.WAITGATE_GITHUB_WEBHOOK_SECRET, e.WAITGATE_GITHUB_WEBHOOK_SECRETS),
    gitlabTokens: union(e.WAITGATE_GITLAB_WEBHOOK_TOKEN, e.WAITGATE_GITLAB_WEBHOOK_TOKENS),
    jobNamespace: e.WAITGATE_JOB_NAMESPACE,
    namespace: e.WAITGATE_NAMESPACE,
    configFolders:
      e.WAITGATE_RECEIVER_TRIGGERS_DIR !== undefined && e.WAITGATE_RECEIVER_PROFILES_DIR !== undefined
        ? { triggersDir: e.WAITGATE_RECEIVER_TRIGGERS_DIR, profilesDir: e.WAITGATE_RECEIVER_PROFILES_DIR }
        : undefined,
    afterMaxMs: e.WAITGATE_WAIT_AFTER_MAX_MS,
    logLevel: e.WAITGATE_LOG_LEVEL,
  };
}
