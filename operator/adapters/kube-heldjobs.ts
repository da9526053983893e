// HeldJob I/O: status writes (optimistic, with resourceVersion) and Events.
import * as k8s from '@kubernetes/client-node';
import { boundText } from '../../api/bounded-text.js';
import type { HeldJobObject, HeldJobStatus } from '../../api/heldjob-schema.js';
import { API_GROUP, API_VERSION, HELDJOB_KIND, HELDJOB_PLURAL } from '../../api/vocabulary.js';
import { statusCodeOf } from '../../lib/kube/client.js';
import { pageParams, type ListPage } from '../../lib/kube/informer.js';
import type { EventSpec } from '../decide/actions.js';
import { eventName } from './event-name.js';

/** Who records the Events: the controller (its component name) and this replica of it (its pod name). */
export interface EventReporter {
  /** source.component and reportingComponent (`kubectl describe` shows it under From). */
  readonly component: string;
  /** reportingInstance: the pod's name, its hostname. */
  readonly instance: string;
}

/** An Event counted again while another replica counted it too (409): tried this often at most. */
const RECOUNT_TRIES = 3;
/** The apiserver keeps reportingInstance to 128 characters. */
const INSTANCE_MAX = 128;

/** metav1.Time: RFC 3339 in whole seconds. */
const rfc3339 = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

export class KubeHeldJobs {
  private readonly custom: k8s.CustomObjectsApi;
  private readonly core: k8s.CoreV1Api;

  constructor(
    kc: k8s.KubeConfig,
    private readonly reporter: EventReporter,
  ) {
    this.custom = kc.makeApiClient(k8s.CustomObjectsApi);
    this.core = kc.makeApiClient(k8s.CoreV1Api);
  }

  /** Lists HeldJobs in one namespace, or in all when namespace is empty; one page of them when `page` is given. */
  list(namespace: string, page?: ListPage): Promise<k8s.KubernetesListObject<HeldJobObject & k8s.KubernetesObject>> {
    const base = { group: API_GROUP, version: API_VERSION, plural: HELDJOB_PLURAL, ...pageParams(page) };
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

  /**
   * Records an Event under the name its content gives it (eventName). The same Event said
   * again on the same HeldJob meets AlreadyExists, and its count and lastTimestamp go up on
   * the one there, as kubectl describe shows ("x3 over 2m"), instead of a second Event. Its
   * message is bounded (boundText), as every message waitgate writes is: every Event of the
   * operator's, whoever said it, passes here.
   */
  async recordEvent(heldJob: HeldJobObject, said: EventSpec, now: number): Promise<void> {
    const event: EventSpec = { ...said, message: boundText(said.message) };
    const { namespace } = heldJob.metadata;
    const name = eventName(heldJob.metadata, event);
    try {
      await this.createEvent(heldJob, event, name, now);
    } catch (err) {
      if (statusCodeOf(err) !== 409) throw err;
      await this.countAgain(namespace, name, now);
    }
  }

  /** One more of an Event that exists: its count up by one, with its resourceVersion, so two counts never make one. */
  private async countAgain(namespace: string, name: string, now: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const seen = await this.core.readNamespacedEvent({ name, namespace });
      try {
        await this.core.patchNamespacedEvent(
          {
            name,
            namespace,
            body: {
              metadata: { resourceVersion: seen.metadata?.resourceVersion },
              count: (seen.count ?? 1) + 1,
              lastTimestamp: rfc3339(now),
            },
          },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        );
        return;
      } catch (err) {
        if (statusCodeOf(err) !== 409 || attempt >= RECOUNT_TRIES) throw err;
      }
    }
  }

  private async createEvent(heldJob: HeldJobObject, event: EventSpec, name: string, now: number): Promise<void> {
    const t = new Date(Math.floor(now / 1000) * 1000);
    const { component, instance } = this.reporter;
    await this.core.createNamespacedEvent({
      namespace: heldJob.metadata.namespace,
      body: {
        metadata: { name, namespace: heldJob.metadata.namespace },
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
        source: { component },
        reportingComponent: component,
        reportingInstance: instance.slice(0, INSTANCE_MAX),
      },
    });
  }
}
