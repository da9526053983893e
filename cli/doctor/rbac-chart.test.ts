// Doctor's table of what the operator needs (OPERATOR_PERMISSIONS) against the RBAC the chart
// renders for the operator's ServiceAccount, both ways: every permission in the table is
// granted, and every grant is in the table. Renders with `helm template` (no cluster); helm
// comes from PATH or from hack/install-tools.sh's ~/.cache/waitgate/bin/active.
import { describe, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { describePermission, operatorPermissions, type PolicyRule } from './rbac.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHART = join(ROOT, 'charts', 'waitgate');
const TOOLS = join(process.env['WAITGATE_CACHE'] ?? join(homedir(), '.cache', 'waitgate'), 'bin', 'active');
const RELEASE_NS = 'waitgate-system';
const OPERATOR_SA = 'waitgate-operator';

interface Manifest {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly rules?: readonly PolicyRule[];
  readonly roleRef?: { readonly kind: string; readonly name: string };
  readonly subjects?: readonly { readonly kind: string; readonly name: string; readonly namespace?: string }[];
}

function render(sets: readonly string[]): Manifest[] {
  let out: string;
  try {
    out = execFileSync(
      'helm',
      ['template', 'waitgate', CHART, '-n', RELEASE_NS, '--set', 'valkey.url=redis://x:6379', ...sets.flatMap((s) => ['--set', s])],
      {
        encoding: 'utf8',
        env: { ...process.env, PATH: `${TOOLS}:${process.env['PATH'] ?? ''}` },
      },
    );
  } catch (err) {
    throw new Error(`helm template failed (is helm installed? run \`bash hack/install-tools.sh\`): ${(err as Error).message}`, {
      cause: err,
    });
  }
  return parseAllDocuments(out)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

/** Every permission the chart grants the operator's ServiceAccount, through the bindings it renders. */
function grantedToOperator(ms: readonly Manifest[]): string[] {
  const roles = new Map(
    ms
      .filter((m) => m.kind === 'Role' || m.kind === 'ClusterRole')
      .map((m) => [`${m.kind}/${m.metadata.namespace ?? ''}/${m.metadata.name}`, m]),
  );
  const granted = new Set<string>();
  for (const b of ms.filter((m) => m.kind === 'RoleBinding' || m.kind === 'ClusterRoleBinding')) {
    if (!(b.subjects ?? []).some((s) => s.kind === 'ServiceAccount' && s.name === OPERATOR_SA && s.namespace === RELEASE_NS)) continue;
    const ref = b.roleRef;
    if (!ref) continue;
    const role = roles.get(`${ref.kind}/${ref.kind === 'Role' ? (b.metadata.namespace ?? '') : ''}/${ref.name}`);
    if (!role) throw new Error(`${b.kind} ${b.metadata.name} binds ${ref.kind} ${ref.name}, which the chart does not render`);
    // A ClusterRole bound by a ClusterRoleBinding grants everywhere; anything else in the binding's namespace.
    const namespace = b.kind === 'ClusterRoleBinding' ? undefined : b.metadata.namespace;
    for (const rule of role.rules ?? []) {
      for (const group of rule.apiGroups ?? []) {
        for (const full of rule.resources ?? []) {
          const [resource = '', subresource] = full.split('/');
          for (const verb of rule.verbs ?? []) {
            const names = rule.resourceNames && rule.resourceNames.length > 0 ? rule.resourceNames : [undefined];
            for (const name of names) {
              const where = {
                ...(subresource ? { subresource } : {}),
                ...(name !== undefined ? { name } : {}),
                ...(namespace !== undefined ? { namespace } : {}),
              };
              granted.add(describePermission({ verb, group, resource, ...where }));
            }
          }
        }
      }
    }
  }
  return [...granted].sort();
}

describe("doctor's operator permissions are the chart's operator RBAC", () => {
  test.each<[string, string[], { watchNamespace: string; leaseName: string }]>([
    ['every namespace watched (a ClusterRole)', [], { watchNamespace: '', leaseName: 'waitgate-operator' }],
    [
      'one namespace watched (Roles only)',
      ['watchNamespace=team-a', 'receiver.jobNamespace=team-a'],
      { watchNamespace: 'team-a', leaseName: 'waitgate-operator' },
    ],
    [
      'its own namespace watched, another Lease name',
      [`watchNamespace=${RELEASE_NS}`, 'operator.leaderElection.id=fleet-lead'],
      { watchNamespace: RELEASE_NS, leaseName: 'fleet-lead' },
    ],
  ])(
    '%s',
    (_what, sets, place) => {
      const granted = grantedToOperator(render(sets));
      const needed = [...new Set(operatorPermissions({ namespace: RELEASE_NS, ...place }).map(describePermission))].sort();
      expect(granted.length).toBeGreaterThan(0);
      // In doctor's table but not granted: doctor would ask for it, and the operator lack it.
      expect(needed.filter((k) => !granted.includes(k))).toEqual([]);
      // Granted but not in doctor's table: a right the operator has and nobody said it needs.
      expect(granted.filter((k) => !needed.includes(k))).toEqual([]);
    },
    30_000,
  );
});
