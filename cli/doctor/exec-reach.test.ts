import { describe, expect, test } from '@jest/globals';
import type * as k8s from '@kubernetes/client-node';
import { execReachFindings, operatorDeployments, type OperatorDeployment } from './exec-reach.js';
import type { ConfigMapRead } from './config-checks.js';

const profiles = (json: object): ConfigMapRead => ({
  state: 'ok',
  data: { 'profiles.json': JSON.stringify(json), 'a.sh': '#!/bin/sh\nexit 0\n', 'b.sh': '#!/bin/sh\nexit 0\n' },
});
const EXEC = profiles({
  jira: { mode: 'exec', script: 'a.sh' },
  deploy: { mode: 'exec', script: 'b.sh' },
  ci: { mode: 'pod', script: 'b.sh', image: 'alpine' },
});
const POD_ONLY = profiles({ ci: { mode: 'pod', script: 'b.sh', image: 'alpine' } });
const mounted: OperatorDeployment = { name: 'waitgate-operator', tokenMounted: true, inheritsEnv: false, credentials: ['VALKEY_URL'] };
const bare: OperatorDeployment = { ...mounted, tokenMounted: false, credentials: [] };

describe('execReachFindings', () => {
  test.each<[string, ConfigMapRead, readonly OperatorDeployment[] | undefined, [string, RegExp][]]>([
    [
      'exec profiles next to an operator with a token: a warning naming them, the token, the environment and pod mode',
      EXEC,
      [mounted],
      [
        [
          'WARN',
          /exec-mode profiles \(deploy, jira\) run as the operator's user inside Deployment ns\/waitgate-operator, which mounts a service-account token.*serviceaccount\/token.*the operator's whole environment from \/proc\/<its pid>\/environ \(VALKEY_URL\), whatever the allow-list.*"mode": "pod"/,
        ],
      ],
    ],
    [
      'no token, but credentials in its environment: still a warning, naming them',
      EXEC,
      [{ ...mounted, tokenMounted: false, credentials: ['VALKEY_URL', 'WAITGATE_GITHUB_TOKEN'] }],
      [['WARN', /mounts no service-account token, but.*environ \(VALKEY_URL, WAITGATE_GITHUB_TOKEN\).*"mode": "pod"/]],
    ],
    ['no token and no credential: ok', EXEC, [bare], [['ok', /mounts no service-account token and carries no credential/]]],
    ['pod-mode profiles only: ok, whatever the Deployment', POD_ONLY, [mounted], [['ok', /no exec-mode profile/]]],
    ['no operator Deployment here: ok, said so', EXEC, [], [['ok', /no operator Deployment in ns/]]],
    ['Deployments unreadable: a warning', EXEC, undefined, [['WARN', /cannot read the Deployments of ns \(forbidden\)/]]],
    [
      'an operator that passes its whole environment: a second warning',
      EXEC,
      [{ ...mounted, inheritsEnv: true, credentials: [] }],
      [
        ['WARN', /mounts a service-account token/],
        ['WARN', /WAITGATE_CHECK_ENV_INHERIT.*VALKEY_URL/],
      ],
    ],
  ])('%s', (_name, p, operators, expected) => {
    const findings = execReachFindings({ namespace: 'ns', profiles: p, operators, problem: 'forbidden' });
    expect(findings.map((f) => f.level)).toEqual(expected.map(([level]) => level));
    findings.forEach((f, i) => {
      expect(f.area).toBe('checks');
      expect(f.message).toMatch((expected[i] as [string, RegExp])[1]);
    });
  });

  test('profiles that are missing or do not load say nothing here (the profiles finding does)', () => {
    expect(execReachFindings({ namespace: 'ns', profiles: { state: 'missing' }, operators: [mounted] })).toEqual([]);
    expect(execReachFindings({ namespace: 'ns', profiles: { state: 'ok', data: { 'profiles.json': '{' } }, operators: [mounted] })).toEqual(
      [],
    );
  });
});

describe('operatorDeployments', () => {
  const deployment = (name: string, spec: Partial<k8s.V1PodSpec>, command = ['/usr/bin/tini', '--', 'node', 'dist/operator/main.js']) =>
    ({
      metadata: { name },
      spec: { selector: {}, template: { spec: { containers: [{ name: 'c', command, env: [] }], ...spec } } },
    }) as k8s.V1Deployment;

  test.each<[string, k8s.V1Deployment, k8s.V1ServiceAccount[], OperatorDeployment[]]>([
    [
      'the chart: token on',
      deployment('op', { serviceAccountName: 'op', automountServiceAccountToken: true }),
      [],
      [{ name: 'op', tokenMounted: true, inheritsEnv: false, credentials: [] }],
    ],
    [
      'turned off in the Pod spec',
      deployment('op', { automountServiceAccountToken: false }),
      [],
      [{ name: 'op', tokenMounted: false, inheritsEnv: false, credentials: [] }],
    ],
    [
      'silent Pod spec, ServiceAccount turns it off',
      deployment('op', { serviceAccountName: 'op' }),
      [{ metadata: { name: 'op' }, automountServiceAccountToken: false }],
      [{ name: 'op', tokenMounted: false, inheritsEnv: false, credentials: [] }],
    ],
    [
      'silent everywhere: the kubelet mounts it',
      deployment('op', {}),
      [],
      [{ name: 'op', tokenMounted: true, inheritsEnv: false, credentials: [] }],
    ],
    [
      'credentials in its environment are named; envFrom stands for names doctor cannot see',
      (() => {
        const d = deployment('op', { automountServiceAccountToken: false });
        const c = d.spec?.template.spec?.containers[0] as k8s.V1Container;
        c.env = [
          { name: 'WAITGATE_GITHUB_TOKEN', valueFrom: { secretKeyRef: { name: 'gh', key: 'token' } } },
          { name: 'VALKEY_URL', valueFrom: { secretKeyRef: { name: 'valkey', key: 'url' } } },
          { name: 'WAITGATE_LOG_LEVEL', value: 'info' },
        ];
        c.envFrom = [{ secretRef: { name: 'more' } }];
        return d;
      })(),
      [],
      [{ name: 'op', tokenMounted: false, inheritsEnv: false, credentials: ['VALKEY_URL', 'WAITGATE_GITHUB_TOKEN', 'envFrom'] }],
    ],
    ['the receiver is not the operator', deployment('rc', {}, ['node', 'dist/receiver/main.js']), [], []],
    [
      'WAITGATE_CHECK_ENV_INHERIT=true is seen',
      (() => {
        const d = deployment('op', {});
        (d.spec?.template.spec?.containers[0] as k8s.V1Container).env = [{ name: 'WAITGATE_CHECK_ENV_INHERIT', value: 'true' }];
        return d;
      })(),
      [],
      [{ name: 'op', tokenMounted: true, inheritsEnv: true, credentials: [] }],
    ],
  ])('%s', (_name, d, accounts, expected) => {
    expect(operatorDeployments([d], accounts)).toEqual(expected);
  });
});
