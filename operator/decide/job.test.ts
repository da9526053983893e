import { describe, expect, test } from '@jest/globals';
import type * as k8s from '@kubernetes/client-node';
import { JOB_LAUNCH_FINALIZER } from '../../api/vocabulary.js';
import { buildJob, observeJob } from './job.js';
import { JobOutcome } from './observed.js';

const owner = { metadata: { name: 'deploy', namespace: 'ns', uid: 'u-1' } };

describe('buildJob', () => {
  test('the Job is created fenced: the launch finalizer stays until its creation is recorded', () => {
    const job = buildJob(owner, { target: 'acme/web#1', trigger: 't', job: { template: { spec: { containers: [] } } } }, 'deploy-abc');
    expect(job.metadata?.finalizers).toEqual([JOB_LAUNCH_FINALIZER]);
    expect(job.metadata?.ownerReferences?.[0]?.uid).toBe('u-1');
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
