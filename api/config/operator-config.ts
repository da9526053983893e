// Operator configuration, from the environment. Parsed once, in main.ts; nothing else
// reads process.env. Empty strings (Helm renders unset values as "") count as unset.
import { z } from 'zod';
import {
  boolean,
  capOrNone,
  integer,
  logLevel,
  parseEnv,
  text,
  textOr,
  unsetIfEmpty,
  valkeyCaNeedsTls,
  valkeyUrl,
} from '../../lib/config/env.js';
import { pauseWindowsSchema, type PauseWindow } from '../pause-windows.js';
import { parseEnvAllow, type CheckEnvPolicy } from '../check-env.js';
import { parseReportNamespaces, parseReportTransitions, ReportTransition } from '../forge-reports.js';
import { FORGES, type Forge } from '../vocabulary.js';
import { PROFILES_CONFIGMAP } from '../profiles.js';
import { TRIGGERS_CONFIGMAP } from '../triggers/triggers-file.js';
import { parseHookRefs, type HookRef } from '../github-hooks.js';
import { parseCheckPodDefaults, type CheckPodDefaults } from '../check-pod-placement.js';

export { ConfigError } from '../../lib/config/env.js';

export const WAIT_INTERVAL_FLOOR_MS = 30_000;

const jsonOf = <T extends z.ZodType>(schema: T, def: z.infer<T>) =>
  z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .transform((s, ctx) => {
        try {
          return JSON.parse(s) as unknown;
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be JSON' });
          return z.NEVER;
        }
      })
      .pipe(schema)
      .optional()
      .transform((v): z.infer<T> => v ?? def),
  );

/** WAITGATE_CHECK_POD_DEFAULTS: one JSON object (api/check-pod-placement.ts); empty: none. */
const checkPodDefaults = () =>
  z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .optional()
      .transform((s, ctx): CheckPodDefaults => {
        const r = parseCheckPodDefaults(s);
        if (r.ok) return r.defaults;
        for (const problem of r.problems) ctx.addIssue({ code: 'custom', message: problem });
        return z.NEVER;
      }),
  );

/** WAITGATE_CHECK_ENV_ALLOW: comma-separated variable names, none by default. */
const envAllow = () =>
  z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .transform((s, ctx) => {
        const r = parseEnvAllow(s);
        if (r.ok) return r.names;
        ctx.addIssue({ code: 'custom', message: r.problem });
        return z.NEVER;
      })
      .optional()
      .transform((names): string[] => names ?? []),
  );

/** A comma-separated list parsed by `parse`, or `def` when unset. */
const listOf = <T>(parse: (s: string) => { ok: true; value: T } | { ok: false; problem: string }, def: T) =>
  z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .transform((s, ctx) => {
        const r = parse(s);
        if (r.ok) return r.value;
        ctx.addIssue({ code: 'custom', message: r.problem });
        return z.NEVER;
      })
      .optional()
      .transform((v): T => v ?? def),
  );

const reportTransitions = () =>
  listOf(
    (s) => {
      const r = parseReportTransitions(s);
      return r.ok ? { ok: true, value: r.transitions } : r;
    },
    [ReportTransition.Refused as ReportTransition],
  );
const hookRefs = () =>
  listOf((s) => {
    const r = parseHookRefs(s);
    return r.ok ? { ok: true, value: r.hooks } : r;
  }, [] as HookRef[]);

/** A ConfigMap's name: a DNS subdomain (RFC 1123), at most 253 characters. */
const configMapName = (def: string) =>
  textOr(def).pipe(
    z
      .string()
      .max(253)
      .regex(
        /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
        'must be a ConfigMap name (lower-case letters, digits, "-" and ".")',
      ),
  );

const httpUrl = (def: string) => textOr(def).pipe(z.string().regex(/^https?:\/\/\S+$/, 'must be an http:// or https:// URL'));

