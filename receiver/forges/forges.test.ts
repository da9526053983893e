import { describe, expect, test } from '@jest/globals';
import { createHash, createHmac } from 'node:crypto';
import { parseGithub } from './github.js';
import { parseGitlab } from './gitlab.js';
import { FORGES } from '../../api/vocabulary.js';
import { AUTHOR_TEXT, azureBasic, azurePullRequest, azureWorkItemTagged } from '../../test/support/forge.js';
import { parseAzure } from './azure.js';
import { readDeliveryId } from './delivery-id.js';
import type { Forge } from './event.js';
import { forgeOfRoute, RECEIVER_FORGES } from './index.js';
import { githubSignatureDigest, verifyAzureCredentials, verifyGithubSignature, verifyGitlabToken } from './signature.js';

const body = Buffer.from('{"a":1}');
const sig = (secret: string, b: Buffer) => `sha256=${createHmac('sha256', secret).update(b).digest('hex')}`;

describe('verifyGithubSignature', () => {
  const good = sig('s3cret', body);
  test.each<[string, string | string[] | undefined, boolean]>([
    ['the right signature', good, true],
    ['another secret', sig('other', body), false],
    ['no header', undefined, false],
    ['no sha256= prefix', good.slice(7), false],
    ['a truncated digest', good.slice(0, 40), false],
    ['sha1', `sha1=${createHmac('sha1', 's3cret').update(body).digest('hex')}`, false],
    ['not hex', 'sha256=zz', false],
    // The exact grammar only: `sha256=` and 64 lowercase hex digits, once.
    ['trailing junk after the digest', `${good}junk`, false],
    ['a trailing space', `${good} `, false],
    ['a leading space', ` ${good}`, false],
    ['a second digest after a comma', `${good}, ${good}`, false],
    ['uppercase hex', `sha256=${good.slice(7).toUpperCase()}`, false],
    ['an uppercase prefix', `SHA256=${good.slice(7)}`, false],
    ['65 hex digits', `${good}0`, false],
    ['the header sent twice, both right', [good, good], false],
    ['the header sent once, as a list', [good], true],
  ])('%s → %s', (_n, header, ok) => {
    expect(verifyGithubSignature('s3cret', body, header)).toBe(ok);
  });

  test.each<[string, string[], boolean]>([
    ['the new secret of a rotation', ['old', 's3cret'], true],
    ['the old secret of a rotation', ['s3cret', 'new'], true],
    ['neither', ['old', 'new'], false],
    ['no secret at all', [], false],
  ])('secrets: %s → %s', (_n, secrets, ok) => {
    expect(verifyGithubSignature(secrets, body, good)).toBe(ok);
  });
});

describe('githubSignatureDigest (read before the body)', () => {
  test.each<[string, string[] | undefined, boolean]>([
    ['well formed', [`sha256=${'a'.repeat(64)}`], true],
    ['absent', undefined, false],
    ['sent twice', [`sha256=${'a'.repeat(64)}`, `sha256=${'b'.repeat(64)}`], false],
    ['uppercase', [`sha256=${'A'.repeat(64)}`], false],
    ['8,000 characters', [`sha256=${'a'.repeat(7993)}`], false],
  ])('%s → %s', (_n, values, ok) => {
    expect(githubSignatureDigest(values) !== undefined).toBe(ok);
  });
});

describe('verifyGitlabToken', () => {
  test.each<[string, string | string[] | undefined, boolean]>([
    ['the token', 'tok', true],
    ['another token', 'tok2', false],
    ['the token with a suffix', 'tok ', false],
    ['empty', '', false],
    ['missing', undefined, false],
    ['sent twice', ['tok', 'tok'], false],
  ])('%s → %s', (_n, header, ok) => {
    expect(verifyGitlabToken('tok', header)).toBe(ok);
  });

  test.each<[string, string[], string, boolean]>([
    ['the old token of a rotation', ['old', 'new'], 'old', true],
    ['the new token of a rotation', ['old', 'new'], 'new', true],
    ['neither', ['old', 'new'], 'tok', false],
    ['no token configured', [], '', false],
  ])('tokens: %s → %s', (_n, tokens, header, ok) => {
    expect(verifyGitlabToken(tokens, header)).toBe(ok);
  });
});

