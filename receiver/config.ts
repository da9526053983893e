// Receiver configuration, from the environment; parsed once, in main.ts. Empty strings
// count as unset; a bad value stops the receiver naming the variable.
import { z } from 'zod';
import type { Forge } from '../api/vocabulary.js';
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

const httpUrl = (def: string) => textOr(def).pipe(z.string().regex(/^https?:\/\/\S+$/, 'must be an http:// or https:// URL'));

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
  /** The Azure DevOps service hook's secret: the basic-auth password, or the X-Waitgate-Token header. */
  WAITGATE_AZURE_WEBHOOK_SECRET: text(),
  /** More Azure DevOps secrets (a rotation): one a line or comma-separated; any may be sent. */
  WAITGATE_AZURE_WEBHOOK_SECRETS: secretList(),
  /**
   * Read-only forge API access, the operator's names: only for triggers that pin the revision
   * of an issue or work item (run.pinRevision), whose default branch's head is read at hold time.
   */
  WAITGATE_GITHUB_TOKEN: text(),
  WAITGATE_GITHUB_API_URL: httpUrl('https://api.github.com'),
  WAITGATE_GITLAB_TOKEN: text(),
  WAITGATE_GITLAB_API_URL: httpUrl('https://gitlab.com/api/v4'),
  WAITGATE_AZURE_TOKEN: text(),
  /** The organisation's root, https://dev.azure.com/ORG; required with WAITGATE_AZURE_TOKEN. */
  WAITGATE_AZURE_API_URL: text().pipe(
    z
      .string()
      .regex(/^https?:\/\/\S+$/, 'must be an http:// or https:// URL')
      .optional(),
  ),
  /** How long one call to a forge's API may take. */
  WAITGATE_FORGE_API_TIMEOUT_MS: integer(10_000, { min: 100, max: 120_000 }),
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
  /**
   * Each forge's webhook credentials (GitHub's secrets that may sign, GitLab's tokens and Azure
   * DevOps's secrets that may be sent); none refuses that forge's deliveries.
   */
  readonly webhookSecrets: Readonly<Record<Forge, readonly string[]>>;
  /** Read-only API access to the forges that have a token (pinning an issue's revision). */
  readonly forgeApis: Partial<Record<Forge, { readonly url: string; readonly token: string; readonly timeoutMs: number }>>;
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

const api = (forge: Forge, url: string | undefined, token: string | undefined, timeoutMs: number) =>
  url !== undefined && token !== undefined ? { [forge]: { url, token, timeoutMs } } : {};

export function parseReceiverConfig(env: Record<string, string | undefined>): ReceiverConfig {
  const e = parseEnv(
    receiverEnvSchema.superRefine((e, ctx) => {
      valkeyCaNeedsTls(e, ctx);
      foldersTogether(e, ctx);
      if (e.WAITGATE_AZURE_TOKEN !== undefined && e.WAITGATE_AZURE_API_URL === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['WAITGATE_AZURE_API_URL'],
          message: 'is required with WAITGATE_AZURE_TOKEN (https://dev.azure.com/ORG)',
        });
      }
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
    webhookSecrets: {
      github: union(e.WAITGATE_GITHUB_WEBHOOK_SECRET, e.WAITGATE_GITHUB_WEBHOOK_SECRETS),
      gitlab: union(e.WAITGATE_GITLAB_WEBHOOK_TOKEN, e.WAITGATE_GITLAB_WEBHOOK_TOKENS),
      azure: union(e.WAITGATE_AZURE_WEBHOOK_SECRET, e.WAITGATE_AZURE_WEBHOOK_SECRETS),
    },
    forgeApis: {
      ...api('github', e.WAITGATE_GITHUB_API_URL, e.WAITGATE_GITHUB_TOKEN, e.WAITGATE_FORGE_API_TIMEOUT_MS),
      ...api('gitlab', e.WAITGATE_GITLAB_API_URL, e.WAITGATE_GITLAB_TOKEN, e.WAITGATE_FORGE_API_TIMEOUT_MS),
      ...api('azure', e.WAITGATE_AZURE_API_URL, e.WAITGATE_AZURE_TOKEN, e.WAITGATE_FORGE_API_TIMEOUT_MS),
    },
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
