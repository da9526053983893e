// The triggers and profiles ConfigMaps, watched: a change applies without a restart.
import * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { RestartingInformer } from '../../lib/kube/informer.js';
import { declaredNames, parseProfiles, PROFILES_CONFIGMAP } from '../../api/profiles.js';
import type { DeclaredProfiles } from '../../api/refusal-rules.js';
import { parseTriggersFile, TRIGGERS_CONFIGMAP, TRIGGERS_KEY, type Trigger } from '../../api/triggers/triggers-file.js';
import type { TriggerView } from '../delivery/deliver.js';

export class ConfigMapTriggerView implements TriggerView {
  private loaded: readonly Trigger[] | undefined;
  private declared: DeclaredProfiles = { state: 'ok', names: new Set() };
  private readonly informer: RestartingInformer<k8s.V1ConfigMap>;
  /** Called with each refused triggers file (refusal count), for metrics. */
  onRefusedFile: (count: number) => void = () => {};

  constructor(
    kc: k8s.KubeConfig,
    namespace: string,
    private readonly log: Logger,
  ) {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    this.informer = new RestartingInformer<k8s.V1ConfigMap>({
      kubeConfig: kc,
      path: `/api/v1/namespaces/${namespace}/configmaps`,
      list: () => core.listNamespacedConfigMap({ namespace }),
      log,
      onEvent: (event, cm) => this.apply(event, cm),
    });
  }

  start(): Promise<void> {
    return this.informer.start();
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }

  triggers(): readonly Trigger[] | undefined {
    return this.loaded;
  }

  profiles(): DeclaredProfiles {
    return this.declared;
  }

  private apply(event: 'add' | 'update' | 'delete', cm: k8s.V1ConfigMap): void {
    const name = cm.metadata?.name;
    if (name === PROFILES_CONFIGMAP) {
      // Read as the operator reads it. A deleted ConfigMap declares no profile; one that does
      // not load is unreadable and refuses nothing: the operator pauses those holds instead.
      const parsed = parseProfiles(event === 'delete' ? undefined : cm.data);
      this.declared = declaredNames(parsed);
      if (parsed.ok) this.log.info({ profiles: parsed.profiles.size }, 'Loaded profiles');
      else
        this.log.error(
          { problems: parsed.problems },
          'Profiles ConfigMap does not load; no delivery is refused for its profiles until it does',
        );
      return;
    }
    if (name !== TRIGGERS_CONFIGMAP) return;
    if (event === 'delete') {
      this.loaded = undefined;
      this.log.warn('Triggers ConfigMap deleted; refusing deliveries until it returns');
      return;
    }
    const r = parseTriggersFile(cm.data?.[TRIGGERS_KEY] ?? '');
    if (r.ok) {
      this.loaded = r.triggers;
      this.log.info({ triggers: r.triggers.length }, 'Loaded triggers');
      return;
    }
    // A refused file never replaces a good one: keep serving the last file that loaded.
    this.onRefusedFile(r.refusals.length);
    this.log.error(
      { refusals: r.refusals.map((x) => ({ where: x.where, path: x.path, code: x.code })), keptPrevious: this.loaded !== undefined },
      'Refused triggers file',
    );
  }
}