describe('readDeliveryId', () => {
  const uuid = '72d3162e-cc78-11e3-81ab-4c9367dc0958';
  test.each<[string, Forge, Record<string, string[]>, object]>([
    ['a GitHub GUID', 'github', { 'x-github-delivery': [uuid] }, { kind: 'ok', id: uuid }],
    ['an uppercase GUID, lowercased', 'github', { 'x-github-delivery': [uuid.toUpperCase()] }, { kind: 'ok', id: uuid }],
    ['none', 'github', {}, { kind: 'absent' }],
    ['8,000 characters', 'github', { 'x-github-delivery': ['a'.repeat(8000)] }, { kind: 'malformed' }],
    ['a GUID with trailing junk', 'github', { 'x-github-delivery': [`${uuid}x`] }, { kind: 'malformed' }],
    ['a free-form id', 'github', { 'x-github-delivery': ['delivery-1'] }, { kind: 'malformed' }],
    ['empty', 'github', { 'x-github-delivery': [''] }, { kind: 'malformed' }],
    ['sent twice', 'github', { 'x-github-delivery': [uuid, uuid] }, { kind: 'malformed' }],
    ['GitLab: X-Gitlab-Event-UUID', 'gitlab', { 'x-gitlab-event-uuid': [uuid] }, { kind: 'ok', id: uuid }],
    ['GitLab: Idempotency-Key', 'gitlab', { 'idempotency-key': [uuid] }, { kind: 'ok', id: uuid }],
    ['GitLab: a bad X-Gitlab-Event-UUID', 'gitlab', { 'x-gitlab-event-uuid': ['<script>'] }, { kind: 'malformed' }],
    ['GitLab: a GitHub header means nothing', 'gitlab', { 'x-github-delivery': [uuid] }, { kind: 'absent' }],
    ['Azure DevOps: no header carries it (the body does)', 'azure', { 'x-github-delivery': [uuid] }, { kind: 'absent' }],
  ])('%s', (_n, forge, headers, expected) => {
    expect(readDeliveryId(forge, headers)).toEqual(expect.objectContaining(expected));
  });
});

const gh = (action: string, extra: object) => ({ action, repository: { full_name: 'acme/web' }, ...extra });

