// Receiver configuration, from the environment; parsed once, in main.ts. Empty strings
// count as unset; a bad value stops the receiver naming the variable.
import { z } from 'zod';
import { integer, logLevel, parseEnv, text, textOr, valkeyCaNeedsTls, valkeyUrl } from '../lib/config/env.js';

export const receiverEnvSchema = z.object({
  KUBECONFIG: text(),
  VALKEY_URL: valkeyUrl('the receiver deduplicates deliveries and serialises holds in Valkey'),
  WAITGATE_VALKEY_PREFIX: textOr('waitgate'),
  WAITGATE_VALKEY_CA_FILE: text(),
  WAITGATE_RECEIVER_PORT: integer(8080, { min: 0, max: 65535 }),
  WAITGATE_RECEIVER_HOST: textOr('0.0.0.0'),
  WAITGATE_GITHUB_WEBHOOK_SECRET: text(),
  WAITGATE_GITLAB_WEBHOOK_TOKEN: text(),
  WAITGATE_JOB_NAMESPACE: textOr('default'),
  WAITGATE_NAMESPACE: textOr('waitgate-system'),
  WAITGATE_WAIT_AFTER_MAX_MS: integer(2_592_000_000, { min: 1 }),
  WAITGATE_LOG_LEVEL: logLevel(),
});

export interface ReceiverConfig {
  readonly kubeconfigPath: string | undefined;
  readonly valkeyUrl: string;
  readonly valkeyPrefix: string;
  /** A PEM file of the CA that signed Valkey's certificate (rediss:// only); unset: the system's CAs. */
  readonly valkeyCaFile: string | undefined;
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
  const e = parseEnv(receiverEnvSchema.superRefine(valkeyCaNeedsTls), env);
  return {
    kubeconfigPath: e.KUBECONFIG,
    valkeyUrl: e.VALKEY_URL,
    valkeyPrefix: e.WAITGATE_VALKEY_PREFIX,
    valkeyCaFile: e.WAITGATE_VALKEY_CA_FILE,
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
