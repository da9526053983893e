// The triggers and profiles ConfigMaps, watched: a change applies without a restart.
import * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { RestartingInformer } from '../../lib/kube/informer.js';
import { declaredNames, parseProfiles, PROFILES_CONFIGMAP } from '../../api/profiles.js';
import type { DeclaredProfiles } from '../../api/refusal-rules.js';
import { parseTriggersFile, TRIGGERS_CONFIGMAP, TRIGGERS_KEY, type Trigger } from '../../api/triggers/triggers-file.js';
import type { TriggerView } from '../delivery/deliver.js';

/** How the profiles read until a waitgate-profiles ConfigMap is seen, and after it is deleted. */
const MISSING: DeclaredProfiles = { state: 'unreadable' };

export class ConfigMapTriggerView implements TriggerView {
  private loaded: readonly Trigger[] | undefined;
  // A profiles ConfigMap that is not there (never created, or deleted) is a configuration
  // slip like one that does not load: it refuses nothing, and the operator pauses such holds.
  private declared: DeclaredProfiles = MISSING;
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

  async start(): Promise<void> {
    await this.informer.start();
    if (this.informer.hasSynced && this.declared === MISSING) {
      this.log.warn(
        { configMap: PROFILES_CONFIGMAP },
        'Found no profiles ConfigMap; no delivery is refused for its profiles until one is created',
      );
    }
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

  /** One event of the informer: a ConfigMap of the namespace added, changed or deleted. */
  apply(event: 'add' | 'update' | 'delete', cm: k8s.V1ConfigMap): void {
    const name = cm.metadata?.name;
    if (name === PROFILES_CONFIGMAP) {
      if (event === 'delete') {
        this.declared = MISSING;
        this.log.warn('Profiles ConfigMap deleted; no delivery is refused for its profiles until it returns');
        return;
      }
      // Read as the operator reads it; one that does not load refuses nothing either.
      const parsed = parseProfiles(cm.data);
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