describe('parseGithub', () => {
  test.each<[string, string | undefined, unknown, object]>([
    [
      'an issue labelled',
      'issues',
      gh('labeled', { label: { name: 'x' }, issue: { number: 7, title: 't' } }),
      { kind: 'label', event: { target: 'acme/web#7', kind: 'issue', addedLabels: ['x'], forge: 'github', deliveryId: 'd' } },
    ],
    [
      'a pull request labelled',
      'pull_request',
      gh('labeled', { label: { name: 'x' }, pull_request: { number: 9 } }),
      { kind: 'label', event: { target: 'acme/web#9', kind: 'pull_request' } },
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
      'an issue number over 10^10',
      'issues',
      gh('labeled', { label: { name: 'x' }, issue: { number: 10_000_000_001 } }),
      { kind: 'malformed', problem: expect.stringContaining('target') },
    ],
    ['an issue number of 1e21', 'issues', gh('labeled', { label: { name: 'x' }, issue: { number: 1e21 } }), { kind: 'malformed' }],
    [
      'the largest issue number a target holds',
      'issues',
      gh('labeled', { label: { name: 'x' }, issue: { number: 9_999_999_999 } }),
      { kind: 'label', event: { target: 'acme/web#9999999999' } },
    ],
    [
      'a 301-character repository name',
      'issues',
      { ...gh('labeled', { label: { name: 'x' }, issue: { number: 7 } }), repository: { full_name: `acme/${'r'.repeat(296)}` } },
      { kind: 'malformed', problem: expect.stringContaining('over 256') },
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
      { kind: 'label', event: { target: 'group/sub/repo!12', kind: 'merge_request', addedLabels: ['b'] } },
    ],
    [
      'an issue labelled',
      'Issue Hook',
      gl({ previous: [], current: ['b'] }),
      { kind: 'label', event: { target: 'group/sub/repo#12', kind: 'issue' } },
    ],
    ['a label removed', 'Merge Request Hook', gl({ previous: ['a', 'b'], current: ['a'] }), { kind: 'unhandled' }],
    ['no label change', 'Merge Request Hook', gl(), { kind: 'unhandled' }],
    ['a push', 'Push Hook', {}, { kind: 'unhandled', eventName: 'Push Hook' }],
    ['a payload without a project', 'Issue Hook', { object_attributes: { iid: 1 } }, { kind: 'malformed' }],
    [
      'an iid over 10^10',
      'Issue Hook',
      { ...gl({ previous: [], current: ['b'] }), object_attributes: { iid: 10_000_000_001 } },
      { kind: 'malformed' },
    ],
    [
      'a 301-character project path',
      'Issue Hook',
      { ...gl({ previous: [], current: ['b'] }), project: { path_with_namespace: `group/${'p'.repeat(295)}` } },
      { kind: 'malformed' },
    ],
  ])('%s', (_n, event, payload, expected) => {
    expect(parseGitlab(event, 'd', body, payload)).toMatchObject(expected);
  });

  test('without a delivery id, the body hash stands in for it', () => {
    const r = parseGitlab('Issue Hook', undefined, body, gl({ previous: [], current: ['b'] }));
    expect(r.kind === 'label' && r.event.deliveryId).toMatch(/^[0-9a-f]{64}$/);
  });

  test('every event carries the hash of its body, whatever its delivery id', () => {
    const a = parseGitlab('Issue Hook', 'id-a', body, gl({ previous: [], current: ['b'] }));
    const b = parseGitlab('Issue Hook', 'id-b', body, gl({ previous: [], current: ['b'] }));
    expect(a.kind === 'label' && b.kind === 'label' && a.event.bodyHash === b.event.bodyHash).toBe(true);
    expect(a.kind === 'label' && a.event.bodyHash).toBe(createHash('sha256').update(body).digest('hex'));
  });
});

