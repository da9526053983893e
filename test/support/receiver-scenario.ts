// One receiver scenario: a namespace holding its triggers and profiles ConfigMaps and its
// HeldJobs, a Valkey key prefix of its own, and a receiver process configured for both.
import { TestKube } from './kube.js';
import { requireEnv } from './env.js';
import { AZURE_SECRET, GITHUB_SECRET, GITLAB_TOKEN } from './forge.js';
import { operatorProcess, receiverProcess, receiverUrls, type ServiceProcess } from './service-process.js';
import { eventually } from './wait.js';

export interface ReceiverScenario {
  readonly kube: TestKube;
  readonly namespace: string;
  /** The webhook port: /webhooks/github, /webhooks/gitlab, /healthz. */
  readonly url: string;
  /** The metrics port: /metrics, /readyz. */
  readonly metricsUrl: string;
  readonly receiver: ServiceProcess;
  readonly env: Record<string, string>;
}

export function trigger(
  opts: {
    name?: string;
    labels?: string[];
    waitFor?: object[];
    kind?: string;
    once?: boolean;
    /** on.repositories: the repositories (names or globs) the trigger fires for. */
    repositories?: string[];
    /** Further keys under on, as written (misspelt ones included). */
    onExtra?: Record<string, unknown>;
    replicas?: number;
    /** run.pinRevision: the hold records the commit the labeller saw. */
    pinRevision?: boolean;
    containers?: object[];
    initContainers?: object[];
    /** Exit code the kwok Stage ends the Job's Pod with; "never" keeps it running (as in builders.ts). */
    exitCode?: number | 'never';
  } = {},
): object {
  return {
    name: opts.name ?? 'deploy',
    on: {
      type: 'label',
      any: opts.labels ?? ['waitgate:deploy'],
      ...(opts.once === undefined ? {} : { once: opts.once }),
      ...(opts.repositories === undefined ? {} : { repositories: opts.repositories }),
      ...opts.onExtra,
    },
    run: {
      kind: opts.kind ?? 'github',
      flow: 'deploy',
      ...(opts.waitFor ? { waitFor: opts.waitFor } : {}),
      ...(opts.replicas === undefined ? {} : { replicas: opts.replicas }),
      ...(opts.pinRevision === undefined ? {} : { pinRevision: opts.pinRevision }),
      job: {
        backoffLimit: 0,
        template: {
          ...(opts.exitCode === undefined ? {} : { metadata: { annotations: { 'waitgate.dev/exit-code': String(opts.exitCode) } } }),
          spec: {
            restartPolicy: 'Never',
            containers: opts.containers ?? [{ name: 'deploy', image: 'busybox' }],
            ...(opts.initContainers ? { initContainers: opts.initContainers } : {}),
          },
        },
      },
    },
  };
}

/**
 * A cron trigger, as the reference writes one: refused at load (trigger-cron), and with a
 * waitFor also waitfor-on-cron.
 */
export function cronTrigger(opts: { name?: string; schedule?: string; waitFor?: object[] } = {}): object {
  return {
    name: opts.name ?? 'nightly',
    on: { type: 'cron', schedule: opts.schedule ?? '0 3 * * *' },
    run: {
      kind: 'github',
      flow: 'nightly',
      ...(opts.waitFor ? { waitFor: opts.waitFor } : {}),
      job: { backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'nightly', image: 'busybox' }] } } },
    },
  };
}

export async function putConfigMap(kube: TestKube, namespace: string, name: string, data: Record<string, string>): Promise<void> {
  try {
    await kube.core.replaceNamespacedConfigMap({ name, namespace, body: { metadata: { name, namespace }, data } });
  } catch {
    await kube.core.createNamespacedConfigMap({ namespace, body: { metadata: { name, namespace }, data } });
  }
}

export async function withReceiver(
  label: string,
  setup: {
    triggers: object[];
    profiles?: Record<string, object>;
    /** false: go on once the receiver listens, ready or not (a triggers file it refuses). */
    awaitReady?: boolean;
    /** The profiles ConfigMap's data as given, loadable or not (instead of `profiles`). */
    profilesData?: Record<string, string>;
  },
  body: (s: ReceiverScenario) => Promise<void>,
  envOverrides: Record<string, string> = {},
): Promise<void> {
  const kube = new TestKube();
  const namespace = await kube.createNamespace(label);
  await putConfigMap(kube, namespace, 'waitgate-triggers', { 'triggers.json': JSON.stringify(setup.triggers) });
  if (setup.profiles) {
    // A profiles ConfigMap that loads: every script it names is there.
    const scripts = Object.fromEntries(
      Object.values(setup.profiles).flatMap((p) => {
        const script = (p as { script?: unknown }).script;
        return typeof script === 'string' ? [[script, '#!/bin/sh\nexit 0\n']] : [];
      }),
    );
    await putConfigMap(kube, namespace, 'waitgate-profiles', { 'profiles.json': JSON.stringify(setup.profiles), ...scripts });
  } else if (setup.profilesData) {
    await putConfigMap(kube, namespace, 'waitgate-profiles', setup.profilesData);
  }
  const env = {
    VALKEY_URL: requireEnv('VALKEY_URL'),
    WAITGATE_VALKEY_PREFIX: `test-${namespace}`,
    WAITGATE_NAMESPACE: namespace,
    WAITGATE_JOB_NAMESPACE: namespace,
    WAITGATE_GITHUB_WEBHOOK_SECRET: GITHUB_SECRET,
    WAITGATE_GITLAB_WEBHOOK_TOKEN: GITLAB_TOKEN,
    WAITGATE_AZURE_WEBHOOK_SECRET: AZURE_SECRET,
    ...envOverrides,
  };
  const receiver = receiverProcess(env, `${namespace}-receiver`);
  try {
    const ready = await receiver.start();
    const { url, metricsUrl } = receiverUrls(ready);
    if (setup.awaitReady !== false) {
      await eventually('the receiver to be ready', async () => ((await fetch(`${metricsUrl}/readyz`)).status === 200 ? true : undefined));
    }
    await body({ kube, namespace, url, metricsUrl, receiver, env });
  } catch (err) {
    throw new Error(`${(err as Error).message}\n(receiver log: ${receiver.logPath})`, { cause: err });
  } finally {
    await receiver.stop();
    await kube.deleteNamespace(namespace);
  }
}

/** An operator on the receiver scenario's namespace and Valkey prefix, for the body's length. */
export async function withOperator(s: ReceiverScenario, body: () => Promise<void>): Promise<void> {
  const operator = operatorProcess(
    {
      WAITGATE_WATCH_NAMESPACE: s.namespace,
      WAITGATE_NAMESPACE: s.namespace,
      WAITGATE_VALKEY_PREFIX: s.env['WAITGATE_VALKEY_PREFIX'] ?? '',
    },
    `${s.namespace}-operator`,
  );
  await operator.start();
  try {
    await body();
  } catch (err) {
    throw new Error(`${(err as Error).message}\n(operator log: ${operator.logPath})`, { cause: err });
  } finally {
    await operator.stop();
  }
}
