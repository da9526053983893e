// HeldJob records on the apiserver, with retries for brief outages.
import * as k8s from '@kubernetes/client-node';
import { isTransient } from '../../api/apiserver-answers.js';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { refusedStatus, type Refusal } from '../../api/refusal-rules.js';
import { API_GROUP, API_VERSION, HELDJOB_PLURAL } from '../../api/vocabulary.js';
import { statusCodeOf } from '../../lib/kube/client.js';
import type { HeldJobRecords } from '../delivery/deliver.js';
import { UnavailableError } from '../delivery/deliver.js';
import type { HeldJobManifest } from '../delivery/plan.js';

const base = { group: API_GROUP, version: API_VERSION, plural: HELDJOB_PLURAL };

/** Retries what a brief apiserver outage explains (isTransient: no answer, 408, 429, 5xx); then gives up as unavailable. */
export async function withRetries<T>(op: () => Promise<T>, delaysMs: readonly number[] = [100, 300, 900, 2000]): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await op();
    } catch (err) {
      if (!isTransient(statusCodeOf(err))) throw err;
      const delay = delaysMs[attempt];
      if (delay === undefined) throw new UnavailableError('the apiserver is unavailable', { cause: err });
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

export class KubeRecords implements HeldJobRecords {
  private readonly custom: k8s.CustomObjectsApi;

  constructor(kc: k8s.KubeConfig) {
    this.custom = kc.makeApiClient(k8s.CustomObjectsApi);
  }

  async create(manifest: HeldJobManifest): Promise<'created' | 'existed'> {
    try {
      await withRetries(() =>
        this.custom.createNamespacedCustomObject({
          ...base,
          namespace: manifest.metadata.namespace,
          body: manifest,
          fieldValidation: 'Strict',
        }),
      );
      return 'created';
    } catch (err) {
      // The name is taken: by an earlier handling of this delivery, or, for a hold, by the hold
      // of another delivery that got there first. The caller looks at which.
      if (statusCodeOf(err) === 409) return 'existed';
      throw err;
    }
  }

  async markRefused(namespace: string, name: string, refusal: Refusal, now: number): Promise<void> {
    // A refusal record never held: its status starts empty, as the operator's would. Its spec
    // is never changed after the create, so its conditions speak of its first generation.
    const status = refusedStatus({}, refusal, now, 1);
    await withRetries(() =>
      this.custom.patchNamespacedCustomObjectStatus(
        { ...base, namespace, name, body: { status } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      ),
    );
  }

  async get(namespace: string, name: string): Promise<HeldJobObject | undefined> {
    try {
      return (await withRetries(() => this.custom.getNamespacedCustomObject({ ...base, namespace, name }))) as HeldJobObject;
    } catch (err) {
      if (statusCodeOf(err) === 404) return undefined;
      throw err;
    }
  }

  async annotate(
    namespace: string,
    name: string,
    resourceVersion: string | undefined,
    annotations: Record<string, string>,
  ): Promise<'written' | 'conflict' | 'gone'> {
    // A merge patch that carries metadata.resourceVersion is applied only to that version (409 otherwise).
    const metadata = resourceVersion === undefined ? { annotations } : { resourceVersion, annotations };
    try {
      await withRetries(() =>
        this.custom.patchNamespacedCustomObject(
          { ...base, namespace, name, body: { metadata } },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        ),
      );
      return 'written';
    } catch (err) {
      const code = statusCodeOf(err);
      if (code === 409) return 'conflict';
      if (code === 404) return 'gone';
      throw err;
    }
  }

  async liveFor(namespace: string, labelSelector: string): Promise<HeldJobObject[]> {
    const list = (await withRetries(() => this.custom.listNamespacedCustomObject({ ...base, namespace, labelSelector }))) as {
      items: HeldJobObject[];
    };
    return list.items;
  }
}
