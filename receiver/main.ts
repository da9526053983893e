// The receiver's entry point: configuration, wiring, and nothing else.
import { FORGES } from '../api/vocabulary.js';
import { configOrExit } from '../lib/config/env.js';
import { loadKubeConfig } from '../lib/kube/client.js';
import { createRootLogger } from '../lib/logger.js';
import { connectValkey } from '../lib/valkey/connection.js';
import { ValkeyKeys } from '../lib/valkey/keys.js';
import { Leases } from '../lib/valkey/leases.js';
import { FileTriggerView } from './adapters/config-files.js';
import { ConfigMapTriggerView } from './adapters/config-maps.js';
import { KubeOnceRecords } from './adapters/kube-once-records.js';
import { KubeRecords } from './adapters/kube-records.js';
import { ValkeyHoldHistory } from './adapters/valkey-hold-history.js';
import { ValkeySeenLabels } from './adapters/valkey-seen-labels.js';
import { parseReceiverConfig, webhookSecretsOf } from './config.js';
import { Deliverer } from './delivery/deliver.js';
import { ForgeRevisions } from './forges/revisions.js';
import { drainServer } from './http/drain.js';
import { createMetricsServer, createReceiverServer } from './http/server.js';
import { ReceiverMetrics } from './metrics.js';

/** After its body has arrived, the most a delivery takes to be handled (Valkey and apiserver calls), ms. */
const DELIVERY_HANDLING_MS = 10_000;

async function main(): Promise<void> {
  const config = configOrExit('waitgate-receiver', () => parseReceiverConfig(process.env));
  const log = createRootLogger('waitgate-receiver', config.logLevel);
  const secrets = webhookSecretsOf(config);
  if (FORGES.every((f) => secrets[f].length === 0)) {
    log.warn('No forge has a webhook secret or token: every delivery will be refused 401');
  }
  for (const forge of FORGES) {
    if (config.webhookSecrets[forge].length > 0) {
      // Finding 3 of #30: a secret every hook shares lets any repository's admin name another repository.
      log.warn(
        { forge, unscoped: config.webhookSecrets[forge].length, scoped: config.scopedWebhookSecrets[forge].length },
        `The ${forge} webhook secrets of WAITGATE_${forge.toUpperCase()}_WEBHOOK_${forge === 'gitlab' ? 'TOKEN(S)' : 'SECRET(S)'} speak for every repository; scope them to repositories with WAITGATE_${forge.toUpperCase()}_WEBHOOK_SCOPED_${forge === 'gitlab' ? 'TOKENS' : 'SECRETS'}`,
      );
    }
  }
  const kc = loadKubeConfig(config.kubeconfigPath);
  const metrics = new ReceiverMetrics();
  const redis = connectValkey(config.valkeyUrl, { caFile: config.valkeyCaFile });
  redis.on('error', (err) => log.warn({ err }, 'Valkey connection error'));
  // In the chart's Pod the kubelet mounts the ConfigMaps (the receiver may not read them);
  // elsewhere they are watched through the API.
  const view = config.configFolders ? new FileTriggerView(config.configFolders, log) : new ConfigMapTriggerView(kc, config.namespace, log);
  view.onRefusedFile = () => metrics.triggersFileRefusals.inc();
  const keys = new ValkeyKeys(config.valkeyPrefix);
  const forgeApis = new ForgeRevisions(config.forgeApis);
  const deliverer = new Deliverer({
    view,
    records: new KubeRecords(kc),
    once: new KubeOnceRecords(kc),
    leases: new Leases(redis),
    history: new ValkeyHoldHistory(redis, keys, undefined, (found) =>
      log.warn(found, 'Ignored a Valkey key no waitgate process wrote (another client of a shared Valkey?)'),
    ),
    namespace: config.jobNamespace,
    keys,
    afterMaxMs: config.afterMaxMs,
    onceTtlMs: config.onceTtlMs,
    revisions: forgeApis,
    seenLabels: new ValkeySeenLabels(redis, keys),
    ...(config.confirmLabels ? { labels: forgeApis } : {}),
    now: () => Date.now(),
    log,
  });
  const server = createReceiverServer({
    secrets,
    limits: config.limits,
    deliver: (e) => deliverer.deliver(e),
    metrics,
    log,
  });
  let draining = false;
  const metricsServer = createMetricsServer({
    ready: async () => !draining && view.triggers() !== undefined && (await redis.ping()) === 'PONG',
    metrics,
  });

  // Readiness fails first, the deliveries in flight finish, then the process exits.
  const shutdown = async (signal: string) => {
    if (draining) return;
    draining = true;
    log.info({ signal, drainMs: config.drainMs }, 'Draining');
    const { drained } = await drainServer(server, {
      graceMs: config.drainMs,
      deadlineMs: config.limits.requestTimeoutMs + DELIVERY_HANDLING_MS,
    });
    if (!drained) log.warn({ deadlineMs: config.limits.requestTimeoutMs + DELIVERY_HANDLING_MS }, 'Cut deliveries still open');
    metricsServer.close();
    await view.stop();
    await redis.quit().catch(() => redis.disconnect());
    log.info({ drained }, 'Stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await view.start();
  await new Promise<void>((resolve) => metricsServer.listen(config.metricsPort, config.metricsHost, resolve));
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const portOf = (s: typeof server, configured: number) => {
    const addr = s.address();
    return typeof addr === 'object' && addr ? addr.port : configured;
  };
  log.info(
    {
      port: portOf(server, config.port),
      host: config.host ?? '(every address)',
      metricsPort: portOf(metricsServer, config.metricsPort),
      metricsHost: config.metricsHost ?? '(every address)',
      jobNamespace: config.jobNamespace,
      triggersFrom: config.configFolders ? 'files' : 'api',
      limits: config.limits,
      webhookSecrets: Object.fromEntries(FORGES.map((f) => [f, config.webhookSecrets[f].length])),
      scopedWebhookSecrets: Object.fromEntries(FORGES.map((f) => [f, config.scopedWebhookSecrets[f].length])),
      confirmLabels: config.confirmLabels,
      forgeApis: Object.keys(config.forgeApis),
    },
    'Listening',
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`waitgate-receiver: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
