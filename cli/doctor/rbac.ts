// RBAC, two ways. What the operator needs (asked of the apiserver with access reviews), and
// who may edit the profiles ConfigMap: whoever can, can run code as the operator. No review
// API answers "who may", so that part reads the bindings and their roles and matches the
// rules itself (wildcards included). Pure: the objects come in as data.

/** Where a rule of the operator's applies. */
export const PermissionScope = {
  /** Where the HeldJobs and their Jobs are: every namespace, or WAITGATE_WATCH_NAMESPACE. */
  Watched: 'watched',
  /** The operator's own namespace (WAITGATE_NAMESPACE), where its ConfigMaps, Lease and check Pods live. */
  Own: 'own',
} as const;
export type PermissionScope = (typeof PermissionScope)[keyof typeof PermissionScope];

/** One rule of what the operator needs, as the chart grants it. */
export interface OperatorRule {
  readonly scope: PermissionScope;
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly verbs: readonly string[];
  /** Only on the leader-election Lease (WAITGATE_LEADER_ELECTION_ID), not on every object. */
  readonly leaderLeaseOnly?: boolean;
  /** What the operator's code does with it. */
  readonly why: string;
}

/**
 * Everything the operator may do, and nothing more: what its code calls (operator/adapters,
 * operator/checks/pod-check.ts, operator/main.ts). The chart's RBAC (charts/waitgate/
 * templates/rbac-operator.yaml) is tested against this table, both ways.
 */
export const OPERATOR_PERMISSIONS: readonly OperatorRule[] = [
  {
    scope: PermissionScope.Watched,
    group: 'waitgate.dev',
    resource: 'heldjobs',
    verbs: ['list', 'watch', 'patch', 'delete'],
    why: 'the informer; metadata.finalizers by merge patch; finished ones past their time to live',
  },
  {
    scope: PermissionScope.Watched,
    group: 'waitgate.dev',
    resource: 'heldjobs',
    subresource: 'status',
    verbs: ['update'],
    why: 'status writes',
  },
  {
    scope: PermissionScope.Watched,
    group: 'waitgate.dev',
    resource: 'heldjobs',
    subresource: 'finalizers',
    verbs: ['update'],
    why: 'its Jobs are owned with blockOwnerDeletion',
  },
  {
    scope: PermissionScope.Watched,
    group: 'batch',
    resource: 'jobs',
    verbs: ['create', 'get', 'list', 'watch', 'patch', 'delete'],
    why: 'launch, the informer, find its own, the launch finalizer off, delete on cancel',
  },
  {
    scope: PermissionScope.Watched,
    group: '',
    resource: 'events',
    verbs: ['create', 'get', 'patch'],
    why: 'an Event when a decision changes; the same one again is counted on it (read, then its count patched)',
  },
  {
    scope: PermissionScope.Own,
    group: '',
    resource: 'configmaps',
    verbs: ['list', 'watch'],
    why: 'waitgate-profiles and waitgate-triggers',
  },
  {
    scope: PermissionScope.Own,
    group: 'coordination.k8s.io',
    resource: 'leases',
    verbs: ['create'],
    why: 'leader election: makes its Lease',
  },
  {
    scope: PermissionScope.Own,
    group: 'coordination.k8s.io',
    resource: 'leases',
    verbs: ['get', 'update'],
    leaderLeaseOnly: true,
    why: 'leader election: reads and renews its Lease',
  },
  // No get: nothing reads one check Pod; the informer lists and watches them.
  {
    scope: PermissionScope.Own,
    group: '',
    resource: 'pods',
    verbs: ['create', 'list', 'watch', 'delete'],
    why: 'pod-mode checks run in Pods of its own',
  },
];

/** One permission the operator needs. namespace undefined: in every namespace. */
export interface Permission {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  /** Only on the object of this name. */
  readonly name?: string;
  readonly namespace?: string;
}

export interface OperatorPlace {
  /** Where its ConfigMaps, Lease and check Pods live. */
  readonly namespace: string;
  /** Where it watches HeldJobs and Jobs ('' for every namespace). */
  readonly watchNamespace: string;
  /** The leader-election Lease's name. */
  readonly leaseName: string;
}

