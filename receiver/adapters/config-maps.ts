// The triggers and profiles ConfigMaps, watched through the API: a change applies without a
// restart. For a receiver run outside the chart (a host process, tests, dev); in the chart's
// Pod the kubelet mounts them instead (config-files.ts) and the receiver may not read them.
import * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { RestartingInformer } from '../../lib/kube/informer.js';
import type { DeclaredProfiles } from '../../api/refusal-rules.js';
import type { Trigger } from '../../api/triggers/triggers-file.js';
import type { TriggerView } from '../delivery/deliver.js';
import { TriggerConfig } from './trigger-config.js';

export class ConfigMapTriggerView implements TriggerView {
  private readonly config: TriggerConfig;
  private readonly informer: RestartingInformer<k8s.V1ConfigMap>;

  constructor(kc: k8s.KubeConfig, namespace: string, log: Logger) {
    this.config = new TriggerConfig(log);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    this.informer = new RestartingInformer<k8s.V1ConfigMap>({
      kubeConfig: kc,
      path: `/api/v1/namespaces/${namespace}/configmaps`,
      list: () => core.listNamespacedConfigMap({ namespace }),
      log,
      onEvent: (event, cm) => this.apply(event, cm),
    });
  }

  /** Called with each refused triggers file (refusal count), for metrics. */
  set onRefusedFile(f: (count: number) => void) {
    this.config.onRefusedFile = f;
  }

  async start(): Promise<void> {
    await this.informer.start();
    if (this.informer.hasSynced) this.config.warnIfNoProfiles();
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }

  triggers(): readonly Trigger[] | undefined {
    return this.config.triggers();
  }

  profiles(): DeclaredProfiles {
    return this.config.profiles();
  }

  /** One event of the informer: a ConfigMap of the namespace added, changed or deleted. */
  apply(event: 'add' | 'update' | 'delete', cm: k8s.V1ConfigMap): void {
    this.config.apply(cm.metadata?.name, event === 'delete' ? undefined : (cm.data ?? {}));
  }
}
