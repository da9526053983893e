import { describe, expect, test } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { parseGithub } from './github.js';
import { parseGitlab } from './gitlab.js';
import { verifyGithubSignature, verifyGitlabToken } from './signature.js';

const body = Buffer.from('{"a":1}');
const sig = (secret: string, b: Buffer) => `sha256=${createHmac('sha256', secret).update(b).digest('hex')}`;

describe('verifyGithubSignature', () => {
  test.each([
    ['the right signature', sig('s3cret', body), true],
    ['another secret', sig('other', body), false],
    ['no header', undefined, false],
    ['no sha256= prefix', sig('s3cret', body).slice(7), false],
    ['a truncated digest', sig('s3cret', body).slice(0, 40), false],
    ['sha1', `sha1=${createHmac('sha1', 's3cret').update(body).digest('hex')}`, false],
    ['not hex', 'sha256=zz', false],
  ])('%s → %s', (_n, header, ok) => {
    expect(verifyGithubSignature('s3cret', body, header)).toBe(ok);
  });
});

describe('verifyGitlabToken', () => {
  test.each([
    ['the token', 'tok', true],
    ['another token', 'tok2', false],
    ['empty', '', false],
    ['missing', undefined, false],
  ])('%s → %s', (_n, header, ok) => {
    expect(verifyGitlabToken('tok', header)).toBe(ok);
  });
});

const gh = (action: string, extra: object) => ({ action, repository: { full_name: 'acme/web' }, ...extra });

describe('parseGithub', () => {
  test.each<[string, string | undefined, unknown, object]>([
    [
      'an issue labelled',
      'issues',
      gh('labeled', { label: { name: 'x' }, issue: { number: 7, title: 't' } }),
      { kind: 'label', event: { target: 'acme/web#7', addedLabels: ['x'], forge: 'github', deliveryId: 'd' } },
    ],
    [
      'a pull request labelled',
      'pull_request',
      gh('labeled', { label: { name: 'x' }, pull_request: { number: 9 } }),
      { kind: 'label', event: { target: 'acme/web#9' } },
    ],
    ['an issue opened', 'issues', gh('opened', { issue: { number: 7 } }), { kind: 'unhandled', eventName: 'issues.opened' }],
    ['a push', 'push', {}, { kind: 'unhandled', eventName: 'push' }],
    ['no event header', undefined, {}, { kind: 'unhandled' }],
    ['a payload without a repository', 'issues', { action: 'labeled' }, { kind: 'malformed' }],
    [
      'a repository name with a slash too many',
      'issues',
      { ...gh('labeled', { label: { name: 'x' }, issue: { number: 7 } }), repository: { full_name: 'a/b/c' } },
      { kind: 'malformed' },
    ],
    [
      'an issue number that is not a number',
      'issues',
      gh('labeled', { label: { name: 'x' }, issue: { number: '7' } }),
      { kind: 'malformed' },
    ],
  ])('%s', (_n, event, payload, expected) => {
    expect(parseGithub(event, 'd', body, payload)).toMatchObject(expected);
  });
});

const gl = (labels?: { previous: string[]; current: string[] }) => ({
  object_kind: 'merge_request',
  project: { path_with_namespace: 'group/sub/repo' },
  object_attributes: { iid: 12, title: 't' },
  ...(labels
    ? {
        changes: { labels: { previous: labels.previous.map((title) => ({ title })), current: labels.current.map((title) => ({ title })) } },
      }
    : {}),
});

describe('parseGitlab', () => {
  test.each<[string, string | undefined, unknown, object]>([
    [
      'a merge request labelled',
      'Merge Request Hook',
      gl({ previous: ['a'], current: ['a', 'b'] }),
      { kind: 'label', event: { target: 'group/sub/repo!12', addedLabels: ['b'] } },
    ],
    ['an issue labelled', 'Issue Hook', gl({ previous: [], current: ['b'] }), { kind: 'label', event: { target: 'group/sub/repo#12' } }],
    ['a label removed', 'Merge Request Hook', gl({ previous: ['a', 'b'], current: ['a'] }), { kind: 'unhandled' }],
    ['no label change', 'Merge Request Hook', gl(), { kind: 'unhandled' }],
    ['a push', 'Push Hook', {}, { kind: 'unhandled', eventName: 'Push Hook' }],
    ['a payload without a project', 'Issue Hook', { object_attributes: { iid: 1 } }, { kind: 'malformed' }],
  ])('%s', (_n, event, payload, expected) => {
    expect(parseGitlab(event, 'd', body, payload)).toMatchObject(expected);
  });

  test('without a delivery id, the body hash stands in for it', () => {
    const r = parseGitlab('Issue Hook', undefined, body, gl({ previous: [], current: ['b'] }));
    expect(r.kind === 'label' && r.event.deliveryId).toMatch(/^[0-9a-f]{64}$/);
  });
});
