// One e2e scenario: its own namespace and its own operator process watching only that
// namespace, so scenarios run side by side without seeing each other.
import { operatorProcess, type ServiceProcess } from './service-process.js';
import { TestKube } from './kube.js';

export interface Scenario {
  readonly kube: TestKube;
  readonly namespace: string;
  readonly operator: ServiceProcess;
  /** Starts another operator process on the same namespace (after a kill). */
  restartOperator(): Promise<ServiceProcess>;
}

export async function withScenario(
  label: string,
  body: (s: Scenario) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const kube = new TestKube();
  const namespace = await kube.createNamespace(label);
  const operators: ServiceProcess[] = [];
  const startOperator = async () => {
    const op = operatorProcess({ WAITGATE_WATCH_NAMESPACE: namespace, ...env }, `${namespace}-operator-${operators.length}`);
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
