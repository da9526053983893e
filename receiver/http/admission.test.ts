import { describe, expect, test } from '@jest/globals';
import { admit, MAX_BODY_BYTES, type AdmissionInput } from './admission.js';

const SIG = `sha256=${'a'.repeat(64)}`;
const UUID = '72d3162e-cc78-11e3-81ab-4c9367dc0958';
const base: AdmissionInput = {
  forge: 'github',
  headers: { 'x-hub-signature-256': [SIG], 'x-github-delivery': [UUID], 'content-length': ['100'] },
  secrets: { github: ['s'], gitlab: ['tok'], azure: ['az-secret'] },
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
    ['a GitLab delivery with the token', gitlab, { kind: 'admit', verifyBody: undefined }],
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
      { ...azure({ 'x-waitgate-token': [''] }), secrets: { github: ['s'], gitlab: ['tok'], azure: [] } },
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
