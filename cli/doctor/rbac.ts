// RBAC, two ways. What the operator needs (asked of the apiserver with access reviews), and
// who may edit the profiles ConfigMap: whoever can, can run code as the operator. No review
// API answers "who may", so that part reads the bindings and their roles and matches the
// rules itself (wildcards included). Pure: the objects come in as data.

/** One permission the operator needs. namespace undefined: in every namespace. */
export interface Permission {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly namespace?: string;
}

/**
 * namespace: where its ConfigMaps and Lease live. watchNamespace: where it watches HeldJobs and
 * Jobs ('' for every namespace).
 */
export function operatorPermissions(namespace: string, watchNamespace: string): Permission[] {
  const watched = watchNamespace === '' ? {} : { namespace: watchNamespace };
  const own = { namespace };
  const perms: Permission[] = [];
  const add = (group: string, resource: string, verbs: string[], where: { namespace?: string }, subresource?: string) => {
    for (const verb of verbs) perms.push({ verb, group, resource, ...(subresource ? { subresource } : {}), ...where });
  };
  add('waitgate.dev', 'heldjobs', ['list', 'watch', 'patch'], watched);
  add('waitgate.dev', 'heldjobs', ['update'], watched, 'status');
  add('batch', 'jobs', ['create', 'get', 'list', 'watch', 'delete'], watched);
  add('', 'events', ['create'], watched);
  add('', 'configmaps', ['list', 'watch'], own);
  add('coordination.k8s.io', 'leases', ['get', 'create', 'update'], own);
  // Checks run as Pods (profile mode pod) live in the operator's own namespace.
  add('', 'pods', ['create', 'get', 'list', 'watch', 'delete'], own);
  return perms;
}

/** `watch heldjobs.waitgate.dev in every namespace`, `update heldjobs/status ... in team-a`. */
export function describePermission(p: Permission): string {
  const resource = `${p.resource}${p.group ? `.${p.group}` : ''}${p.subresource ? `/${p.subresource}` : ''}`;
  return `${p.verb} ${resource} ${p.namespace === undefined ? 'in every namespace' : `in ${p.namespace}`}`;
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
  const roleKey = (kind: string, roleName: string, ns?: string) => (kind === 'Role' ? `Role/${ns ?? ''}/${roleName}` : `ClusterRole/${roleName}`);
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
