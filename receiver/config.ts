// Receiver configuration, from the environment; parsed once, in main.ts. Empty strings
// count as unset; a bad value stops the receiver naming the variable.
import { z } from 'zod';
import type { Forge } from '../api/vocabulary.js';
import { boolean, integer, logLevel, parseEnv, text, textOr, unsetIfEmpty, valkeyCaNeedsTls, valkeyUrl } from '../lib/config/env.js';
import { FORGES } from '../api/vocabulary.js';
import { WEBHOOK_VARIABLES } from '../api/webhook-variables.js';
import { ONCE_RECORD_TTL_MS } from './delivery/once.js';
import { scopedSecretsSchema, SHORT_SECRET, MIN_WEBHOOK_SECRET_LENGTH, type WebhookSecret } from './webhook-secrets.js';

const longEnough = (s: string) => s.length >= MIN_WEBHOOK_SECRET_LENGTH;

/** One webhook secret, at least MIN_WEBHOOK_SECRET_LENGTH characters. */
function secret() {
  return text().refine((s) => s === undefined || longEnough(s), SHORT_SECRET);
}

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
      )
      .refine((l) => l.every(longEnough), `one of them ${SHORT_SECRET}`),
  );
}

/** Secrets scoped to repositories: a JSON array of { secret, repositories } (receiver/webhook-secrets.ts). */
function scopedSecrets() {
  return z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .optional()
      .transform((s, ctx) => {
        if (s === undefined) return [];
        try {
          return JSON.parse(s) as unknown;
        } catch {
          ctx.addIssue({ code: 'custom', message: 'is not JSON: a list of { "secret": "...", "repositories": ["owner/*"] }' });
          return z.NEVER;
        }
      })
      .pipe(scopedSecretsSchema),
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
  WAITGATE_GITHUB_WEBHOOK_SECRET: secret(),
  /** More GitHub secrets (a rotation): one a line or comma-separated; any may sign. */
  WAITGATE_GITHUB_WEBHOOK_SECRETS: secretList(),
  WAITGATE_GITLAB_WEBHOOK_TOKEN: secret(),
  /** More GitLab tokens (a rotation): one a line or comma-separated; any may be sent. */
  WAITGATE_GITLAB_WEBHOOK_TOKENS: secretList(),
  /** The Azure DevOps service hook's secret: the basic-auth password, or the X-Waitgate-Token header. */
  WAITGATE_AZURE_WEBHOOK_SECRET: secret(),
  /** More Azure DevOps secrets (a rotation): one a line or comma-separated; any may be sent. */
  WAITGATE_AZURE_WEBHOOK_SECRETS: secretList(),
  /**
   * Secrets that speak for some repositories only (#30): a JSON list of
   * `{ "secret": "...", "repositories": ["acme/*", "beta/web"] }`. A delivery they authenticate
   * that names another repository is answered 401.
   */
  WAITGATE_GITHUB_WEBHOOK_SCOPED_SECRETS: scopedSecrets(),
  WAITGATE_GITLAB_WEBHOOK_SCOPED_TOKENS: scopedSecrets(),
  WAITGATE_AZURE_WEBHOOK_SCOPED_SECRETS: scopedSecrets(),
  /**
   * Before holding, ask the forge whether a label the delivery says was added is on the issue or
   * pull request now (#30); one that is not is refused. Needs the forge's API token.
   */
  WAITGATE_RECEIVER_CONFIRM_LABELS: boolean(false),
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
  /** How long an OnceRecord spends its once trigger for its target (#30): 90 days; at least an hour. */
  WAITGATE_ONCE_RECORD_TTL_MS: integer(ONCE_RECORD_TTL_MS, { min: 3_600_000 }),
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
  /** Each forge's secrets scoped to repository patterns (receiver/webhook-secrets.ts). */
  readonly scopedWebhookSecrets: Readonly<Record<Forge, readonly WebhookSecret[]>>;
  /** Whether a delivery's labels are confirmed with the forge before anything is held. */
  readonly confirmLabels: boolean;
  /** Read-only API access to the forges that have a token (pinning an issue's revision). */
  readonly forgeApis: Partial<Record<Forge, { readonly url: string; readonly token: string; readonly timeoutMs: number }>>;
  readonly jobNamespace: string;
  readonly namespace: string;
  /** The mounted triggers and profiles ConfigMaps; undefined: watch them through the API. */
  readonly configFolders: { readonly triggersDir: string; readonly profilesDir: string } | undefined;
  readonly afterMaxMs: number;
  /** How long an OnceRecord spends its once trigger for its target, ms. */
  readonly onceTtlMs: number;
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

type Env = z.infer<typeof receiverEnvSchema>;

/** The variables that authenticate each forge's deliveries, and its API token's (api/webhook-variables.ts). */
const variablesOf = <F extends Forge>(f: F) => ({
  secrets: [...WEBHOOK_VARIABLES[f].unscoped, WEBHOOK_VARIABLES[f].scoped],
  token: WEBHOOK_VARIABLES[f].token,
});
const FORGE_VARIABLES: Record<Forge, { secrets: readonly (keyof Env)[]; token: keyof Env }> = {
  github: variablesOf('github'),
  gitlab: variablesOf('gitlab'),
  azure: variablesOf('azure'),
};

/** Confirming labels asks the forge: every forge that may deliver needs its API token. */
function confirmNeedsTokens(e: Env, ctx: z.RefinementCtx): void {
  for (const forge of FORGES) {
    const v = FORGE_VARIABLES[forge];
    const delivers = v.secrets.some((name) => {
      const value = e[name];
      return Array.isArray(value) ? value.length > 0 : value !== undefined;
    });
    if (delivers && e[v.token] === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [v.token],
        message: `is required with WAITGATE_RECEIVER_CONFIRM_LABELS: ${forge} deliveries are accepted, and their labels are confirmed with ${forge}'s API`,
      });
    }
  }
}

const api = (forge: Forge, url: string | undefined, token: string | undefined, timeoutMs: number) =>
  url !== undefined && token !== undefined ? { [forge]: { url, token, timeoutMs } } : {};

export function parseReceiverConfig(env: Record<string, string | undefined>): ReceiverConfig {
  const e = parseEnv(
    receiverEnvSchema.superRefine((e, ctx) => {
      valkeyCaNeedsTls(e, ctx);
      foldersTogether(e, ctx);
      if (e.WAITGATE_RECEIVER_CONFIRM_LABELS) confirmNeedsTokens(e, ctx);
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
    scopedWebhookSecrets: {
      github: e.WAITGATE_GITHUB_WEBHOOK_SCOPED_SECRETS,
      gitlab: e.WAITGATE_GITLAB_WEBHOOK_SCOPED_TOKENS,
      azure: e.WAITGATE_AZURE_WEBHOOK_SCOPED_SECRETS,
    },
    confirmLabels: e.WAITGATE_RECEIVER_CONFIRM_LABELS,
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
    onceTtlMs: e.WAITGATE_ONCE_RECORD_TTL_MS,
    logLevel: e.WAITGATE_LOG_LEVEL,
  };
}

/** Every secret of each forge that may authenticate a delivery: the unscoped ones (every repository) and the scoped. */
export function webhookSecretsOf(config: ReceiverConfig): Record<Forge, WebhookSecret[]> {
  const of = (f: Forge): WebhookSecret[] => [...config.webhookSecrets[f].map((secret) => ({ secret })), ...config.scopedWebhookSecrets[f]];
  return { github: of('github'), gitlab: of('gitlab'), azure: of('azure') };
}
