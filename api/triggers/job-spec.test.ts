import { describe, expect, test } from '@jest/globals';
import { jobSpecOf } from './job-spec.js';

const job = { backoffLimit: 0, template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } };

describe('jobSpecOf', () => {
  test.each<[string, number | undefined, object]>([
    ['no replicas: run.job as written', undefined, job],
    ['one replica: one indexed Pod', 1, { ...job, completions: 1, parallelism: 1, completionMode: 'Indexed' }],
    ['three replicas: three Pods at once, indexed 0 to 2', 3, { ...job, completions: 3, parallelism: 3, completionMode: 'Indexed' }],
  ])('%s', (_name, replicas, want) => {
    expect(jobSpecOf({ job, ...(replicas === undefined ? {} : { replicas }) })).toEqual(want);
  });
});
