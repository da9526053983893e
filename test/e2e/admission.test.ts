// The CRD refuses at admission what no HeldJob may say (schema plus CEL), against the real apiserver.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, HELDJOB_PLURAL } from '../../api/vocabulary.js';
import { heldJob } from '../support/builders.js';
import { TestKube } from '../support/kube.js';

const kube = new TestKube();
let ns = '';

async function admit(waitFor: object[] | undefined, over: Record<string, unknown> = {}): Promise<number> {
  const body = heldJob({ name: `hj-${Math.random().toString(36).slice(2, 8)}`, ...(waitFor ? { waitFor } : {}) });
  Object.assign(body['spec'] as object, over);
  try {
    await kube.createHeldJob(ns, body);
    return 201;
  } catch (err) {
    if (err instanceof k8s.ApiException) return err.code;
    throw err;
  }
}

describe('HeldJob admission', () => {
  beforeAll(async () => {
    ns = await kube.createNamespace('admission');
  });
  afterAll(async () => {
    await kube.deleteNamespace(ns);
  });

  test.each<[string, object[] | undefined, Record<string, unknown>, number]>([
    ['one after with Z', [{ after: '2026-09-01T09:00:00Z' }], {}, 201],
    ['an offset zone', [{ after: '2026-09-01T09:00:00-05:30' }], {}, 201],
    ['fractional seconds', [{ after: '2026-09-01T09:00:00.25+02:00' }], {}, 201],
    ['after and a profile', [{ after: '2026-09-01T09:00:00Z' }, { profile: 'jira' }], {}, 201],
    ['no conditions', undefined, {}, 201],
    ['a GitLab merge request target', [{ profile: 'ci' }], { target: 'group/sub/repo!12' }, 201],
    ['a zoneless after', [{ after: '2026-09-01T09:00:00' }], {}, 422],
    ['two afters', [{ after: '2026-09-01T09:00:00Z' }, { after: '2026-09-02T09:00:00Z' }], {}, 422],
    ['a repeated profile', [{ profile: 'jira' }, { profile: 'jira' }], {}, 422],
    ['five conditions', [{ profile: 'a' }, { profile: 'b' }, { profile: 'c' }, { profile: 'd' }, { profile: 'e' }], {}, 422],
    ['two keys in one condition', [{ after: '2026-09-01T09:00:00Z', profile: 'jira' }], {}, 422],
    ['an empty condition', [{}], {}, 422],
    ['a target with a title in it', [{ profile: 'a' }], { target: 'Fix the login page' }, 422],
  ])('%s → %d', async (_name, waitFor, over, code) => {
    expect(await admit(waitFor, over)).toBe(code);
  });
});

describe('status.conditions: a map keyed by type, as the API conventions say', () => {
  beforeAll(async () => {
    ns = await kube.createNamespace('admission-conditions');
  });
  afterAll(async () => {
    await kube.deleteNamespace(ns);
  });

  const at = '2026-09-01T08:00:00Z';
  async function writeConditions(name: string, conditions: object[]): Promise<number> {
    try {
      await kube.custom.patchNamespacedCustomObjectStatus(
        { group: API_GROUP, version: API_VERSION, plural: HELDJOB_PLURAL, namespace: ns, name, body: { status: { conditions } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      return 200;
    } catch (err) {
      if (err instanceof k8s.ApiException) return err.code;
      throw err;
    }
  }

  test('the served CRD says so', async () => {
    const crd = await kube.kc
      .makeApiClient(k8s.ApiextensionsV1Api)
      .readCustomResourceDefinition({ name: `${HELDJOB_PLURAL}.${API_GROUP}` });
    const status = crd.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.['status'];
    const conditions = status?.properties?.['conditions'];
    expect(conditions?.x_kubernetes_list_type).toBe('map');
    expect(conditions?.x_kubernetes_list_map_keys).toEqual(['type']);
    // items is a schema or a list of them in the generated type; here it is one schema.
    const items = conditions?.items as k8s.V1JSONSchemaProps | undefined;
    expect(items?.required).toEqual(['type', 'status', 'reason', 'lastTransitionTime']);
  });

  test.each<[string, object[], number]>([
    [
      'one of each type',
      [
        { type: 'Ready', status: 'False', reason: 'Held', lastTransitionTime: at, observedGeneration: 1 },
        { type: 'Waiting', status: 'True', reason: 'Held', lastTransitionTime: at, observedGeneration: 1 },
      ],
      200,
    ],
    [
      'two of one type',
      [
        { type: 'Ready', status: 'False', reason: 'Held', lastTransitionTime: at },
        { type: 'Ready', status: 'True', reason: 'Succeeded', lastTransitionTime: at },
      ],
      422,
    ],
    ['one without a reason', [{ type: 'Ready', status: 'True', lastTransitionTime: at }], 422],
    ['one without a transition time', [{ type: 'Ready', status: 'True', reason: 'Succeeded' }], 422],
  ])('%s → %d', async (_n, conditions, code) => {
    const name = `hj-${Math.random().toString(36).slice(2, 8)}`;
    await kube.createHeldJob(ns, heldJob({ name }));
    expect(await writeConditions(name, conditions)).toBe(code);
  });
});