export const operatorEnvSchema = z.object({
  KUBECONFIG: text(),
  VALKEY_URL: valkeyUrl('check slots and scope slots are leased in Valkey'),
  WAITGATE_VALKEY_PREFIX: textOr('waitgate'),
  WAITGATE_VALKEY_CA_FILE: text(),
  WAITGATE_WAIT_INTERVAL_MS: integer(60_000, { min: 1 }),
  WAITGATE_WAIT_CHECK_TIMEOUT_MS: integer(10_000, { min: 1 }),
  WAITGATE_WAIT_CHECK_SLOTS: integer(1, { min: 1 }),
  WAITGATE_WAIT_MAX_MS: integer(86_400_000, { min: 1 }),
  WAITGATE_WAIT_AFTER_MAX_MS: integer(2_592_000_000, { min: 1 }),
  WAITGATE_WAIT_MAX_CHECKS: integer(96, { min: 1 }),
  WAITGATE_WAIT_MAX_FAULTS: integer(5, { min: 1 }),
  WAITGATE_CONCURRENCY: capOrNone({ max: 10_000 }),
  WAITGATE_WORKER_NAME: textOr('waitgate'),
  WAITGATE_NAMESPACE: textOr('waitgate-system'),
  WAITGATE_PROFILES_CONFIGMAP: configMapName(PROFILES_CONFIGMAP),
  WAITGATE_TRIGGERS_CONFIGMAP: configMapName(TRIGGERS_CONFIGMAP),
  WAITGATE_WATCH_NAMESPACE: textOr(''),
  WAITGATE_RECONCILE_WORKERS: integer(32, { min: 1, max: 256 }),
  WAITGATE_SCOPE_LIMIT: integer(1, { min: 1, max: 10_000 }),
  WAITGATE_SCOPE_LEASE_TTL_MS: integer(120_000, { min: 1_000, max: 3_600_000 }),
  WAITGATE_PAUSE_WINDOWS: jsonOf(pauseWindowsSchema, []),
  WAITGATE_CHECK_KILL_GRACE_MS: integer(2_000, { min: 0, max: 60_000 }),
  WAITGATE_CHECK_ENV_ALLOW: envAllow(),
  WAITGATE_CHECK_ENV_INHERIT: boolean(false),
  WAITGATE_CHECK_POD_SWEEP_MS: integer(60_000, { min: 100, max: 86_400_000 }),
  WAITGATE_POD_START_TIMEOUT_MS: integer(120_000, { min: 1, max: 86_400_000 }),
  WAITGATE_CHECK_POD_DEFAULTS: checkPodDefaults(),
  WAITGATE_CHECK_IMAGE: text().refine((s) => s === undefined || !/\s/.test(s), 'must be a container image reference (no spaces)'),
  WAITGATE_FINISHED_TTL_MS: integer(604_800_000, { min: 0 }),
  WAITGATE_PROFILES_DIR: text(),
  WAITGATE_METRICS_PORT: integer(8081, { min: 0, max: 65_535 }),
  WAITGATE_METRICS_HOST: textOr('0.0.0.0'),
  WAITGATE_LEADER_ELECTION: boolean(false),
  WAITGATE_LEADER_ELECTION_ID: textOr('waitgate-operator'),
  WAITGATE_LOG_LEVEL: logLevel(),
  WAITGATE_FORGE_REPORT: reportTransitions(),
  WAITGATE_FORGE_REPORT_NAMESPACES: listOf((s) => {
    const r = parseReportNamespaces(s);
    return r.ok ? { ok: true, value: r.namespaces } : r;
  }, [] as string[]),
  WAITGATE_GITHUB_TOKEN: text(),
  WAITGATE_GITHUB_APP_ID: text().pipe(z.string().regex(/^\d+$/, 'must be the numeric App id').optional()),
  WAITGATE_GITHUB_APP_PRIVATE_KEY: text(),
  WAITGATE_GITHUB_APP_INSTALLATION_ID: text().pipe(z.string().regex(/^\d+$/, 'must be the numeric installation id').optional()),
  WAITGATE_GITHUB_API_URL: httpUrl('https://api.github.com'),
  WAITGATE_GITLAB_TOKEN: text(),
  WAITGATE_GITLAB_API_URL: httpUrl('https://gitlab.com/api/v4'),
  /** An Azure DevOps personal access token (Work Items read & write, Code read & write). */
  WAITGATE_AZURE_TOKEN: text(),
  /** The organisation's root, https://dev.azure.com/ORG: it names the organisation, so there is no default. */
  WAITGATE_AZURE_API_URL: text().pipe(
    z
      .string()
      .regex(/^https?:\/\/\S+$/, 'must be an http:// or https:// URL')
      .optional(),
  ),
  WAITGATE_GITHUB_REDELIVER_HOOKS: hookRefs(),
  WAITGATE_GITHUB_REDELIVER_INTERVAL_MS: integer(300_000, { min: 1_000, max: 86_400_000 }),
});

