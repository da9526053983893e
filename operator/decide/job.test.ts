import { describe, expect, test } from '@jest/globals';
import type * as k8s from '@kubernetes/client-node';
import type { HeldJobSpec } from '../../api/heldjob-schema.js';
import { JOB_LAUNCH_FINALIZER } from '../../api/vocabulary.js';
import { shortHash } from '../../lib/hash.js';
import { buildJob, dryRunKey, isOrphanedFence, observeJob } from './job.js';
import { JobOutcome } from './observed.js';

const owner = { metadata: { name: 'deploy', namespace: 'ns', uid: 'u-1' } };

describe('buildJob', () => {
  test('the Job is created fenced: the launch finalizer stays until its creation is recorded', () => {
    const job = buildJob(owner, { target: 'acme/web#1', trigger: 't', job: { template: { spec: { containers: [] } } } }, 'deploy-abc');
    expect(job.metadata?.finalizers).toEqual([JOB_LAUNCH_FINALIZER]);
    expect(job.metadata?.ownerReferences?.[0]?.uid).toBe('u-1');
  });

  const recorded = {
    metadata: {
      name: 'web-7-deploy-1a2b3c',
      namespace: 'ns',
      uid: 'u-1',
      labels: { 'waitgate.dev/forge': 'github', 'waitgate.dev/target-hash': 'x' },
      annotations: { 'waitgate.dev/delivery': '0f3c6a52-8d1e-4b7a-9c2f-1e5d7a9b3c4d', 'waitgate.dev/target-kind': 'pull_request' },
    },
  };
  const context = [
    { name: 'WAITGATE_TARGET', value: 'acme/web#7' },
    { name: 'WAITGATE_FORGE', value: 'github' },
    { name: 'WAITGATE_REPOSITORY', value: 'acme/web' },
    { name: 'WAITGATE_NUMBER', value: '7' },
    { name: 'WAITGATE_KIND', value: 'pull_request' },
    { name: 'WAITGATE_TRIGGER', value: 'deploy' },
    { name: 'WAITGATE_DELIVERY', value: '0f3c6a52-8d1e-4b7a-9c2f-1e5d7a9b3c4d' },
    { name: 'WAITGATE_HELDJOB', value: 'web-7-deploy-1a2b3c' },
  ];
  const specWith = (podSpec: Record<string, unknown>, template: Record<string, unknown> = {}): HeldJobSpec => ({
    target: 'acme/web#7',
    trigger: 'deploy',
    job: { backoffLimit: 0, template: { ...template, spec: podSpec } },
  });
  const envOf = (c: k8s.V1Container | undefined) => c?.env?.map((e) => ({ name: e.name, value: e.value }));

  test.each<[string, Record<string, unknown>, { containers: object[]; initContainers?: object[] }]>([
    [
      'every container and init container gets the whole context',
      { containers: [{ name: 'a' }, { name: 'b', env: [] }], initContainers: [{ name: 'i' }] },
      { containers: [context, context], initContainers: [context] },
    ],
    [
      'the context comes first, so the template can refer to it as $(WAITGATE_TARGET)',
      { containers: [{ name: 'a', env: [{ name: 'WHERE', value: '$(WAITGATE_TARGET)' }] }] },
      { containers: [[...context, { name: 'WHERE', value: '$(WAITGATE_TARGET)' }]] },
    ],
    [
      'a name the template sets wins: it is not added again',
      { containers: [{ name: 'a', env: [{ name: 'WAITGATE_TARGET', value: 'mine' }] }] },
      { containers: [[...context.filter((e) => e.name !== 'WAITGATE_TARGET'), { name: 'WAITGATE_TARGET', value: 'mine' }]] },
    ],
  ])('%s', (_name, podSpec, want) => {
    const job = buildJob(recorded, specWith(podSpec), 'j');
    expect(job.spec?.template.spec?.containers.map(envOf)).toEqual(want.containers);
    if (want.initContainers) expect(job.spec?.template.spec?.initContainers?.map(envOf)).toEqual(want.initContainers);
    else expect(job.spec?.template.spec?.initContainers).toBeUndefined();
  });

  test('a hand-written HeldJob gets what its spec tells', () => {
    const job = buildJob(owner, specWith({ containers: [{ name: 'a' }] }), 'j');
    expect(envOf(job.spec?.template.spec?.containers[0])).toEqual([
      { name: 'WAITGATE_TARGET', value: 'acme/web#7' },
      { name: 'WAITGATE_REPOSITORY', value: 'acme/web' },
      { name: 'WAITGATE_NUMBER', value: '7' },
      { name: 'WAITGATE_TRIGGER', value: 'deploy' },
      { name: 'WAITGATE_HELDJOB', value: 'deploy' },
    ]);
  });

  test('the Job and its Pods carry the HeldJob name and the target hash; the template keeps its own labels', () => {
    const spec = specWith({ containers: [{ name: 'a' }] }, { metadata: { labels: { app: 'web', 'waitgate.dev/heldjob': 'forged' } } });
    const job = buildJob(recorded, spec, 'j');
    const ids = { 'waitgate.dev/heldjob': 'web-7-deploy-1a2b3c', 'waitgate.dev/target-hash': shortHash('acme/web#7') };
    expect(job.metadata?.labels).toEqual({ 'app.kubernetes.io/managed-by': 'waitgate', ...ids });
    expect(job.spec?.template.metadata?.labels).toEqual({ app: 'web', ...ids });
    expect(job.spec?.backoffLimit).toBe(0);
  });

  test("the HeldJob's spec is not changed", () => {
    const spec = specWith({ containers: [{ name: 'a', env: [{ name: 'X', value: '1' }] }] });
    const before = JSON.stringify(spec);
    buildJob(recorded, spec, 'j');
    expect(JSON.stringify(spec)).toBe(before);
  });
});

