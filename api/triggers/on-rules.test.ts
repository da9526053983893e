import { describe, expect, test } from '@jest/globals';
import { LabelOnKey, readsAsRepositories, suggestOnKey } from './on-rules.js';

describe('suggestOnKey: the key of on a stray key was meant to be', () => {
  test.each<[string, LabelOnKey | undefined]>([
    ['repos', LabelOnKey.Repositories],
    ['repo', LabelOnKey.Repositories],
    ['repository', LabelOnKey.Repositories],
    ['Repositories', LabelOnKey.Repositories],
    ['REPOSITORIES', LabelOnKey.Repositories],
    ['repositores', LabelOnKey.Repositories],
    ['repositroies', LabelOnKey.Repositories],
    ['repo_list', LabelOnKey.Repositories],
    ['projects', LabelOnKey.Repositories],
    ['project', LabelOnKey.Repositories],
    ['labels', LabelOnKey.Any],
    ['label', LabelOnKey.Any],
    ['any_of', LabelOnKey.Any],
    ['Any', LabelOnKey.Any],
    ['onse', LabelOnKey.Once],
    ['ONCE', LabelOnKey.Once],
    ['tpye', LabelOnKey.Type],
    ['kind', LabelOnKey.Type],
    ['branches', undefined],
    ['schedule', undefined],
    ['x', undefined],
    ['', undefined],
  ])('%j → %s', (key, meant) => {
    expect(suggestOnKey(key)).toBe(meant);
  });
});

describe('readsAsRepositories: what is refused when written outside on', () => {
  test.each(['repositories', 'Repositories', 'repos', 'repo', 'repository', 'REPO', 're-pos', 'repo_sitories'])('%s', (key) => {
    expect(readsAsRepositories(key)).toBe(true);
  });
  test.each(['repositoryUrl', 'report', 'reports', 'rep', 'projects', 'repos2'])('not %s', (key) => {
    expect(readsAsRepositories(key)).toBe(false);
  });
});