describe('parseAzure (payloads shaped as Microsoft’s service hook samples)', () => {
  const parsed = (d: { body: Buffer }, deliveryId?: string) => parseAzure(deliveryId, d.body, JSON.parse(d.body.toString('utf8')));
  const EVENT = '27646e0e-b520-4d2b-9411-bba7524947cd';

  test.each<[string, { body: Buffer }, object]>([
    [
      'a pull request updated with a label',
      azurePullRequest({ project: 'Fabrikam', repo: 'web', id: 12, labels: ['waitgate:deploy'], eventId: EVENT, head: 'a'.repeat(40) }),
      {
        kind: 'label',
        event: {
          forge: 'azure',
          target: 'Fabrikam/web!12',
          kind: 'merge_request',
          addedLabels: ['waitgate:deploy'],
          deliveryId: EVENT,
          revision: 'a'.repeat(40),
        },
      },
    ],
    [
      'a pull request created with labels',
      azurePullRequest({ labels: ['a', 'b'], event: 'git.pullrequest.created' }),
      { kind: 'label', event: { target: 'Fabrikam/Fabrikam!1', addedLabels: ['a', 'b'] } },
    ],
    [
      'a pull request without labels',
      azurePullRequest({ labels: [] }),
      { kind: 'unhandled', eventName: 'git.pullrequest.updated without labels' },
    ],
    [
      'a project name with a space cannot be a target',
      azurePullRequest({ project: 'Fabrikam Fiber', labels: ['x'] }),
      { kind: 'malformed', problem: expect.stringContaining('resource.repository.project.name') },
    ],
    [
      'a work item tagged: its new tags only',
      azureWorkItemTagged({ project: 'FabrikamCloud', id: 5, before: ['old'], after: ['old', 'waitgate:deploy'], eventId: EVENT }),
      {
        kind: 'label',
        event: {
          forge: 'azure',
          target: 'FabrikamCloud/FabrikamCloud#5',
          kind: 'issue',
          addedLabels: ['waitgate:deploy'],
          deliveryId: EVENT,
        },
      },
    ],
    ['a work item whose first tags were set', azureWorkItemTagged({ after: ['x'] }), { kind: 'label', event: { addedLabels: ['x'] } }],
    ['a tag removed', azureWorkItemTagged({ before: ['a', 'b'], after: ['a'] }), { kind: 'unhandled' }],
  ])('%s', (_n, d, expected) => {
    expect(parsed(d)).toMatchObject(expected);
  });

  test('a work item updated without a tag change, and other events, are not for waitgate', () => {
    const wi = JSON.parse(azureWorkItemTagged({ after: ['x'] }).body.toString('utf8')) as { resource: { fields: Record<string, unknown> } };
    delete wi.resource.fields['System.Tags'];
    expect(parseAzure(undefined, body, wi)).toMatchObject({ kind: 'unhandled' });
    expect(parseAzure(undefined, body, { eventType: 'git.push', resource: {} })).toEqual({ kind: 'unhandled', eventName: 'git.push' });
    expect(parseAzure(undefined, body, { resource: {} })).toMatchObject({ kind: 'malformed' });
  });

  test('the event id stands for the delivery, lowercased; without one the body hash does', () => {
    const d = azurePullRequest({ labels: ['x'], eventId: EVENT.toUpperCase() });
    expect(parsed(d)).toMatchObject({ event: { deliveryId: EVENT } });
    const raw = JSON.parse(d.body.toString('utf8')) as Record<string, unknown>;
    delete raw['id'];
    const r = parseAzure(undefined, d.body, raw);
    expect(r.kind === 'label' && r.event.deliveryId).toBe(createHash('sha256').update(d.body).digest('hex'));
  });

  test('no title, description or message reaches the event', () => {
    expect(JSON.stringify(parsed(azurePullRequest({ labels: ['x'] })))).not.toContain(AUTHOR_TEXT);
    expect(JSON.stringify(parsed(azureWorkItemTagged({ after: ['x'] })))).not.toContain(AUTHOR_TEXT);
  });
});

describe('verifyAzureCredentials', () => {
  test.each<[string, Record<string, string[]>, readonly string[], boolean]>([
    ['basic credentials with the secret', { authorization: [azureBasic('s3')] }, ['s3'], true],
    ['the old secret of a rotation', { authorization: [azureBasic('old')] }, ['old', 'new'], true],
    ['a password with a colon', { authorization: [azureBasic('a:b')] }, ['a:b'], true],
    ['the shared header', { 'x-waitgate-token': ['s3'] }, ['s3'], true],
    ['the wrong password', { authorization: [azureBasic('nope')] }, ['s3'], false],
    ['basic without a colon', { authorization: [`Basic ${Buffer.from('s3').toString('base64')}`] }, ['s3'], false],
    ['Authorization sent twice', { authorization: [azureBasic('s3'), azureBasic('s3')] }, ['s3'], false],
    ['no secret configured', { 'x-waitgate-token': [''] }, [], false],
    ['nothing', {}, ['s3'], false],
  ])('%s → %s', (_n, headers, secrets, ok) => {
    expect(verifyAzureCredentials(secrets, headers)).toBe(ok);
  });
});

describe('the forge table', () => {
  test('every forge has a route of its own under /webhooks, and the route leads back to it', () => {
    const routes = FORGES.map((f) => RECEIVER_FORGES[f].route);
    expect(new Set(routes).size).toBe(FORGES.length);
    for (const f of FORGES) expect(forgeOfRoute(RECEIVER_FORGES[f].route)).toBe(f);
    expect(forgeOfRoute('/webhooks/azure')).toBe('azure');
    expect(forgeOfRoute('/webhooks')).toBeUndefined();
  });
});