type OperatorEnv = z.infer<typeof operatorEnvSchema>;

/** GitHub credentials: a token, or all three App settings; not both. */
function githubAuthRule(e: OperatorEnv, ctx: z.RefinementCtx): void {
  const app = [e.WAITGATE_GITHUB_APP_ID, e.WAITGATE_GITHUB_APP_PRIVATE_KEY, e.WAITGATE_GITHUB_APP_INSTALLATION_ID];
  const some = app.some((v) => v !== undefined);
  if (some && app.some((v) => v === undefined)) {
    const missing = (['WAITGATE_GITHUB_APP_ID', 'WAITGATE_GITHUB_APP_PRIVATE_KEY', 'WAITGATE_GITHUB_APP_INSTALLATION_ID'] as const).find(
      (_, i) => app[i] === undefined,
    );
    ctx.addIssue({
      code: 'custom',
      path: [missing ?? 'WAITGATE_GITHUB_APP_ID'],
      message: 'is required with the other GitHub App settings',
    });
  }
  if (some && e.WAITGATE_GITHUB_TOKEN !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['WAITGATE_GITHUB_TOKEN'], message: 'is set as well as a GitHub App: give one of them' });
  }
  if (e.WAITGATE_GITHUB_REDELIVER_HOOKS.length > 0 && !some && e.WAITGATE_GITHUB_TOKEN === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['WAITGATE_GITHUB_REDELIVER_HOOKS'],
      message: 'needs GitHub credentials (WAITGATE_GITHUB_TOKEN or a GitHub App) to list and redeliver',
    });
  } else if (e.WAITGATE_GITHUB_REDELIVER_HOOKS.some((h) => h.kind === 'app') && !some) {
    // GitHub lets only the App itself (its JWT) read and redeliver its own webhook's deliveries.
    ctx.addIssue({
      code: 'custom',
      path: ['WAITGATE_GITHUB_REDELIVER_HOOKS'],
      message: "names the GitHub App's own webhook (app), which needs the GitHub App settings, not a token",
    });
  }
}

/** Azure DevOps: the token names no organisation, so its API URL comes with it. */
function azureRule(e: OperatorEnv, ctx: z.RefinementCtx): void {
  if (e.WAITGATE_AZURE_TOKEN !== undefined && e.WAITGATE_AZURE_API_URL === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['WAITGATE_AZURE_API_URL'],
      message: 'is required with WAITGATE_AZURE_TOKEN (https://dev.azure.com/ORG)',
    });
  }
}

function githubAuthOf(e: OperatorEnv): GitHubAuthConfig | undefined {
  if (e.WAITGATE_GITHUB_TOKEN !== undefined) return { kind: 'token', token: e.WAITGATE_GITHUB_TOKEN };
  if (e.WAITGATE_GITHUB_APP_ID && e.WAITGATE_GITHUB_APP_PRIVATE_KEY && e.WAITGATE_GITHUB_APP_INSTALLATION_ID) {
    return {
      kind: 'app',
      appId: e.WAITGATE_GITHUB_APP_ID,
      // A key pasted into one line of an env var keeps its line breaks as \n.
      privateKey: e.WAITGATE_GITHUB_APP_PRIVATE_KEY.replace(/\\n/g, '\n'),
      installationId: Number(e.WAITGATE_GITHUB_APP_INSTALLATION_ID),
    };
  }
  return undefined;
}

export type GitHubAuthConfig =
  | { readonly kind: 'token'; readonly token: string }
  | { readonly kind: 'app'; readonly appId: string; readonly privateKey: string; readonly installationId: number };

/** Each forge's API credentials, by the Forge vocabulary: a forge missing here is a type error. */
export interface ForgeCredential {
  readonly github: { readonly apiUrl: string; readonly auth: GitHubAuthConfig };
  readonly gitlab: { readonly apiUrl: string; readonly token: string };
  readonly azure: { readonly apiUrl: string; readonly token: string };
}

