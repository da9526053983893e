// The receiver cannot reach the check scripts (issue 22). It faces the internet; whoever can
// write waitgate-profiles can add an exec profile and run code as the operator. So in every
// configuration the chart renders, the receiver's ServiceAccount has no right on ConfigMaps at
// all, in the release namespace or in the job namespace: asked of the real apiserver
// (SelfSubjectAccessReview, what `kubectl auth can-i` sends, as the ServiceAccount itself), and
// tried as an attacker holding its token would (every call 403, the ConfigMap unchanged). It
// still may create, read and patch OnceRecords in the job namespace, and nothing else there.
import { describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { statusCodeOf } from '../../lib/kube/client.js';
import { baseValues, RECEIVER_SA, serviceAccountKubeconfig, withChart } from '../support/chart.js';
import { TestKube } from '../support/kube.js';
import { Timeouts } from '../support/timeouts.js';

const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] as const;
/** Plain `configmaps` and the two by name (a rule may name them in resourceNames). */
const NAMES = [undefined, 'waitgate-profiles', 'waitgate-triggers'] as const;

interface Setup {
  /** Extra values on top of baseValues; jobNamespace is the job namespace the test made, if any. */
  readonly values: (ns: string, jobNamespace: string | undefined) => Record<string, unknown>;
  readonly ownJobNamespace: boolean;
}

const SETUPS: [string, Setup][] = [
  ['the job namespace is the release namespace (the default)', { values: () => ({}), ownJobNamespace: false }],
  [
    'a job namespace of its own (receiver.jobNamespace)',
    { values: (_ns, job) => ({ receiver: { jobNamespace: job } }), ownJobNamespace: true },
  ],
  [
    'ConfigMaps left to the user (profilesConfigMap.create and triggersConfigMap.create false), watching one namespace',
    {
      values: (ns) => ({ profilesConfigMap: { create: false }, triggersConfigMap: { create: false }, watchNamespace: ns }),
      ownJobNamespace: false,
    },
  ],
];

/** What the apiserver answers the ServiceAccount itself when it asks whether it may. */
async function may(
  auth: k8s.AuthorizationV1Api,
  a: { verb: string; resource: string; group?: string; namespace?: string; name?: string },
): Promise<boolean> {
  const r = await auth.createSelfSubjectAccessReview({
    body: {
      spec: {
        resourceAttributes: { verb: a.verb, group: a.group ?? '', resource: a.resource, namespace: a.namespace ?? '', name: a.name ?? '' },
      },
    },
  });
  return r.status?.allowed === true;
}

/** The status code of a call the ServiceAccount makes; 0 when it succeeded. */
async function statusOf(call: () => Promise<unknown>): Promise<number | undefined> {
  try {
    await call();
    return 0;
  } catch (err) {
    return statusCodeOf(err);
  }
}

