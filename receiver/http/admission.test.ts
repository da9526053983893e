import { describe, expect, test } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { admit, MAX_BODY_BYTES, type AdmissionInput } from './admission.js';

const SIG = `sha256=${'a'.repeat(64)}`;
const UUID = '72d3162e-cc78-11e3-81ab-4c9367dc0958';
const base: AdmissionInput = {
  forge: 'github',
  headers: { 'x-hub-signature-256': [SIG], 'x-github-delivery': [UUID], 'content-length': ['100'] },
  secrets: { github: [{ secret: 's' }], gitlab: [{ secret: 'tok' }], azure: [{ secret: 'az-secret' }] },
  openConnections: 1,
  maxConnections: 10,
  inflightBodyBytes: 0,
  maxInflightBodyBytes: 4 * MAX_BODY_BYTES,
};
const gitlab: AdmissionInput = { ...base, forge: 'gitlab', headers: { 'x-gitlab-token': ['tok'], 'content-length': ['100'] } };
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const azure = (h: Record<string, string[]>): AdmissionInput => ({ ...base, forge: 'azure', headers: { 'content-length': ['100'], ...h } });
const headers = (over: Record<string, string[] | undefined>) => ({ ...base, headers: { ...base.headers, ...over } });

describe('admit: what the headers alone decide', () => {
  test.each<[string, AdmissionInput, object]>([
    ['a well-formed GitHub delivery', base, { kind: 'admit', deliveryId: UUID }],
    ['a GitLab delivery with the token', gitlab, { kind: 'admit' }],
    ['Azure: basic credentials with the secret as password', azure({ authorization: [basic('waitgate', 'az-secret')] }), { kind: 'admit' }],
    ['Azure: any user name', azure({ authorization: [basic('', 'az-secret')] }), { kind: 'admit' }],
    ['Azure: the shared header', azure({ 'x-waitgate-token': ['az-secret'] }), { kind: 'admit', deliveryId: undefined }],
    ['Azure: a wrong password', azure({ authorization: [basic('waitgate', 'nope')] }), { status: 401 }],
    ['Azure: the secret as user name', azure({ authorization: [basic('az-secret', '')] }), { status: 401 }],
    ['Azure: bearer, not basic', azure({ authorization: ['Bearer az-secret'] }), { status: 401 }],
    ['Azure: the header sent twice', azure({ 'x-waitgate-token': ['az-secret', 'az-secret'] }), { status: 401 }],
    ['Azure: nothing', azure({}), { status: 401 }],
    ['Azure: GitLab’s header means nothing', azure({ 'x-gitlab-token': ['az-secret'] }), { status: 401 }],
    [
      'Azure: no secret configured',
      { ...azure({ 'x-waitgate-token': [''] }), secrets: { github: [{ secret: 's' }], gitlab: [{ secret: 'tok' }], azure: [] } },
      { status: 401 },
    ],
    ['no signature', headers({ 'x-hub-signature-256': undefined }), { status: 401 }],
    ['a signature with trailing junk', headers({ 'x-hub-signature-256': [`${SIG}x`] }), { status: 401 }],
    ['a signature sent twice', headers({ 'x-hub-signature-256': [SIG, SIG] }), { status: 401 }],
    ['a wrong GitLab token', { ...gitlab, headers: { 'x-gitlab-token': ['nope'] } }, { status: 401 }],
    ['no GitHub secret configured', { ...base, secrets: { ...base.secrets, github: [] } }, { status: 401 }],
    ['a delivery id that is not a UUID', headers({ 'x-github-delivery': ['x'.repeat(8000)] }), { status: 400, outcome: 'malformed' }],
    [
      'no delivery id: admitted, the body hash stands in',
      headers({ 'x-github-delivery': undefined }),
      { kind: 'admit', deliveryId: undefined },
    ],
    ['a declared length of exactly 1 MiB', headers({ 'content-length': [String(MAX_BODY_BYTES)] }), { kind: 'admit' }],
    ['a declared length of 2 MB', headers({ 'content-length': ['2000000'] }), { status: 413, outcome: 'too_large' }],
    ['an unsigned 2 MB: 401 before 413', headers({ 'x-hub-signature-256': undefined, 'content-length': ['2000000'] }), { status: 401 }],
    ['chunked: admitted, its bytes counted as they come', headers({ 'content-length': undefined }), { kind: 'admit' }],
    [
      'chunked, with the in-flight bodies at the cap',
      { ...base, headers: { ...base.headers, 'content-length': undefined }, inflightBodyBytes: 4 * MAX_BODY_BYTES + 1 },
      { status: 503 },
    ],
    ['one connection over the cap', { ...base, openConnections: 11 }, { status: 503, outcome: 'busy' }],
    ['at the cap', { ...base, openConnections: 10 }, { kind: 'admit' }],
    ['the in-flight bodies would pass the cap', { ...base, inflightBodyBytes: 4 * MAX_BODY_BYTES - 99 }, { status: 503, outcome: 'busy' }],
    ['the in-flight bodies just fit', { ...base, inflightBodyBytes: 4 * MAX_BODY_BYTES - 100 }, { kind: 'admit' }],
  ])('%s', (_n, input, expected) => {
    expect(admit(input)).toMatchObject(expected);
  });
});

describe('admit: the scope of the secret that authenticated the body (#30)', () => {
  const body = Buffer.from('{"x":1}');
  const sign = (secret: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  const acme = { secret: 'acme-secret-0123456789', repositories: ['acme/*'] };
  const beta = { secret: 'beta-secret-0123456789', repositories: ['beta/web'] };
  const every = { secret: 'every-secret-012345678' };
  const github = (secret: string, secrets: AdmissionInput['secrets']['github']): AdmissionInput => ({
    ...base,
    headers: { ...base.headers, 'x-hub-signature-256': [sign(secret)] },
    secrets: { ...base.secrets, github: secrets },
  });
  const gitlabWith = (token: string, secrets: AdmissionInput['secrets']['gitlab']): AdmissionInput => ({
    ...gitlab,
    headers: { 'x-gitlab-token': [token] },
    secrets: { ...base.secrets, gitlab: secrets },
  });
  test.each<[string, AdmissionInput, object | undefined]>([
    ['GitHub, signed by acme’s secret', github(acme.secret, [acme, beta]), { every: false, repositories: ['acme/*'] }],
    ['GitHub, signed by beta’s secret', github(beta.secret, [acme, beta]), { every: false, repositories: ['beta/web'] }],
    ['GitHub, signed by an unscoped secret', github(every.secret, [acme, every]), { every: true }],
    [
      'GitHub, one secret under two scopes: both',
      github(acme.secret, [acme, { ...beta, secret: acme.secret }]),
      { every: false, repositories: ['acme/*', 'beta/web'] },
    ],
    ['GitHub, one secret scoped and unscoped: every', github(acme.secret, [acme, { secret: acme.secret }]), { every: true }],
    ['GitHub, signed by no secret', github('not-a-configured-secret', [acme, beta]), undefined],
    ['GitLab, acme’s token', gitlabWith(acme.secret, [acme, beta]), { every: false, repositories: ['acme/*'] }],
    ['GitLab, an unscoped token', gitlabWith(every.secret, [every, beta]), { every: true }],
  ])('%s', (_n, input, scope) => {
    const a = admit(input);
    if (scope === undefined && a.kind === 'refuse') return expect(a.status).toBe(401);
    expect(a.kind).toBe('admit');
    if (a.kind === 'admit') expect(a.authenticate(body)).toEqual(scope);
  });
});
