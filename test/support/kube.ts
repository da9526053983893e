// Test-side access to the real apiserver.
import * as k8s from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { API_GROUP, API_VERSION, HELDJOB_PLURAL } from '../../api/vocabulary.js';
import { kubeconfigPath } from './env.js';

/**
 * Calls `fn` again while the apiserver answers 429 (as client-go does): a CRD written by another
 * test makes the apiserver re-initialize that resource's storage, and for a second every request
 * for it is answered "storage is (re)initializing" with a Retry-After.
 */
export async function retrying429<T>(fn: () => Promise<T>, attempts = 30): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof k8s.ApiException) || err.code !== 429 || i >= attempts) throw err;
      const after = Number((err.headers as Record<string, string> | undefined)?.['retry-after'] ?? 1);
      await new Promise((r) => setTimeout(r, Math.min(Math.max(after, 0.2), 5) * 1000));
    }
  }
}

export class TestKube {
  readonly kc: k8s.KubeConfig;
  readonly core: k8s.CoreV1Api;
  readonly batch: k8s.BatchV1Api;
  readonly custom: k8s.CustomObjectsApi;

  constructor() {
    this.kc = new k8s.KubeConfig();
    this.kc.loadFromFile(kubeconfigPath());
    this.core = this.kc.makeApiClient(k8s.CoreV1Api);
    this.batch = this.kc.makeApiClient(k8s.BatchV1Api);
    this.custom = this.kc.makeApiClient(k8s.CustomObjectsApi);
  }

  /** A fresh namespace for one test. */
  async createNamespace(prefix: string, annotations?: Record<string, string>): Promise<string> {
    const name = `${prefix}-${randomBytes(3).toString('hex')}`;
    await retrying429(() =>
      this.core.createNamespace({
        body: { metadata: { name, labels: { 'waitgate.dev/test': 'true' }, ...(annotations ? { annotations } : {}) } },
      }),
    );
    return name;
  }

  async deleteNamespace(name: string): Promise<void> {
    await this.core.deleteNamespace({ name }).catch(() => undefined);
  }

  async createHeldJob(namespace: string, body: object): Promise<HeldJobObject> {
    return (await retrying429(() =>
      this.custom.createNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        plural: HELDJOB_PLURAL,
        namespace,
        body,
      }),
    )) as HeldJobObject;
  }

  async getHeldJob(namespace: string, name: string): Promise<HeldJobObject | undefined> {
    try {
      return (await retrying429(() =>
        this.custom.getNamespacedCustomObject({
          group: API_GROUP,
          version: API_VERSION,
          plural: HELDJOB_PLURAL,
          namespace,
          name,
        }),
      )) as HeldJobObject;
    } catch (err) {
      if (err instanceof k8s.ApiException && err.code === 404) return undefined;
      throw err;
    }
  }

  async listHeldJobs(namespace: string): Promise<HeldJobObject[]> {
    const list = (await retrying429(() =>
      this.custom.listNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        plural: HELDJOB_PLURAL,
        namespace,
      }),
    )) as { items: HeldJobObject[] };
    return list.items;
  }

  async listJobs(namespace: string): Promise<k8s.V1Job[]> {
    return (await retrying429(() => this.batch.listNamespacedJob({ namespace }))).items;
  }

  async listPods(namespace: string): Promise<k8s.V1Pod[]> {
    return (await retrying429(() => this.core.listNamespacedPod({ namespace }))).items;
  }

  async jobExists(namespace: string, name: string): Promise<boolean> {
    try {
      await retrying429(() => this.batch.readNamespacedJob({ namespace, name }));
      return true;
    } catch (err) {
      if (err instanceof k8s.ApiException && err.code === 404) return false;
      throw err;
    }
  }

  async eventsFor(namespace: string, name: string): Promise<k8s.CoreV1Event[]> {
    const list = await retrying429(() => this.core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` }));
    return list.items;
  }
}
