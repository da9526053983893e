import { describe, expect, test } from '@jest/globals';
import { checkPodResources, quantityValue } from './check-pod-resources.js';

describe('checkPodResources', () => {
  test.each<[string, Record<string, unknown> | undefined, Record<string, unknown>]>([
    ['none: the defaults', undefined, { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '200m', memory: '64Mi' } }],
    ['empty: the defaults', {}, { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '200m', memory: '64Mi' } }],
    [
      'only requests: the default limits still apply',
      { requests: { cpu: '20m', memory: '32Mi' } },
      { requests: { cpu: '20m', memory: '32Mi' }, limits: { cpu: '200m', memory: '64Mi' } },
    ],
    [
      'only a cpu limit: the default memory limit still applies',
      { limits: { cpu: '100m' } },
      { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '100m', memory: '64Mi' } },
    ],
    [
      'both its own: kept as written',
      { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '2', memory: '2Gi' } },
      { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '2', memory: '2Gi' } },
    ],
    [
      'a request above the default limit raises that limit to it',
      { requests: { memory: '128Mi' } },
      { requests: { cpu: '10m', memory: '128Mi' }, limits: { cpu: '200m', memory: '128Mi' } },
    ],
    [
      'a limit under the default request lowers that request to it',
      { limits: { cpu: '5m', memory: '8Mi' } },
      { requests: { cpu: '5m', memory: '8Mi' }, limits: { cpu: '5m', memory: '8Mi' } },
    ],
    [
      'a request above its own limit is left for the apiserver to refuse',
      { requests: { memory: '1Gi' }, limits: { memory: '1Mi' } },
      { requests: { cpu: '10m', memory: '1Gi' }, limits: { cpu: '200m', memory: '1Mi' } },
    ],
    [
      'other resources and fields pass through',
      { requests: { 'ephemeral-storage': '1Gi' }, claims: [{ name: 'gpu' }] },
      {
        requests: { cpu: '10m', memory: '16Mi', 'ephemeral-storage': '1Gi' },
        limits: { cpu: '200m', memory: '64Mi' },
        claims: [{ name: 'gpu' }],
      },
    ],
  ])('%s', (_name, profile, expected) => {
    expect(checkPodResources(profile)).toEqual(expected);
  });
});

describe('quantityValue', () => {
  test.each<[string, number | undefined]>([
    ['64Mi', 64 * 2 ** 20],
    ['200m', 0.2],
    ['1', 1],
    ['1.5', 1.5],
    ['1.5Gi', 1.5 * 2 ** 30],
    ['1e3', 1000],
    ['128M', 128e6],
    ['lots', undefined],
    ['', undefined],
    ['1Qi', undefined],
  ])('%j', (q, v) => {
    expect(quantityValue(q)).toBe(v);
  });
});
