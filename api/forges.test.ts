import { describe, expect, test } from '@jest/globals';
import { FORGE_NOTATION, forgesWriting, placeOfTarget } from './forges.js';
import { FORGES } from './vocabulary.js';

describe('placeOfTarget', () => {
  test.each<[string, string, object, object | undefined]>([
    ['a GitHub issue', 'acme/web#7', { forge: 'github', kind: 'issue' }, { forge: 'github', kind: 'issue' }],
    ['a GitHub pull request', 'acme/web#9', { forge: 'github', kind: 'pull_request' }, { forge: 'github', kind: 'pull_request' }],
    ['a GitLab merge request', 'g/s/p!12', { forge: 'gitlab', kind: 'merge_request' }, { forge: 'gitlab', kind: 'merge_request' }],
    ['an Azure pull request', 'proj/web!12', { forge: 'azure', kind: 'merge_request' }, { forge: 'azure', kind: 'merge_request' }],
    ['an Azure work item', 'proj/proj#5', { forge: 'azure', kind: 'issue' }, { forge: 'azure', kind: 'issue' }],
    // The reference: `#` is an issue on any forge, so an unlabelled `#` names none.
    ['an unlabelled #', 'acme/web#7', {}, { forge: undefined, kind: undefined }],
    // `!` is GitLab's or Azure's: a merge request, on a forge the shape cannot tell.
    ['an unlabelled !', 'g/p!12', {}, { forge: undefined, kind: 'merge_request' }],
    [
      'a recorded pull request on an unlabelled #: GitHub alone writes one',
      'acme/web#7',
      { kind: 'pull_request' },
      { forge: 'github', kind: 'pull_request' },
    ],
    ['GitLab # without a kind: an issue', 'g/p#3', { forge: 'gitlab' }, { forge: 'gitlab', kind: 'issue' }],
    ['Azure # without a kind: a work item', 'p/p#3', { forge: 'azure' }, { forge: 'azure', kind: 'issue' }],
    ['Azure ! without a kind', 'p/r!3', { forge: 'azure' }, { forge: 'azure', kind: 'merge_request' }],
    ['a pull request on GitLab is not believed', 'g/p#3', { forge: 'gitlab', kind: 'pull_request' }, { forge: 'gitlab', kind: 'issue' }],
    [
      'a merge request behind # is not believed',
      'acme/web#7',
      { forge: 'github', kind: 'merge_request' },
      { forge: 'github', kind: undefined },
    ],
    ['a GitHub label on a ! target is not believed', 'acme/web!7', { forge: 'github' }, { forge: undefined, kind: 'merge_request' }],
    ['a forge outside the vocabulary', 'acme/web#7', { forge: 'bitbucket' }, { forge: undefined, kind: undefined }],
    ['not a target', 'nonsense', {}, undefined],
  ])('%s', (_n, target, recorded, want) => {
    const place = placeOfTarget(target, recorded);
    expect(place === undefined ? undefined : { forge: place.forge, kind: place.kind }).toEqual(want);
  });
});

describe('FORGE_NOTATION', () => {
  test('every forge writes an issue behind #', () => {
    for (const f of FORGES) expect(FORGE_NOTATION[f].kinds['#']).toContain('issue');
  });
  test.each<['#' | '!', string[]]>([
    ['#', ['github', 'gitlab', 'azure']],
    ['!', ['gitlab', 'azure']],
  ])('%s is written by %j', (sep, forges) => {
    expect(forgesWriting(sep)).toEqual(forges);
  });
});
