// What the receiver holds of the triggers and profiles ConfigMaps, however their data reaches
// it (the API's informer, config-maps.ts, or the files the kubelet mounts, config-files.ts):
// one place that applies a ConfigMap's data, with its log lines and its refusal count.
import type { Logger } from 'pino';
import { declaredNames, parseProfiles, PROFILES_CONFIGMAP } from '../../api/profiles.js';
import type { DeclaredProfiles } from '../../api/refusal-rules.js';
import { parseTriggersFile, TRIGGERS_CONFIGMAP, TRIGGERS_KEY, type Trigger } from '../../api/triggers/triggers-file.js';

/** How the profiles read until a waitgate-profiles ConfigMap is seen, and after it is deleted. */
const MISSING: DeclaredProfiles = { state: 'unreadable' };

/** A ConfigMap's data, or undefined: the ConfigMap is not there (never created, or deleted). */
export type ConfigMapData = Readonly<Record<string, string>> | undefined;

export class TriggerConfig {
  private loaded: readonly Trigger[] | undefined;
  // A profiles ConfigMap that is not there (never created, or deleted) is a configuration
  // slip like one that does not load: it refuses nothing, and the operator pauses such holds.
  private declared: DeclaredProfiles = MISSING;
  private profilesSeen = false;
  private triggersSeen = false;
  /** Called with each refused triggers file (refusal count), for metrics. */
  onRefusedFile: (count: number) => void = () => {};

  constructor(private readonly log: Logger) {}

  triggers(): readonly Trigger[] | undefined {
    return this.loaded;
  }

  profiles(): DeclaredProfiles {
    return this.declared;
  }

  /** Once the first look is done: says so when there is no profiles ConfigMap. */
  warnIfNoProfiles(): void {
    if (!this.profilesSeen) {
      this.log.warn(
        { configMap: PROFILES_CONFIGMAP },
        'Found no profiles ConfigMap; no delivery is refused for its profiles until one is created',
      );
    }
  }

  /** The data of one ConfigMap of the release namespace, now; undefined when it was deleted. */
  apply(name: string | undefined, data: ConfigMapData): void {
    if (name === PROFILES_CONFIGMAP) this.applyProfiles(data);
    else if (name === TRIGGERS_CONFIGMAP) this.applyTriggers(data);
  }

  private applyProfiles(data: ConfigMapData): void {
    if (data === undefined) {
      if (!this.profilesSeen) return;
      this.profilesSeen = false;
      this.declared = MISSING;
      this.log.warn('Profiles ConfigMap deleted; no delivery is refused for its profiles until it returns');
      return;
    }
    this.profilesSeen = true;
    // Read as the operator reads it; one that does not load refuses nothing either.
    const parsed = parseProfiles({ ...data });
    this.declared = declaredNames(parsed);
    if (parsed.ok) this.log.info({ profiles: parsed.profiles.size }, 'Loaded profiles');
    else
      this.log.error(
        { problems: parsed.problems },
        'Profiles ConfigMap does not load; no delivery is refused for its profiles until it does',
      );
  }

  private applyTriggers(data: ConfigMapData): void {
    if (data === undefined) {
      if (!this.triggersSeen) return;
      this.triggersSeen = false;
      this.loaded = undefined;
      this.log.warn('Triggers ConfigMap deleted; refusing deliveries until it returns');
      return;
    }
    this.triggersSeen = true;
    const r = parseTriggersFile(data[TRIGGERS_KEY] ?? '');
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
