// One e2e scenario: its own namespace and its own operator process watching only that
// namespace, so scenarios run side by side without seeing each other.
import { operatorProcess, type ServiceProcess } from './service-process.js';
import { TestKube } from './kube.js';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { Timeouts } from './timeouts.js';
import { eventually } from './wait.js';

export interface Scenario {
  readonly kube: TestKube;
  readonly namespace: string;
  readonly operator: ServiceProcess;
  /** Starts another operator process on the same namespace (after a kill). */
  restartOperator(): Promise<ServiceProcess>;
}

export interface ScenarioSetup {
  /** Environment of the operator process. */
  readonly env?: Record<string, string>;
  /** ConfigMaps to create in the scenario's namespace before the operator starts. */
  readonly configMaps?: Record<string, Record<string, string>>;
  /** Pods to create in the namespace before the operator starts (leftovers of a crash). */
  readonly pods?: object[];
  /** Annotations of the scenario's namespace (e.g. REAL_NODE_NAMESPACE_ANNOTATIONS). */
  readonly namespaceAnnotations?: Record<string, string>;
}

/** The operator's environment, given the scenario's namespace (for settings that name it). */
export type EnvOfNamespace = (namespace: string) => Record<string, string>;

/**
 * The operator watches only the scenario's namespace and reads its ConfigMaps there too
 * (WAITGATE_NAMESPACE), with a Valkey key prefix of its own.
 */
export async function withScenario(
  label: string,
  body: (s: Scenario) => Promise<void>,
  setup: ScenarioSetup | Record<string, string> | EnvOfNamespace = {},
): Promise<void> {
  const fixed = typeof setup === 'function' ? {} : setup;
  const {
    env: fixedEnv,
    configMaps,
    pods,
    namespaceAnnotations,
  } = 'env' in fixed || 'configMaps' in fixed || 'pods' in fixed || 'namespaceAnnotations' in fixed
    ? (fixed as ScenarioSetup)
    : { env: fixed as Record<string, string>, configMaps: undefined, pods: undefined, namespaceAnnotations: undefined };
  const kube = new TestKube();
  const namespace = await kube.createNamespace(label, namespaceAnnotations);
  const env = typeof setup === 'function' ? setup(namespace) : fixedEnv;
  for (const [name, data] of Object.entries(configMaps ?? {})) {
    await kube.core.createNamespacedConfigMap({ namespace, body: { metadata: { name, namespace }, data } });
  }
  for (const body of pods ?? []) await kube.core.createNamespacedPod({ namespace, body });
  const operators: ServiceProcess[] = [];
  const startOperator = async () => {
    const op = operatorProcess(
      { WAITGATE_WATCH_NAMESPACE: namespace, WAITGATE_NAMESPACE: namespace, WAITGATE_VALKEY_PREFIX: `test-${namespace}`, ...env },
      `${namespace}-operator-${operators.length}`,
    );
    operators.push(op);
    await op.start();
    return op;
  };
  try {
    const operator = await startOperator();
    await body({ kube, namespace, operator, restartOperator: startOperator });
  } catch (err) {
    const logs = operators.map((o) => o.logPath).join(', ');
    throw new Error(`${(err as Error).message}\n(operator logs: ${logs})`, { cause: err });
  } finally {
    await Promise.all(operators.map((o) => o.stop()));
    await kube.deleteNamespace(namespace);
  }
}

/** Polls until the scenario's HeldJob `name` is in `phase`; the HeldJob as then read. */
export function phaseReached(s: Scenario, name: string, phase: string, timeoutMs: number = Timeouts.jobMs): Promise<HeldJobObject> {
  return eventually(
    `${s.namespace}/${name} to reach ${phase}`,
    async () => {
      const hj = await s.kube.getHeldJob(s.namespace, name);
      return hj?.status?.phase === phase ? hj : undefined;
    },
    timeoutMs,
  );
}