/** OPERATOR_PERMISSIONS spelt out for one deployment: one permission per verb. */
export function operatorPermissions(place: OperatorPlace): Permission[] {
  return OPERATOR_PERMISSIONS.flatMap((r) => {
    const where = r.scope === PermissionScope.Own ? place.namespace : place.watchNamespace === '' ? undefined : place.watchNamespace;
    return r.verbs.map((verb) => ({
      verb,
      group: r.group,
      resource: r.resource,
      ...(r.subresource ? { subresource: r.subresource } : {}),
      ...(r.leaderLeaseOnly ? { name: place.leaseName } : {}),
      ...(where !== undefined ? { namespace: where } : {}),
    }));
  });
}

/** `watch heldjobs.waitgate.dev in every namespace`, `get leases.coordination.k8s.io named x in ns`. */
export function describePermission(p: Permission): string {
  const resource = `${p.resource}${p.group ? `.${p.group}` : ''}${p.subresource ? `/${p.subresource}` : ''}`;
  return `${p.verb} ${resource}${p.name !== undefined ? ` named ${p.name}` : ''} ${p.namespace === undefined ? 'in every namespace' : `in ${p.namespace}`}`;
}

export interface PolicyRule {
  readonly verbs?: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
}

export interface RoleInfo {
  readonly kind: 'Role' | 'ClusterRole';
  readonly name: string;
  /** Roles only. */
  readonly namespace?: string;
  readonly rules?: readonly PolicyRule[];
}

export interface Subject {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

export interface BindingInfo {
  readonly kind: 'RoleBinding' | 'ClusterRoleBinding';
  readonly name: string;
  /** RoleBindings only. */
  readonly namespace?: string;
  readonly roleRef: { readonly kind: string; readonly name: string };
  readonly subjects?: readonly Subject[];
}

export interface Editor {
  /** `User alice`, `Group system:masters`, `ServiceAccount ci/deployer`. */
  readonly subject: string;
  /** The bindings that give it the right, as `ClusterRoleBinding x → ClusterRole y`. */
  readonly via: readonly string[];
}

const any = (list: readonly string[] | undefined, ...wanted: string[]) => (list ?? []).some((v) => v === '*' || wanted.includes(v));

/** Whether the rule allows update or patch of the ConfigMap `name`. */
export function ruleLetsEdit(rule: PolicyRule, name: string): boolean {
  return (
    any(rule.verbs, 'update', 'patch') &&
    any(rule.apiGroups, '') &&
    any(rule.resources, 'configmaps') &&
    (rule.resourceNames === undefined || rule.resourceNames.length === 0 || rule.resourceNames.includes(name))
  );
}

/** Everyone whose bindings allow update or patch of ConfigMap `name` in `namespace`, sorted. */
export function profileEditors(bindings: readonly BindingInfo[], roles: readonly RoleInfo[], namespace: string, name: string): Editor[] {
  const roleKey = (kind: string, roleName: string, ns?: string) =>
    kind === 'Role' ? `Role/${ns ?? ''}/${roleName}` : `ClusterRole/${roleName}`;
  const byKey = new Map(roles.map((r) => [roleKey(r.kind, r.name, r.namespace), r]));
  const editors = new Map<string, Set<string>>();
  for (const b of bindings) {
    // A RoleBinding grants only in its own namespace; a ClusterRoleBinding everywhere.
    if (b.kind === 'RoleBinding' && b.namespace !== namespace) continue;
    if (b.kind === 'ClusterRoleBinding' && b.roleRef.kind !== 'ClusterRole') continue;
    const role = byKey.get(roleKey(b.roleRef.kind, b.roleRef.name, b.namespace));
    if (!role || !(role.rules ?? []).some((r) => ruleLetsEdit(r, name))) continue;
    const via = `${b.kind} ${b.kind === 'RoleBinding' ? `${b.namespace}/` : ''}${b.name} → ${role.kind} ${role.name}`;
    for (const s of b.subjects ?? []) {
      const ns = s.kind === 'ServiceAccount' ? (s.namespace ?? b.namespace) : undefined;
      const subject = `${s.kind} ${ns ? `${ns}/` : ''}${s.name}`;
      const set = editors.get(subject) ?? new Set<string>();
      set.add(via);
      editors.set(subject, set);
    }
  }
  return [...editors.entries()]
    .map(([subject, via]) => ({ subject, via: [...via].sort() }))
    .sort((a, b) => a.subject.localeCompare(b.subject));
}
