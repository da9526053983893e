// Once records (receiver/delivery/once.ts) as OnceRecords in the job namespace, with the same
// retries as the HeldJob records. Their own resource: the receiver's rights on them are rights
// on nothing else.
import * as k8s from '@kubernetes/client-node';
import { Annotations, API_GROUP, API_VERSION, ONCE_RECORD_PLURAL } from '../../api/vocabulary.js';
import { statusCodeOf } from '../../lib/kube/client.js';
import type { OnceRecords } from '../delivery/deliver.js';
import { OnceState, type OnceRecordManifest } from '../delivery/once.js';
import { withRetries } from './kube-records.js';

/** How often a claim looks again when the record it met is gone before it could be read. */
const CLAIM_ATTEMPTS = 3;

const resource = { group: API_GROUP, version: API_VERSION, plural: ONCE_RECORD_PLURAL } as const;

export class KubeOnceRecords implements OnceRecords {
  private readonly api: k8s.CustomObjectsApi;

  constructor(kc: k8s.KubeConfig) {
    this.api = kc.makeApiClient(k8s.CustomObjectsApi);
  }

  async claim(manifest: OnceRecordManifest): ReturnType<OnceRecords['claim']> {
    const { name, namespace } = manifest.metadata;
    for (let attempt = 1; ; attempt++) {
      try {
        await withRetries(() => this.api.createNamespacedCustomObject({ ...resource, namespace, body: manifest }));
        return { created: true };
      } catch (err) {
        if (statusCodeOf(err) !== 409) throw err;
      }
      try {
        const there = (await withRetries(() => this.api.getNamespacedCustomObject({ ...resource, namespace, name }))) as {
          metadata?: { uid?: string; annotations?: Record<string, string> };
          spec?: Record<string, unknown>;
        };
        return {
          created: false,
          spec: there.spec,
          expiresAt: there.metadata?.annotations?.[Annotations.expiresAt],
          uid: there.metadata?.uid,
        };
      } catch (err) {
        // Deleted between the create and the read (by hand): claim it again.
        if (statusCodeOf(err) !== 404 || attempt >= CLAIM_ATTEMPTS) throw err;
      }
    }
  }

  async expire(namespace: string, name: string, uid: string | undefined): Promise<void> {
    try {
      await withRetries(() =>
        this.api.deleteNamespacedCustomObject({ ...resource, namespace, name, body: uid === undefined ? {} : { preconditions: { uid } } }),
      );
    } catch (err) {
      // Gone already, or replaced by a newer claim: either way this one no longer spends anything.
      const code = statusCodeOf(err);
      if (code !== 404 && code !== 409) throw err;
    }
  }

  async markFired(namespace: string, name: string): Promise<void> {
    await withRetries(() =>
      this.api.patchNamespacedCustomObject(
        { ...resource, namespace, name, body: { spec: { state: OnceState.Fired } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      ),
    );
  }
}
