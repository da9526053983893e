// The operator's view of its two ConfigMaps in WAITGATE_NAMESPACE (named by
// WAITGATE_PROFILES_CONFIGMAP and WAITGATE_TRIGGERS_CONFIGMAP), watched: a change
// applies without a restart, and every hold looks again.
import * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { parseProfiles, withCheckImage, type Profile } from '../../api/profiles.js';
import { parseTriggersFile, TRIGGERS_KEY } from '../../api/triggers/triggers-file.js';
import type { ProfilesView, TriggersView } from '../decide/observed.js';
import { RestartingInformer } from '../../lib/kube/informer.js';

/** Which triggers of a triggers.json text say wait, and each trigger, by name. */
export function triggersView(text: string | undefined): TriggersView {
  if (text === undefined) return { state: 'unreadable', problem: `the ConfigMap has no ${TRIGGERS_KEY} key` };
  const r = parseTriggersFile(text);
  if (!r.ok)
    return { state: 'unreadable', problem: `${r.refusals.length} refusal(s), first: ${r.refusals[0]?.code} at ${r.refusals[0]?.path}` };
  return {
    state: 'ok',
    waits: new Map(r.triggers.map((t) => [t.name, (t.run.waitFor ?? []).length > 0])),
    declared: new Map(r.triggers.map((t) => [t.name, t])),
  };
}

export interface ConfigMapViewsOptions {
  readonly kubeConfig: k8s.KubeConfig;
  readonly namespace: string;
  /** The two ConfigMaps' names (WAITGATE_PROFILES_CONFIGMAP, WAITGATE_TRIGGERS_CONFIGMAP). */
  readonly names: { readonly profiles: string; readonly triggers: string };
  readonly log: Logger;
  /** WAITGATE_CHECK_IMAGE: the image of pod-mode profiles that name none. */
  readonly checkImage: string | undefined;
  /** Called after either ConfigMap changed (or went), with the profiles' data for the scripts. */
  readonly onChange: (profilesData: Record<string, string> | undefined, profiles: ReadonlyMap<string, Profile>) => void;
}

export class ConfigMapViews {
  private profilesView: ProfilesView = { state: 'unreadable', problem: 'not read yet' };
  private triggersViewNow: TriggersView = { state: 'unreadable', problem: 'not read yet' };
  private readonly informer: RestartingInformer<k8s.V1ConfigMap>;

  constructor(private readonly opts: ConfigMapViewsOptions) {
    const core = opts.kubeConfig.makeApiClient(k8s.CoreV1Api);
    this.informer = new RestartingInformer<k8s.V1ConfigMap>({
      kubeConfig: opts.kubeConfig,
      path: `/api/v1/namespaces/${opts.namespace}/configmaps`,
      list: () => core.listNamespacedConfigMap({ namespace: opts.namespace }),
      log: opts.log,
      onEvent: (event, cm) => this.apply(event, cm),
    });
  }

  async start(): Promise<void> {
    await this.informer.start();
    // Whatever was not listed does not exist.
    if (!this.informer.get(this.opts.names.triggers, this.opts.namespace)) this.triggersViewNow = { state: 'missing' };
    if (!this.informer.get(this.opts.names.profiles, this.opts.namespace)) this.setProfiles(undefined);
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }

  profiles(): ProfilesView {
    return this.profilesView;
  }

  triggers(): TriggersView {
    return this.triggersViewNow;
  }

  private apply(event: 'add' | 'update' | 'delete', cm: k8s.V1ConfigMap): void {
    const name = cm.metadata?.name;
    if (name === this.opts.names.profiles) {
      this.setProfiles(event === 'delete' ? undefined : (cm.data ?? {}));
    } else if (name === this.opts.names.triggers) {
      this.triggersViewNow = event === 'delete' ? { state: 'missing' } : triggersView(cm.data?.[TRIGGERS_KEY]);
      if (this.triggersViewNow.state === 'ok') this.opts.log.info({ triggers: this.triggersViewNow.waits.size }, 'Loaded triggers');
      else this.opts.log.error({ triggers: this.triggersViewNow }, 'Cannot compare holds with their triggers');
      this.opts.onChange(undefined, this.profilesView.state === 'ok' ? this.profilesView.profiles : new Map());
    }
  }

  private setProfiles(data: Record<string, string> | undefined): void {
    // No ConfigMap is not "no profiles": a missing, deleted or not yet recreated ConfigMap, or an
    // operator pointed at the wrong namespace, pauses the profile holds; it refuses none.
    const r =
      data === undefined
        ? { ok: false as const, problems: [`ConfigMap ${this.opts.names.profiles} is not in namespace ${this.opts.namespace}`] }
        : withCheckImage(parseProfiles(data), this.opts.checkImage);
    if (r.ok) {
      this.profilesView = { state: 'ok', profiles: r.profiles };
      this.opts.log.info({ profiles: [...r.profiles.keys()] }, 'Loaded profiles');
      this.opts.onChange(data, r.profiles);
    } else {
      this.profilesView = { state: 'unreadable', problem: r.problems.join('; ') };
      this.opts.log.error({ problems: r.problems }, 'Refused profiles ConfigMap');
      this.opts.onChange(undefined, new Map());
    }
  }
}
