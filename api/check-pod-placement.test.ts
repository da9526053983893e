import { describe, expect, test } from '@jest/globals';
import { checkPodPlacement, parseCheckPodDefaults, type CheckPodDefaults, type ProfilePlacement } from './check-pod-placement.js';

const toleration = { key: 'dedicated', operator: 'Equal', value: 'ci', effect: 'NoSchedule' } as const;
const all: CheckPodDefaults = {
  imagePullSecrets: [{ name: 'registry' }],
  nodeSelector: { 'kubernetes.io/os': 'linux', pool: 'checks' },
  tolerations: [toleration],
  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } },
  priorityClassName: 'waitgate-checks',
};

describe('parseCheckPodDefaults', () => {
  test.each<[string, string | undefined, CheckPodDefaults]>([
    ['unset: none', undefined, {}],
    ['empty: none', '', {}],
    ['blank: none', '  ', {}],
    ['an empty object: none', '{}', {}],
    ['all five keys', JSON.stringify(all), all],
    ['one key', '{"priorityClassName":"low"}', { priorityClassName: 'low' }],
    ['a toleration of every taint', '{"tolerations":[{"operator":"Exists"}]}', { tolerations: [{ operator: 'Exists' }] }],
  ])('%s', (_what, raw, defaults) => {
    expect(parseCheckPodDefaults(raw)).toEqual({ ok: true, defaults });
  });

  test.each<[string, string, RegExp]>([
    ['not JSON', '{', /^is not valid JSON/],
    ['not an object', '[]', /must be a JSON object with the keys imagePullSecrets/],
    ['an unknown key', '{"nodeName":"n1"}', /^unknown key "nodeName": the keys are imagePullSecrets, nodeSelector/],
    ['a pull secret as a string', '{"imagePullSecrets":["registry"]}', /^imagePullSecrets\.0: imagePullSecrets: each entry must be/],
    [
      'a pull secret name with a capital',
      '{"imagePullSecrets":[{"name":"Reg"}]}',
      /^imagePullSecrets\.0\.name: .*"Reg" is not a Secret name/,
    ],
    ['a pull secret with another key', '{"imagePullSecrets":[{"name":"r","x":1}]}', /^imagePullSecrets\.0: unknown key "x"/],
    ['a nodeSelector value that is a number', '{"nodeSelector":{"pool":1}}', /^nodeSelector\.pool: nodeSelector values must be strings/],
    ['a nodeSelector key with a space', '{"nodeSelector":{"a b":"c"}}', /^nodeSelector\.a b: nodeSelector: "a b" is not a label key/],
    ['tolerations as an object', '{"tolerations":{"key":"a"}}', /^tolerations: tolerations must be an array/],
    [
      'a toleration operator of the wrong case',
      '{"tolerations":[{"key":"a","operator":"exists"}]}',
      /^tolerations\.0\.operator: .*"Exists" or "Equal"/,
    ],
    ['a toleration effect unknown', '{"tolerations":[{"key":"a","effect":"NoRun"}]}', /^tolerations\.0\.effect: /],
    ['a toleration with an unknown key', '{"tolerations":[{"key":"a","seconds":3}]}', /^tolerations\.0: unknown key "seconds"/],
    ['Exists with a value', '{"tolerations":[{"key":"a","operator":"Exists","value":"b"}]}', /^tolerations\.0: .*"Exists" has no value/],
    ['affinity with an unknown kind', '{"affinity":{"nodeAfinity":{}}}', /^affinity: unknown key "nodeAfinity"/],
    [
      'a priorityClassName with a capital',
      '{"priorityClassName":"High"}',
      /^priorityClassName: priorityClassName "High" is not a PriorityClass name/,
    ],
    ['a priorityClassName as a number', '{"priorityClassName":3}', /^priorityClassName: priorityClassName must be a string/],
  ])('refuses %s, naming the key', (_what, raw, problem) => {
    const r = parseCheckPodDefaults(raw);
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.problems).toEqual(expect.arrayContaining([expect.stringMatching(problem)]));
  });
});

describe('checkPodPlacement: the profile replaces a default key by key', () => {
  const own = { key: 'gpu', operator: 'Exists', effect: 'NoSchedule' } as const;
  test.each<[string, CheckPodDefaults | undefined, ProfilePlacement | undefined, object]>([
    ['no defaults, no profile: nothing', undefined, undefined, {}],
    ['defaults only: all of them', all, undefined, all],
    [
      'empty defaults are left out',
      { imagePullSecrets: [], nodeSelector: {}, tolerations: [], affinity: {}, priorityClassName: '' },
      {},
      {},
    ],
    [
      "the profile's nodeSelector replaces the default's whole, not merged into it",
      all,
      { nodeSelector: { pool: 'gpu' } },
      { ...all, nodeSelector: { pool: 'gpu' } },
    ],
    ["the profile's tolerations replace the default's", all, { tolerations: [own] }, { ...all, tolerations: [own] }],
    ["the profile's priorityClassName replaces the default's", all, { priorityClassName: 'high' }, { ...all, priorityClassName: 'high' }],
    ['a profile with an empty nodeSelector clears the default', all, { nodeSelector: {} }, { ...all, nodeSelector: undefined }],
    [
      'a profile alone, no defaults',
      undefined,
      { priorityClassName: 'high', tolerations: [own] },
      { priorityClassName: 'high', tolerations: [own] },
    ],
  ])('%s', (_what, defaults, profile, expected) => {
    const got = checkPodPlacement(defaults, profile);
    expect(got).toEqual(JSON.parse(JSON.stringify(expected)));
  });
});
