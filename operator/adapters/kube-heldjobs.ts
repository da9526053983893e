// HeldJob I/O: status writes (optimistic, with resourceVersion) and Events.
import * as k8s from '@kubernetes/client-node';
import type { HeldJobObject, HeldJobStatus } from '../../api/heldjob-schema.js';
import { API_GROUP, API_VERSION, HELDJOB_KIND, HELDJOB_PLURAL } from '../../api/vocabulary.js';
import { statusCodeOf } from '../../lib/kube/client.js';
import type { EventSpec } from '../decide/actions.js';

export class KubeHeldJobs {
  private readonly custom: k8s.CustomObjectsApi;
  private readonly core: k8s.CoreV1Api;

  constructor(
    kc: k8s.KubeConfig,
    private readonly component: string,
  ) {
    this.custom = kc.makeApiClient(k8s.CustomObjectsApi);
    this.core = kc.makeApiClient(k8s.CoreV1Api);
  }

  /** Lists HeldJobs in one namespace, or in all when namespace is empty. */
  list(namespace: string): Promise<k8s.KubernetesListObject<HeldJobObject & k8s.KubernetesObject>> {
    const base = { group: API_GROUP, version: API_VERSION, plural: HELDJOB_PLURAL };
    return namespace ? this.custom.listNamespacedCustomObject({ ...base, namespace }) : this.custom.listClusterCustomObject(base);
  }

  /** Replaces the status; fails with 409 when the HeldJob changed since it was read. */
  async writeStatus<T extends HeldJobObject>(heldJob: T, status: HeldJobStatus): Promise<T> {
    const body = {
      apiVersion: `${API_GROUP}/${API_VERSION}`,
      kind: HELDJOB_KIND,
      metadata: { name: heldJob.metadata.name, namespace: heldJob.metadata.namespace, resourceVersion: heldJob.metadata.resourceVersion },
      spec: heldJob.spec,
      status,
    };
    return (await this.custom.replaceNamespacedCustomObjectStatus({
      group: API_GROUP,
      version: API_VERSION,
      namespace: heldJob.metadata.namespace,
      plural: HELDJOB_PLURAL,
      name: heldJob.metadata.name,
      body,
    })) as T;
  }

  /** Sets metadata.finalizers; fails with 409 when the HeldJob changed since it was read. */
  async setFinalizers<T extends HeldJobObject>(heldJob: T, finalizers: string[]): Promise<T> {
    return (await this.custom.patchNamespacedCustomObject(
      {
        group: API_GROUP,
        version: API_VERSION,
        namespace: heldJob.metadata.namespace,
        plural: HELDJOB_PLURAL,
        name: heldJob.metadata.name,
        body: { metadata: { finalizers, resourceVersion: heldJob.metadata.resourceVersion } },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    )) as T;
  }

  /**
   * Deletes this very HeldJob: the preconditions fail (409) if it changed since it was read or
   * is another object of the same name; its Job goes in the background (owner reference).
   */
  async delete(heldJob: HeldJobObject): Promise<void> {
    try {
      await this.custom.deleteNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        namespace: heldJob.metadata.namespace,
        plural: HELDJOB_PLURAL,
        name: heldJob.metadata.name,
        propagationPolicy: 'Background',
        body: {
          propagationPolicy: 'Background',
          preconditions: {
            uid: heldJob.metadata.uid,
            ...(heldJob.metadata.resourceVersion ? { resourceVersion: heldJob.metadata.resourceVersion } : {}),
          },
        },
      });
    } catch (err) {
      if (statusCodeOf(err) !== 404) throw err;
    }
  }

  async recordEvent(heldJob: HeldJobObject, event: EventSpec, now: number): Promise<void> {
    const t = new Date(now);
    await this.core.createNamespacedEvent({
      namespace: heldJob.metadata.namespace,
      body: {
        metadata: { generateName: `${heldJob.metadata.name}.`, namespace: heldJob.metadata.namespace },
        involvedObject: {
          apiVersion: `${API_GROUP}/${API_VERSION}`,
          kind: HELDJOB_KIND,
          name: heldJob.metadata.name,
          namespace: heldJob.metadata.namespace,
          uid: heldJob.metadata.uid,
          resourceVersion: heldJob.metadata.resourceVersion,
        },
        type: event.type,
        reason: event.reason,
        message: event.message,
        firstTimestamp: t,
        lastTimestamp: t,
        count: 1,
        source: { component: this.component },
        reportingComponent: this.component,
      },
    });
  }
}