/** Reporting back to the forges and asking GitHub for failed deliveries; each forge off without credentials. */
export type ForgeConfig = { readonly [F in Forge]: ForgeCredential[F] | undefined } & {
  /** The transitions reported (WAITGATE_FORGE_REPORT), to every forge with credentials. */
  readonly report: readonly ReportTransition[];
  /**
   * Namespaces whose HeldJobs are reported whoever made them (WAITGATE_FORGE_REPORT_NAMESPACES);
   * elsewhere only those the receiver made (api/forge-reports.ts, reportRefusal).
   */
  readonly reportNamespaces: readonly string[];
  /** GitHub hooks whose failed deliveries are asked for again (needs GitHub credentials). */
  readonly redeliverHooks: readonly HookRef[];
  readonly redeliverIntervalMs: number;
};

/** The forges that have credentials, so reports can go to them. */
export function reportingForges(f: ForgeConfig): Forge[] {
  return FORGES.filter((forge) => f[forge] !== undefined);
}

export interface OperatorConfig {
  readonly kubeconfigPath: string | undefined;
  readonly valkeyUrl: string;
  readonly valkeyPrefix: string;
  /** A PEM file of the CA that signed Valkey's certificate (rediss:// only); unset: the system's CAs. */
  readonly valkeyCaFile: string | undefined;
  readonly wait: {
    readonly intervalMs: number;
    /** True when the configured interval was under the floor and was raised to it. */
    readonly intervalFloored: boolean;
    readonly checkTimeoutMs: number;
    readonly checkSlots: number;
    readonly maxMs: number;
    readonly afterMaxMs: number;
    readonly maxChecks: number;
    readonly maxFaults: number;
    readonly killGraceMs: number;
  };
  /** Jobs running at once per scope key (the target's repository), fleet-wide. */
  readonly scopeLimit: number;
  /**
   * How long a scope place taken for a launch lives unless renewed: the place of a hold whose
   * launch is not yet recorded (a crashed launch frees its place by itself after this).
   */
  readonly scopeLeaseTtlMs: number;
  readonly pauseWindows: readonly PauseWindow[];
  /** Which variables exec checks see: PATH, HOME, LANG, TZ and the allowed names, or all (inherit). */
  readonly checkEnv: CheckEnvPolicy;
  /** How often check Pods that no running check awaits are deleted (besides at start). */
  readonly checkPodSweepMs: number;
  /**
   * How long a check Pod may take to be scheduled and start its container; the check's own
   * timeout (wait.checkTimeoutMs) counts from the container's start.
   */
  readonly podStartTimeoutMs: number;
  /** The image of pod-mode profiles that name none (the chart: the waitgate image); unset: they must name one. */
  readonly checkImage: string | undefined;
  /** Check Pods' pull secrets and placement, before a profile's own (WAITGATE_CHECK_POD_DEFAULTS). */
  readonly checkPodDefaults: CheckPodDefaults;
  /** How long a finished HeldJob is kept after status.finishedAt before it is deleted; 0 keeps it. */
  readonly finishedTtlMs: number;
  /** A mounted profiles ConfigMap; unset: the operator writes the scripts itself. */
  readonly profilesDir: string | undefined;
  readonly metricsPort: number;
  readonly metricsHost: string;
  /** With several replicas: only the holder of this Lease (in WAITGATE_NAMESPACE) reconciles. */
  readonly leaderElection: { readonly enabled: boolean; readonly leaseName: string };
  /**
   * Jobs running at once across the fleet (every operator on this Valkey and prefix); undefined,
   * the default: no such cap (the scheduler and quotas bound them; WAITGATE_SCOPE_LIMIT still
   * bounds each repository).
   */
  readonly concurrency: number | undefined;
  readonly workerName: string;
  readonly namespace: string;
  /** The names of its two ConfigMaps in `namespace` (a release of the chart names them after itself). */
  readonly configMaps: { readonly profiles: string; readonly triggers: string };
  /** Empty: every namespace. */
  readonly watchNamespace: string;
  readonly reconcileWorkers: number;
  readonly logLevel: string;
  readonly forge: ForgeConfig;
}

