import { describe, expect, test } from '@jest/globals';
import type * as k8s from '@kubernetes/client-node';
import { OPERATOR_VERSION_ANNOTATION } from '../api/vocabulary.js';
import { operatorVersion, type OperatorVersion } from './operator-version.js';

const lease = (holder: string | undefined, version: string | undefined): k8s.V1Lease => ({
  metadata: { name: 'waitgate-operator', ...(version ? { annotations: { [OPERATOR_VERSION_ANNOTATION]: version } } : {}) },
  spec: { holderIdentity: holder },
});
const deployment = (component: string, version: string | undefined): k8s.V1Deployment => ({
  metadata: {
    name: `waitgate-${component}`,
    labels: { 'app.kubernetes.io/component': component, ...(version ? { 'app.kubernetes.io/version': version } : {}) },
  },
  status: { readyReplicas: 1 },
});

describe('operatorVersion', () => {
  test.each<[string, k8s.V1Lease[], k8s.V1Deployment[], OperatorVersion]>([
    [
      'the leader Lease names the running version',
      [lease('pod-a', '0.3.0')],
      [deployment('operator', '0.2.0')],
      { version: '0.3.0', source: 'lease', object: 'lease/waitgate-operator', detail: 'held by pod-a' },
    ],
    [
      'a released Lease (no holder) does not: the Deployment label does',
      [lease(undefined, '0.3.0')],
      [deployment('receiver', '9.9.9'), deployment('operator', '0.2.0')],
      { version: '0.2.0', source: 'deployment', object: 'deployment/waitgate-operator', detail: '1 ready' },
    ],
    [
      'a Lease of someone else, no operator',
      [lease('x', undefined)],
      [deployment('receiver', '1')],
      { version: null, source: 'none', object: null, detail: null },
    ],
  ])('%s', (_what, leases, deployments, want) => {
    expect(operatorVersion(leases, deployments)).toEqual(want);
  });
});
