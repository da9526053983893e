import { describe, expect, test } from '@jest/globals';
import {
  describePermission,
  OPERATOR_PERMISSIONS,
  operatorPermissions,
  profileEditors,
  ruleLetsEdit,
  type BindingInfo,
  type RoleInfo,
} from './rbac.js';

describe('the permissions the operator needs', () => {
  test('watched resources everywhere (or in the watched namespace), ConfigMaps, its Lease and check Pods in its own', () => {
    const all = operatorPermissions({ namespace: 'waitgate-system', watchNamespace: '', leaseName: 'waitgate-operator' }).map(
      describePermission,
    );
    expect(all).toEqual([
      'list heldjobs.waitgate.dev in every namespace',
      'watch heldjobs.waitgate.dev in every namespace',
      'patch heldjobs.waitgate.dev in every namespace',
      'delete heldjobs.waitgate.dev in every namespace',
      'update heldjobs.waitgate.dev/status in every namespace',
      'update heldjobs.waitgate.dev/finalizers in every namespace',
      'create jobs.batch in every namespace',
      'get jobs.batch in every namespace',
      'list jobs.batch in every namespace',
      'watch jobs.batch in every namespace',
      'patch jobs.batch in every namespace',
      'delete jobs.batch in every namespace',
      'create events in every namespace',
      'get events in every namespace',
      'patch events in every namespace',
      'list configmaps in waitgate-system',
      'watch configmaps in waitgate-system',
      'create leases.coordination.k8s.io in waitgate-system',
      'get leases.coordination.k8s.io named waitgate-operator in waitgate-system',
      'update leases.coordination.k8s.io named waitgate-operator in waitgate-system',
      'create pods in waitgate-system',
      'list pods in waitgate-system',
      'watch pods in waitgate-system',
      'delete pods in waitgate-system',
    ]);
    const one = operatorPermissions({ namespace: 'waitgate-system', watchNamespace: 'team-a', leaseName: 'lead' });
    expect(one.filter((p) => p.resource === 'jobs' || p.resource === 'heldjobs').every((p) => p.namespace === 'team-a')).toBe(true);
    expect(one.filter((p) => p.name !== undefined).map(describePermission)).toEqual([
      'get leases.coordination.k8s.io named lead in waitgate-system',
      'update leases.coordination.k8s.io named lead in waitgate-system',
    ]);
  });

  test('the table: every rule has verbs and says why; no verb twice for one resource', () => {
    const seen = new Set<string>();
    for (const r of OPERATOR_PERMISSIONS) {
      expect(r.verbs.length).toBeGreaterThan(0);
      expect(r.why).not.toBe('');
      for (const v of r.verbs) {
        const key = `${r.scope} ${r.group} ${r.resource}/${r.subresource ?? ''} ${v}`;
        expect(seen.has(key)).toBe(false);
        seen.add(key);
      }
    }
  });
});

describe('who may edit the profiles ConfigMap', () => {
  test.each([
    [{ verbs: ['update'], apiGroups: [''], resources: ['configmaps'] }, true],
    [{ verbs: ['patch'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['waitgate-profiles'] }, true],
    [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, true],
    [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'] }, false],
    [{ verbs: ['update'], apiGroups: ['apps'], resources: ['configmaps'] }, false],
    [{ verbs: ['update'], apiGroups: [''], resources: ['secrets'] }, false],
    [{ verbs: ['update'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['other'] }, false],
  ])('%j lets edit: %s', (rule, lets) => {
    expect(ruleLetsEdit(rule, 'waitgate-profiles')).toBe(lets);
  });

  test('resolves bindings to roles; a RoleBinding counts only in its own namespace', () => {
    const roles: RoleInfo[] = [
      { kind: 'ClusterRole', name: 'cluster-admin', rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] },
      { kind: 'ClusterRole', name: 'view', rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }] },
      { kind: 'ClusterRole', name: 'cm-editor', rules: [{ verbs: ['patch'], apiGroups: [''], resources: ['configmaps'] }] },
      {
        kind: 'Role',
        name: 'profiles',
        namespace: 'waitgate-system',
        rules: [{ verbs: ['update'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['waitgate-profiles'] }],
      },
      { kind: 'Role', name: 'profiles', namespace: 'elsewhere', rules: [{ verbs: ['*'], apiGroups: [''], resources: ['configmaps'] }] },
    ];
    const bindings: BindingInfo[] = [
      {
        kind: 'ClusterRoleBinding',
        name: 'cluster-admin',
        roleRef: { kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'Group', name: 'system:masters' }],
      },
      {
        kind: 'ClusterRoleBinding',
        name: 'viewers',
        roleRef: { kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'Group', name: 'everyone' }],
      },
      {
        kind: 'RoleBinding',
        name: 'ci',
        namespace: 'waitgate-system',
        roleRef: { kind: 'ClusterRole', name: 'cm-editor' },
        subjects: [
          { kind: 'ServiceAccount', name: 'deployer' },
          { kind: 'User', name: 'alice' },
        ],
      },
      {
        kind: 'RoleBinding',
        name: 'own',
        namespace: 'waitgate-system',
        roleRef: { kind: 'Role', name: 'profiles' },
        subjects: [{ kind: 'User', name: 'alice' }],
      },
      {
        kind: 'RoleBinding',
        name: 'other-ns',
        namespace: 'elsewhere',
        roleRef: { kind: 'Role', name: 'profiles' },
        subjects: [{ kind: 'User', name: 'mallory' }],
      },
      {
        kind: 'RoleBinding',
        name: 'dangling',
        namespace: 'waitgate-system',
        roleRef: { kind: 'Role', name: 'gone' },
        subjects: [{ kind: 'User', name: 'bob' }],
      },
    ];
    expect(profileEditors(bindings, roles, 'waitgate-system', 'waitgate-profiles')).toEqual([
      { subject: 'Group system:masters', via: ['ClusterRoleBinding cluster-admin → ClusterRole cluster-admin'] },
      { subject: 'ServiceAccount waitgate-system/deployer', via: ['RoleBinding waitgate-system/ci → ClusterRole cm-editor'] },
      {
        subject: 'User alice',
        via: ['RoleBinding waitgate-system/ci → ClusterRole cm-editor', 'RoleBinding waitgate-system/own → Role profiles'],
      },
    ]);
  });
});