export function parseOperatorConfig(env: Record<string, string | undefined>): OperatorConfig {
  const e = parseEnv(
    operatorEnvSchema
      .superRefine(valkeyCaNeedsTls)
      .superRefine((e, ctx) => githubAuthRule(e, ctx))
      .superRefine((e, ctx) => azureRule(e, ctx)),
    env,
  );
  const githubAuth = githubAuthOf(e);
  return {
    kubeconfigPath: e.KUBECONFIG,
    valkeyUrl: e.VALKEY_URL,
    valkeyPrefix: e.WAITGATE_VALKEY_PREFIX,
    valkeyCaFile: e.WAITGATE_VALKEY_CA_FILE,
    wait: {
      intervalMs: Math.max(e.WAITGATE_WAIT_INTERVAL_MS, WAIT_INTERVAL_FLOOR_MS),
      intervalFloored: e.WAITGATE_WAIT_INTERVAL_MS < WAIT_INTERVAL_FLOOR_MS,
      checkTimeoutMs: e.WAITGATE_WAIT_CHECK_TIMEOUT_MS,
      checkSlots: e.WAITGATE_WAIT_CHECK_SLOTS,
      maxMs: e.WAITGATE_WAIT_MAX_MS,
      afterMaxMs: e.WAITGATE_WAIT_AFTER_MAX_MS,
      maxChecks: e.WAITGATE_WAIT_MAX_CHECKS,
      maxFaults: e.WAITGATE_WAIT_MAX_FAULTS,
      killGraceMs: e.WAITGATE_CHECK_KILL_GRACE_MS,
    },
    scopeLimit: e.WAITGATE_SCOPE_LIMIT,
    scopeLeaseTtlMs: e.WAITGATE_SCOPE_LEASE_TTL_MS,
    pauseWindows: e.WAITGATE_PAUSE_WINDOWS,
    checkEnv: { allow: e.WAITGATE_CHECK_ENV_ALLOW, inherit: e.WAITGATE_CHECK_ENV_INHERIT },
    checkPodSweepMs: e.WAITGATE_CHECK_POD_SWEEP_MS,
    podStartTimeoutMs: e.WAITGATE_POD_START_TIMEOUT_MS,
    checkImage: e.WAITGATE_CHECK_IMAGE,
    checkPodDefaults: e.WAITGATE_CHECK_POD_DEFAULTS,
    finishedTtlMs: e.WAITGATE_FINISHED_TTL_MS,
    profilesDir: e.WAITGATE_PROFILES_DIR,
    metricsPort: e.WAITGATE_METRICS_PORT,
    metricsHost: e.WAITGATE_METRICS_HOST,
    leaderElection: { enabled: e.WAITGATE_LEADER_ELECTION, leaseName: e.WAITGATE_LEADER_ELECTION_ID },
    concurrency: e.WAITGATE_CONCURRENCY,
    workerName: e.WAITGATE_WORKER_NAME,
    namespace: e.WAITGATE_NAMESPACE,
    configMaps: { profiles: e.WAITGATE_PROFILES_CONFIGMAP, triggers: e.WAITGATE_TRIGGERS_CONFIGMAP },
    watchNamespace: e.WAITGATE_WATCH_NAMESPACE,
    reconcileWorkers: e.WAITGATE_RECONCILE_WORKERS,
    logLevel: e.WAITGATE_LOG_LEVEL,
    forge: {
      report: e.WAITGATE_FORGE_REPORT,
      reportNamespaces: e.WAITGATE_FORGE_REPORT_NAMESPACES,
      github: githubAuth ? { apiUrl: e.WAITGATE_GITHUB_API_URL, auth: githubAuth } : undefined,
      gitlab: e.WAITGATE_GITLAB_TOKEN !== undefined ? { apiUrl: e.WAITGATE_GITLAB_API_URL, token: e.WAITGATE_GITLAB_TOKEN } : undefined,
      azure:
        e.WAITGATE_AZURE_TOKEN !== undefined && e.WAITGATE_AZURE_API_URL !== undefined
          ? { apiUrl: e.WAITGATE_AZURE_API_URL, token: e.WAITGATE_AZURE_TOKEN }
          : undefined,
      redeliverHooks: e.WAITGATE_GITHUB_REDELIVER_HOOKS,
      redeliverIntervalMs: e.WAITGATE_GITHUB_REDELIVER_INTERVAL_MS,
    },
  };
}