describe('the receiver cannot reach the profiles or triggers ConfigMaps', () => {
  test.concurrent.each(SETUPS)(
    '%s',
    async (_name, setup) => {
      const kube = new TestKube();
      const jobNs = setup.ownJobNamespace ? await kube.createNamespace('rc-rbac-jobs') : undefined;
      try {
        await withChart(
          'rc-rbac',
          (ns) => ({ ...baseValues(ns), admissionPolicy: { enabled: false }, ...setup.values(ns, jobNs) }),
          async (c) => {
            const release = c.namespace;
            const job = jobNs ?? release;
            // The two ConfigMaps are there whoever made them.
            if (setup.values(release, jobNs)['profilesConfigMap'] !== undefined) {
              for (const name of ['waitgate-profiles', 'waitgate-triggers']) {
                await c.kube.core.createNamespacedConfigMap({ namespace: release, body: { metadata: { name }, data: { 'x.json': '{}' } } });
              }
            }
            const kc = new k8s.KubeConfig();
            kc.loadFromFile(await serviceAccountKubeconfig(c.kube, release, RECEIVER_SA));
            const auth = kc.makeApiClient(k8s.AuthorizationV1Api);

            // Asked: no ConfigMap right anywhere it lives or writes.
            const asked: [string, boolean][] = [];
            for (const namespace of new Set([release, job])) {
              for (const verb of VERBS) {
                for (const name of NAMES) {
                  if (name !== undefined && (verb === 'list' || verb === 'watch' || verb === 'create')) continue;
                  asked.push([
                    `${verb} configmaps${name ? `/${name}` : ''} -n ${namespace === release ? 'release' : 'job'}`,
                    await may(auth, { verb, resource: 'configmaps', namespace, ...(name ? { name } : {}) }),
                  ]);
                }
              }
            }
            for (const verb of ['list', 'watch'] as const) {
              asked.push([`${verb} configmaps --all-namespaces`, await may(auth, { verb, resource: 'configmaps' })]);
            }
            expect(asked.filter(([, allowed]) => allowed)).toEqual([]);
            expect(asked.length).toBeGreaterThanOrEqual(15);

            // What it does need: its once records, in the job namespace only.
            const once = async (verb: string, namespace: string) =>
              may(auth, { verb, group: 'waitgate.dev', resource: 'oncerecords', namespace });
            // Delete: an expired record (waitgate.dev/expires-at) is removed, uid first, before it is claimed anew.
            expect(await Promise.all(['create', 'get', 'patch', 'delete'].map((v) => once(v, job)))).toEqual([true, true, true, true]);
            expect(await Promise.all(['list', 'watch', 'update', 'deletecollection'].map((v) => once(v, job)))).toEqual([
              false,
              false,
              false,
              false,
            ]);
            if (job !== release) expect(await once('create', release)).toBe(false);

            // Tried, as an attacker with its token would: every call refused, nothing changed.
            const core = kc.makeApiClient(k8s.CoreV1Api);
            const before = await c.kube.core.readNamespacedConfigMap({ name: 'waitgate-profiles', namespace: release });
            const evil = { 'profiles.json': JSON.stringify({ pwn: { mode: 'exec', script: 'pwn.sh' } }), 'pwn.sh': '#!/bin/sh\nid\n' };
            const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
            const tried: Record<string, number | undefined> = {};
            for (const namespace of new Set([release, job])) {
              const where = namespace === release ? 'release' : 'job';
              tried[`patch waitgate-profiles -n ${where}`] = await statusOf(() =>
                core.patchNamespacedConfigMap({ name: 'waitgate-profiles', namespace, body: { data: evil } }, merge),
              );
              tried[`update waitgate-profiles -n ${where}`] = await statusOf(() =>
                core.replaceNamespacedConfigMap({
                  name: 'waitgate-profiles',
                  namespace,
                  body: { metadata: { name: 'waitgate-profiles' }, data: evil },
                }),
              );
              tried[`create waitgate-profiles -n ${where}`] = await statusOf(() =>
                core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'waitgate-profiles' }, data: evil } }),
              );
              tried[`patch waitgate-triggers -n ${where}`] = await statusOf(() =>
                core.patchNamespacedConfigMap({ name: 'waitgate-triggers', namespace, body: { data: { 'triggers.json': '[]' } } }, merge),
              );
              tried[`delete waitgate-triggers -n ${where}`] = await statusOf(() =>
                core.deleteNamespacedConfigMap({ name: 'waitgate-triggers', namespace }),
              );
              tried[`get waitgate-profiles -n ${where}`] = await statusOf(() =>
                core.readNamespacedConfigMap({ name: 'waitgate-profiles', namespace }),
              );
              tried[`list configmaps -n ${where}`] = await statusOf(() => core.listNamespacedConfigMap({ namespace }));
            }
            expect(tried).toEqual(Object.fromEntries(Object.keys(tried).map((k) => [k, 403])));
            const after = await c.kube.core.readNamespacedConfigMap({ name: 'waitgate-profiles', namespace: release });
            expect(after.data).toEqual(before.data);
            expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
          },
        );
      } finally {
        if (jobNs) await kube.deleteNamespace(jobNs);
      }
    },
    Timeouts.testMs,
  );
});
