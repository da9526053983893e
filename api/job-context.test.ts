import { describe, expect, test } from '@jest/globals';
import { JOB_ENV_NAMES, jobContextEnv, jobContextOf, type JobContext } from './job-context.js';
import { targetParts } from './target.js';

const source = (target: string, labels?: Record<string, string>, annotations?: Record<string, string>, revision?: string) => ({
  metadata: { name: 'web-7-deploy-1a2b3c', ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
  spec: { target, trigger: 'deploy', ...(revision ? { revision } : {}) },
});
const SHA = 'a'.repeat(40);
const forge = (f: string) => ({ 'waitgate.dev/forge': f });
const DELIVERY = '0f3c6a52-8d1e-4b7a-9c2f-1e5d7a9b3c4d';
const recorded = (kind: string, delivery = DELIVERY) => ({ 'waitgate.dev/target-kind': kind, 'waitgate.dev/delivery': delivery });
const base = { trigger: 'deploy', heldJob: 'web-7-deploy-1a2b3c' };

describe('jobContextOf', () => {
  test.each<[string, ReturnType<typeof source>, JobContext]>([
    [
      'a GitHub issue the receiver recorded',
      source('acme/web#7', forge('github'), recorded('issue')),
      { ...base, target: 'acme/web#7', forge: 'github', repository: 'acme/web', number: '7', kind: 'issue', delivery: DELIVERY },
    ],
    [
      'a GitHub pull request the receiver recorded',
      source('acme/web#9', forge('github'), recorded('pull_request')),
      { ...base, target: 'acme/web#9', forge: 'github', repository: 'acme/web', number: '9', kind: 'pull_request', delivery: DELIVERY },
    ],
    [
      'a GitLab merge request in a subgroup',
      source('group/sub/repo!12', forge('gitlab'), recorded('merge_request')),
      {
        ...base,
        target: 'group/sub/repo!12',
        forge: 'gitlab',
        repository: 'group/sub/repo',
        number: '12',
        kind: 'merge_request',
        delivery: DELIVERY,
      },
    ],
    [
      // GitLab and Azure DevOps both write `!` (api/forges.ts): the shape names no forge.
      'a hand-written HeldJob on a merge request: ! says merge request, not which forge',
      source('group/repo!12'),
      { ...base, target: 'group/repo!12', repository: 'group/repo', number: '12', kind: 'merge_request' },
    ],
    [
      'an Azure DevOps pull request the receiver recorded, its revision pinned',
      source('proj/web!12', forge('azure'), recorded('merge_request'), SHA),
      {
        ...base,
        target: 'proj/web!12',
        forge: 'azure',
        repository: 'proj/web',
        number: '12',
        kind: 'merge_request',
        delivery: DELIVERY,
        revision: SHA,
      },
    ],
    [
      'an Azure DevOps work item',
      source('proj/proj#5', forge('azure'), recorded('issue')),
      { ...base, target: 'proj/proj#5', forge: 'azure', repository: 'proj/proj', number: '5', kind: 'issue', delivery: DELIVERY },
    ],
    [
      'a hand-written HeldJob on a # target: issue or pull request cannot be told',
      source('acme/web#7'),
      { ...base, target: 'acme/web#7', repository: 'acme/web', number: '7' },
    ],
    [
      'a GitLab # target recorded without a kind is an issue',
      source('group/repo#3', forge('gitlab')),
      { ...base, target: 'group/repo#3', forge: 'gitlab', repository: 'group/repo', number: '3', kind: 'issue' },
    ],
    [
      'a recorded kind that contradicts the target is not believed',
      source('acme/web#7', forge('github'), { 'waitgate.dev/target-kind': 'merge_request' }),
      { ...base, target: 'acme/web#7', forge: 'github', repository: 'acme/web', number: '7' },
    ],
    [
      'a pull request on GitLab is not believed; its # is an issue',
      source('group/repo#3', forge('gitlab'), { 'waitgate.dev/target-kind': 'pull_request' }),
      { ...base, target: 'group/repo#3', forge: 'gitlab', repository: 'group/repo', number: '3', kind: 'issue' },
    ],
    [
      'a forge label outside the vocabulary is not believed',
      source('acme/web#7', forge('bitbucket')),
      { ...base, target: 'acme/web#7', repository: 'acme/web', number: '7' },
    ],
    [
      'a GitHub label on a ! target contradicts it: no forge',
      source('acme/web!7', forge('github')),
      { ...base, target: 'acme/web!7', repository: 'acme/web', number: '7', kind: 'merge_request' },
    ],
    [
      'a recorded pull request says GitHub',
      source('acme/web#7', undefined, { 'waitgate.dev/target-kind': 'pull_request' }),
      { ...base, target: 'acme/web#7', forge: 'github', repository: 'acme/web', number: '7', kind: 'pull_request' },
    ],
    [
      'a delivery annotation in no shape a forge gives is left out (it reaches the Job)',
      source('acme/web#7', forge('github'), recorded('issue', '$(AWS_SECRET_ACCESS_KEY)')),
      { ...base, target: 'acme/web#7', forge: 'github', repository: 'acme/web', number: '7', kind: 'issue' },
    ],
    [
      'an upper-case UUID is not how the receiver writes one: left out',
      source('acme/web#7', forge('github'), recorded('issue', DELIVERY.toUpperCase())),
      { ...base, target: 'acme/web#7', forge: 'github', repository: 'acme/web', number: '7', kind: 'issue' },
    ],
  ])('%s', (_name, src, want) => {
    expect(jobContextOf(src)).toEqual(want);
  });
});

describe('jobContextEnv', () => {
  test('every name, in its fixed order, when everything is known', () => {
    const approval = { by: 'alice', at: '2026-09-01T09:00:00.000Z' };
    const ctx = jobContextOf({ ...source('acme/web#7', forge('github'), recorded('issue', 'b'.repeat(64)), SHA), approval });
    expect(jobContextEnv(ctx).map((e) => e.name)).toEqual(JOB_ENV_NAMES);
    expect(Object.fromEntries(jobContextEnv(ctx).map((e) => [e.name, e.value]))).toEqual({
      WAITGATE_TARGET: 'acme/web#7',
      WAITGATE_FORGE: 'github',
      WAITGATE_REPOSITORY: 'acme/web',
      WAITGATE_NUMBER: '7',
      WAITGATE_KIND: 'issue',
      WAITGATE_TRIGGER: 'deploy',
      WAITGATE_DELIVERY: 'b'.repeat(64),
      WAITGATE_HELDJOB: 'web-7-deploy-1a2b3c',
      WAITGATE_REVISION: SHA,
      WAITGATE_APPROVED_BY: 'alice',
      WAITGATE_APPROVED_AT: '2026-09-01T09:00:00.000Z',
    });
  });

  test.each<[string, string, string]>([
    ['a plain value', 'h', 'h'],
    ['a reference to another variable', 'web-$(SECRET)', 'web-$$(SECRET)'],
    ['an escaped reference stays escaped', '$$(X)', '$$$$(X)'],
    ['a lone dollar', 'a$b', 'a$$b'],
  ])('%s reaches the Job as written: the kubelet expands nothing', (_name, heldJob, want) => {
    expect(jobContextEnv({ target: 'acme/web#7', trigger: 't', heldJob }).find((e) => e.name === 'WAITGATE_HELDJOB')?.value).toBe(want);
  });

  test('what is unknown is left out, never set empty', () => {
    expect(jobContextEnv({ target: 'acme/web#7', trigger: 't', heldJob: 'h' })).toEqual([
      { name: 'WAITGATE_TARGET', value: 'acme/web#7' },
      { name: 'WAITGATE_TRIGGER', value: 't' },
      { name: 'WAITGATE_HELDJOB', value: 'h' },
    ]);
  });
});

describe('targetParts', () => {
  test.each<[string, object | undefined]>([
    ['acme/web#7', { repository: 'acme/web', separator: '#', number: '7' }],
    ['group/sub/repo!12', { repository: 'group/sub/repo', separator: '!', number: '12' }],
    ['acme/web#0', undefined],
    ['web#7', undefined],
  ])('%s', (target, want) => {
    expect(targetParts(target)).toEqual(want);
  });
});
