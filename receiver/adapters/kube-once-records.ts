// Once records (receiver/delivery/once.ts) as ConfigMaps in the job namespace, with the same
// retries as the HeldJob records.
import * as k8s from '@kubernetes/client-node';
import { statusCodeOf } from '../../lib/kube/client.js';
import type { OnceRecords } from '../delivery/deliver.js';
import { OnceState, type OnceRecordManifest } from '../delivery/once.js';
import { withRetries } from './kube-records.js';

/** How often a claim looks again when the record it met is gone before it could be read. */
const CLAIM_ATTEMPTS = 3;

export class KubeOnceRecords implements OnceRecords {
  private readonly core: k8s.CoreV1Api;

  constructor(kc: k8s.KubeConfig) {
    this.core = kc.makeApiClient(k8s.CoreV1Api);
  }

  async claim(
    manifest: OnceRecordManifest,
  ): Promise<{ readonly created: true } | { readonly created: false; readonly data: Readonly<Record<string, string>> | undefined }> {
    const { name, namespace } = manifest.metadata;
    for (let attempt = 1; ; attempt++) {
      try {
        await withRetries(() =>
          this.core.createNamespacedConfigMap({ namespace, body: { ...manifest, apiVersion: 'v1', kind: 'ConfigMap' } }),
        );
        return { created: true };
      } catch (err) {
        if (statusCodeOf(err) !== 409) throw err;
      }
      try {
        const there = await withRetries(() => this.core.readNamespacedConfigMap({ name, namespace }));
        return { created: false, data: there.data };
      } catch (err) {
        // Deleted between the create and the read (by hand): claim it again.
        if (statusCodeOf(err) !== 404 || attempt >= CLAIM_ATTEMPTS) throw err;
      }
    }
  }

  async markFired(namespace: string, name: string): Promise<void> {
    await withRetries(() =>
      this.core.patchNamespacedConfigMap(
        { name, namespace, body: { data: { state: OnceState.Fired } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      ),
    );
  }
}