describe('observeJob', () => {
  const job = (finalizers: string[] | undefined, conditions: k8s.V1JobCondition[] = []): k8s.V1Job => ({
    metadata: {
      name: 'j',
      finalizers,
      ownerReferences: [{ apiVersion: 'waitgate.dev/v1alpha1', kind: 'HeldJob', name: 'deploy', uid: 'u-1' }],
    },
    status: { conditions },
  });
  test.each<[string, k8s.V1Job, object | undefined]>([
    ['fenced, running', job([JOB_LAUNCH_FINALIZER]), { name: 'j', outcome: JobOutcome.Active, fenced: true }],
    ['unfenced, running', job(undefined), { name: 'j', outcome: JobOutcome.Active }],
    ['other finalizers only', job(['foregroundDeletion']), { name: 'j', outcome: JobOutcome.Active }],
    [
      'fenced, complete',
      job([JOB_LAUNCH_FINALIZER], [{ type: 'Complete', status: 'True' }]),
      { name: 'j', outcome: JobOutcome.Succeeded, fenced: true },
    ],
  ])('%s', (_name, j, want) => {
    expect(observeJob(j, 'u-1')).toEqual(want);
  });

  test('a Job owned by another HeldJob is not this one', () => {
    expect(observeJob(job(undefined), 'u-2')).toBeUndefined();
  });
});

describe('isOrphanedFence', () => {
  const owner = { apiVersion: 'waitgate.dev/v1alpha1', kind: 'HeldJob', name: 'h', uid: 'u1', controller: true };
  const job = (over: Partial<k8s.V1ObjectMeta>): k8s.V1Job => ({
    metadata: { name: 'h-abc', namespace: 'n', ownerReferences: [owner], finalizers: [JOB_LAUNCH_FINALIZER], ...over },
  });
  const GONE = '2026-12-04T00:00:00Z' as unknown as Date;
  test.each<[string, k8s.V1Job, string | undefined, boolean]>([
    ['fenced, being deleted, its HeldJob gone: lifted', job({ deletionTimestamp: GONE }), undefined, true],
    ['fenced, being deleted, a new HeldJob of the same name (another uid): lifted', job({ deletionTimestamp: GONE }), 'u2', true],
    ['fenced, being deleted, its HeldJob there: its own pass records or cancels it', job({ deletionTimestamp: GONE }), 'u1', false],
    ['fenced, not being deleted: a launch whose record may still come', job({}), undefined, false],
    ['not fenced: nothing to lift', job({ deletionTimestamp: GONE, finalizers: [] }), undefined, false],
    ['no HeldJob owner: not ours', job({ deletionTimestamp: GONE, ownerReferences: [] }), undefined, false],
  ])('%s', (_n, j, seen, want) => {
    expect(isOrphanedFence(j, seen)).toBe(want);
  });
});

describe('dryRunKey', () => {
  const job = { template: { spec: { containers: [{ name: 'c', image: 'x:1' }], restartPolicy: 'Never' } } } as HeldJobSpec['job'];
  const other = { template: { spec: { containers: [{ name: 'c', image: 'x:2' }], restartPolicy: 'Never' } } } as HeldJobSpec['job'];
  test.each<[string, string, string, boolean]>([
    ['the same job in the same namespace: one key', dryRunKey('a', job), dryRunKey('a', structuredClone(job)), true],
    ['another namespace (its quotas, its policies): another key', dryRunKey('a', job), dryRunKey('b', job), false],
    ['another image: another key', dryRunKey('a', job), dryRunKey('a', other), false],
  ])('%s', (_n, x, y, same) => {
    expect(x === y).toBe(same);
  });
});
