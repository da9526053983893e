import { describe, expect, test } from '@jest/globals';
import type * as k8s from '@kubernetes/client-node';
import { checkPod, podAnswer } from './pod-check.js';

const profile = { name: 'ci', mode: 'pod' as const, script: 'ci.sh', image: 'alpine:3.20' };

describe('checkPod', () => {
  const pod = checkPod({ name: 'p', namespace: 'waitgate-system', profile, target: 'acme/web#7', key: 'team-a/web-7', worker: 'w', configMap: 'waitgate-profiles', timeoutMs: 10_000 });
  const spec = pod.spec as k8s.V1PodSpec;
  const c = spec.containers[0] as k8s.V1Container;

  test('argv is [script, target]: no shell', () => {
    expect(c.command).toEqual(['/waitgate/profiles/ci.sh']);
    expect(c.args).toEqual(['acme/web#7']);
  });
  test('no service-account token, never restarted, deadline from the check timeout', () => {
    expect(spec.automountServiceAccountToken).toBe(false);
    expect(spec.restartPolicy).toBe('Never');
    expect(spec.activeDeadlineSeconds).toBe(10);
  });
  test('non-root, read-only root filesystem, no privilege escalation, limits', () => {
    expect(spec.securityContext?.runAsNonRoot).toBe(true);
    expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(c.resources?.limits).toBeDefined();
  });
  test('the script is mounted read-only from the profiles ConfigMap, that key alone', () => {
    expect(c.volumeMounts).toEqual([{ name: 'profiles', mountPath: '/waitgate/profiles', readOnly: true }]);
    expect(spec.volumes?.[0]?.configMap).toEqual({ name: 'waitgate-profiles', defaultMode: 0o555, items: [{ key: 'ci.sh', path: 'ci.sh' }] });
  });
  test('labelled for its HeldJob and its worker', () => {
    expect(pod.metadata?.labels).toMatchObject({ 'waitgate.dev/check': 'true', 'waitgate.dev/heldjob': 'web-7', 'waitgate.dev/worker': 'w' });
  });
});

describe('podAnswer', () => {
  const status = (s: k8s.V1PodStatus): k8s.V1Pod => ({ status: s });
  test.each<[string, k8s.V1Pod, object | undefined]>([
    ['pending', status({ phase: 'Pending' }), undefined],
    ['running', status({ phase: 'Running', containerStatuses: [{ name: 'check', image: 'x', imageID: '', ready: true, restartCount: 0, state: { running: {} } }] }), undefined],
    ['exited 3', status({ phase: 'Failed', containerStatuses: [{ name: 'check', image: 'x', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 3 } } }] }), { exitCode: 3, timedOut: false }],
    ['exited 0', status({ phase: 'Succeeded', containerStatuses: [{ name: 'check', image: 'x', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0 } } }] }), { exitCode: 0 }],
    ['past its deadline', status({ phase: 'Failed', reason: 'DeadlineExceeded' }), { exitCode: null, timedOut: true }],
    ['the image cannot be pulled', status({ phase: 'Pending', containerStatuses: [{ name: 'check', image: 'x', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff' } } }] }), { exitCode: null, spawnError: 'ImagePullBackOff' }],
    ['unschedulable', status({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] }), { exitCode: null, spawnError: 'Unschedulable' }],
  ])('%s', (_n, pod, expected) => {
    const a = podAnswer(pod);
    if (expected === undefined) expect(a).toBeUndefined();
    else expect(a).toMatchObject(expected);
  });
});
