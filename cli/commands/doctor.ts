// waitgate doctor: everything that makes an operator not start, or a delivery refuse, looked
// at from outside: settings, the two ConfigMaps, the CRD, Valkey and RBAC. Then the capacity
// arithmetic at the current settings, and who may edit the profiles (and so run code as the
// operator).
import * as k8s from '@kubernetes/client-node';
import type { OperatorConfig } from '../../api/config/operator-config.js';
import { checkSecretFindings, readSecretsMetadata } from '../doctor/check-secrets.js';
import {
  CLUSTER_FLAGS,
  CLUSTER_FLAGS_HELP,
  flagValue,
  HELP_FLAG,
  NAMESPACE_FLAG,
  OUTPUT_FLAG,
  parseCommandLine,
  WAITGATE_NAMESPACE_FLAG,
} from '../args.js';
import { plural } from '../format.js';
import type { CliIo } from '../io.js';
import { describeError, loadCluster, readConfigMap, type Cluster } from '../kube.js';
import { statusCodeOf } from '../../lib/kube/client.js';
import { installedSettings, type InstalledSettings } from '../installed-settings.js';
import { operatorNamespace, readSettings } from '../settings.js';
import { capacity, capacityLines, type Capacity } from '../doctor/capacity.js';
import { configFindings, type ConfigMapRead } from '../doctor/config-checks.js';
import { CRD_NAME, crdFindings, ONCE_RECORD_CRD_NAME, onceRecordCrdFindings } from '../doctor/crd-check.js';
import { countLevels, fail, findingLine, ok, warn, type Finding } from '../doctor/findings.js';
import {
  describePermission,
  operatorPermissions,
  profileEditors,
  type BindingInfo,
  type Editor,
  type Permission,
  type RoleInfo,
} from '../doctor/rbac.js';
import { valkeyExposureFindings } from '../doctor/valkey-exposure.js';
import { JOB_POD_SECURITY_ANNOTATION, protectionFindings, type JobPolicyRead, type ProtectionInput } from '../doctor/protection.js';
import { valkeyFindings } from '../doctor/valkey.js';
import { execReachFindings, operatorDeployments, type OperatorDeployment } from '../doctor/exec-reach.js';
import { ExitCode, printHelp, refuseUsage, wantsHelp, type Command } from './command.js';

export const VALKEY_PING_TIMEOUT_MS = 2_000;

export const doctor: Command = {
  words: ['doctor'],
  args: '[--waitgate-namespace NS] [-n NAMESPACE] [--as USER] [-o json]',
  summary: 'find what would stop the operator or refuse a delivery; capacity; who can edit profiles',
  help: [
    "Reads the installed operator's settings (the environment its Deployment in the waitgate",
    "namespace gives it; this shell's WAITGATE_* and VALKEY_URL when there is no Deployment, as",
    'for an operator run by hand) and looks at:',
    '  settings  every variable parses as the operator parses it',
    '  profiles  waitgate-profiles loads; every script exists, is not empty, starts with #!;',
    '            none at all while triggers name profiles fails (their holds pause, none is',
    '            refused)',
    '  secrets   which profile reads which Secret (files, env); where Secret metadata may be',
    '            listed, a missing Secret or one not labelled waitgate.dev/check-secret warns',
    '  triggers  waitgate-triggers loads; every profile a trigger names is declared; no after',
    '            lies beyond WAITGATE_WAIT_AFTER_MAX_MS from now; a declared profile no',
    '            trigger names is a warning',
    "  crd       the installed heldjobs.waitgate.dev has this version's schema (an older one",
    '            may drop spec.waitFor: the skew trap); oncerecords.waitgate.dev is installed',
    "            with this version's schema (the receiver records once triggers in it)",
    '  checks    an exec-mode profile next to an operator Deployment that mounts a',
    '            service-account token is a warning: the script can read the token',
    '  valkey    VALKEY_URL answers PING within 2 s (over TLS, trusting the CA in',
    "            WAITGATE_VALKEY_CA_FILE when that file can be read here, as in `helm test`'s Pod);",
    '            outside the cluster, a name of its DNS (valkey.waitgate.svc) that does not',
    '            resolve here is a warning that it was not checked',
    '  valkey-exposure  a VALKEY_URL with no password, or plain text (redis://) to a host',
    "            that is not loopback, is a warning: a shared Valkey is the whole fleet's state",
    '  protection  which tenancy protections are in force: per forge, webhook secrets scoped',
    '            to repositories or (a warning) speaking for every repository; whether the',
    '            receiver confirms labels with the forge; the Pod Security level the',
    "            operator-jobs policy holds the operator's Jobs to, each namespace widened from",
    '            it (a warning), and no such policy bound (a warning)',
    "  rbac      every permission the operator needs is granted (to the kubeconfig's user, or",
    '            with --as to that user or service account)',
    'It then prints the capacity arithmetic at these settings and the subjects whose RBAC',
    'lets them update or patch waitgate-profiles: whoever can, can run code as the operator.',
    '',
    "  --waitgate-namespace NS  where waitgate's ConfigMaps and operator live (default:",
    '                           $WAITGATE_NAMESPACE, else waitgate-system)',
    '  -n, --namespace NS   also check that HeldJobs in NS are watched by the operator',
    '  --as USER            check RBAC for USER, e.g. system:serviceaccount:waitgate-system:waitgate',
    '  -o json              findings, capacity and editors as one JSON object',
    ...CLUSTER_FLAGS_HELP,
    '',
    'Each finding is one line starting FAIL, WARN or ok. Exit status 1 when any is FAIL, 0',
    'otherwise (warnings included); 2 for a usage error.',
  ].join('\n'),
  run: runDoctor,
  get flags() {
    return LINE.flags;
  },
};

const LINE = {
  flags: [WAITGATE_NAMESPACE_FLAG, NAMESPACE_FLAG, { name: 'as', value: true }, OUTPUT_FLAG, ...CLUSTER_FLAGS, HELP_FLAG],
  positionals: [],
} as const;

export interface DoctorReport {
  readonly namespace: string;
  /** Where the operator's settings were read: its Deployment, or this shell. */
  readonly settingsSource: string;
  /** The profiles ConfigMap's name, as the operator is told it (WAITGATE_PROFILES_CONFIGMAP). */
  readonly profilesConfigMap: string;
  readonly findings: readonly Finding[];
  readonly capacity: Capacity | undefined;
  /** undefined when the bindings could not be read. */
  readonly profileEditors: readonly Editor[] | undefined;
}

export async function runDoctor(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) return printHelp(doctor, io);
  const parsed = parseCommandLine(args, LINE);
  if (!parsed.ok) return refuseUsage(doctor, io, parsed.problem);
  const { json } = parsed;
  const as = flagValue(parsed, 'as');
  if (as !== undefined && as.trim() === '') return refuseUsage(doctor, io, '--as needs a user name');

  const namespace = operatorNamespace(flagValue(parsed, 'waitgate-namespace'), io.env);
  const report = await examine(io, {
    namespace,
    as,
    kubeconfig: flagValue(parsed, 'kubeconfig'),
    context: flagValue(parsed, 'context'),
    heldJobNamespace: flagValue(parsed, 'namespace'),
  });
  const { failures, warnings } = countLevels(report.findings);
  if (json) {
    io.stdout(
      JSON.stringify(
        {
          ...report,
          capacity: report.capacity ?? null,
          profileEditors: report.profileEditors ?? null,
          ok: failures === 0,
          failures,
          warnings,
        },
        null,
        2,
      ),
    );
  } else {
    io.stdout(`waitgate doctor: waitgate's ConfigMaps in ${namespace}; settings from ${report.settingsSource}`);
    for (const f of report.findings) io.stdout(findingLine(f));
    if (report.capacity) {
      io.stdout('');
      io.stdout('capacity at these settings:');
      for (const line of capacityLines(report.capacity)) io.stdout(`  ${line}`);
    }
    io.stdout('');
    if (report.profileEditors === undefined) {
      io.stdout(`who can edit ${namespace}/${report.profilesConfigMap}: unknown (the bindings could not be read; see the rbac warning)`);
    } else {
      io.stdout(`who can edit ${namespace}/${report.profilesConfigMap}, and so run code as the operator (update or patch, by RBAC):`);
      for (const e of report.profileEditors) io.stdout(`  ${e.subject}  (${e.via.join('; ')})`);
      if (report.profileEditors.length === 0) io.stdout('  no subject through RoleBindings or ClusterRoleBindings');
      if (!report.profileEditors.some((e) => e.subject === 'Group system:masters')) {
        io.stdout('  and members of the group system:masters, whom RBAC does not restrict');
      }
    }
    io.stdout('');
    io.stdout(`${plural(failures, 'failure')}, ${plural(warnings, 'warning')}`);
  }
  return failures > 0 ? ExitCode.Failure : ExitCode.Ok;
}

async function examine(
  io: CliIo,
  opts: {
    namespace: string;
    as: string | undefined;
    kubeconfig: string | undefined;
    context: string | undefined;
    heldJobNamespace: string | undefined;
  },
): Promise<DoctorReport> {
  const findings: Finding[] = [];
  const { namespace } = opts;

  // The cluster.
  let cluster: Cluster | undefined;
  try {
    cluster = loadCluster(io, opts.kubeconfig, opts.context);
  } catch (err) {
    findings.push(fail('cluster', describeError(err)));
  }

  // Settings, as the installed operator parses them at start.
  const installed: InstalledSettings = cluster
    ? await installedSettings(cluster.kc, namespace, io.env)
    : { source: "this shell's environment (the cluster could not be reached)", env: io.env, unresolved: [] };
  for (const name of installed.unresolved) {
    findings.push(warn('settings', `${name} is set from a Secret or field this user cannot read; it is not checked here`));
  }
  const settings = readSettings(installed.env);
  let config: OperatorConfig;
  // A VALKEY_URL that does not parse is already a settings failure; one that is unset is not.
  const valkeyUrl = installed.env['VALKEY_URL']?.trim() || undefined;
  const valkeyCaFile = installed.env['WAITGATE_VALKEY_CA_FILE']?.trim() || undefined;
  const valkeyParses = settings.ok || !settings.problems.some((p) => p.variable === 'VALKEY_URL');
  if (settings.ok) {
    config = settings.config;
    findings.push(ok('settings', 'every WAITGATE_* variable parses'));
    if (config.wait.intervalFloored) {
      findings.push(warn('settings', `WAITGATE_WAIT_INTERVAL_MS is under its floor; the operator raises it to ${config.wait.intervalMs}`));
    }
  } else {
    for (const p of settings.problems) findings.push(fail('settings', `${p.variable}: ${p.message} (the operator will not start)`));
    const defaults = readSettings({});
    if (!defaults.ok) throw new Error('the default settings do not parse');
    config = defaults.config;
  }
  if (opts.heldJobNamespace !== undefined) {
    const watched = config.watchNamespace;
    findings.push(
      watched && watched !== opts.heldJobNamespace
        ? fail(
            'watch',
            `HeldJobs in ${opts.heldJobNamespace} are never seen: the operator watches ${watched} only (WAITGATE_WATCH_NAMESPACE)`,
          )
        : ok('watch', `the operator watches ${watched ? watched : 'every namespace'}, ${opts.heldJobNamespace} included`),
    );
  }

  let editors: Editor[] | undefined;
  if (cluster) {
    const kc = cluster.kc;
    const [profiles, triggers] = await Promise.all([
      readMap(kc, namespace, config.configMaps.profiles),
      readMap(kc, namespace, config.configMaps.triggers),
    ]);
    findings.push(
      ...configFindings({ namespace, names: config.configMaps, profiles, triggers, nowMs: io.now(), afterMaxMs: config.wait.afterMaxMs }),
    );
    findings.push(...execReachFindings({ namespace, profiles, ...(await readOperators(kc, namespace)) }));
    findings.push(...checkSecretFindings(namespace, profiles, await readSecretsMetadata(kc, namespace)));
    findings.push(...(await crdCheck(kc)));
    findings.push(...(await valkeyCheck(valkeyUrl, valkeyParses, valkeyCaFile, io.env)));
    const place = { namespace, watchNamespace: config.watchNamespace, leaseName: config.leaderElection.leaseName };
    findings.push(...(await rbacCheck(kc, operatorPermissions(place), opts.as)));
    const [receivers, jobPolicy, approvalPolicy] = await Promise.all([
      readReceivers(kc, namespace),
      readJobPolicy(kc, namespace),
      readApprovalPolicy(kc, namespace),
    ]);
    findings.push(...protectionFindings({ receivers, jobPolicy, approvalPolicy }));
    const listed = await editorsOf(kc, namespace, config.configMaps.profiles);
    if ('problem' in listed)
      findings.push(warn('rbac', `cannot list who may edit ${namespace}/${config.configMaps.profiles}: ${listed.problem}`));
    else editors = listed.editors;
  } else {
    findings.push(...(await valkeyCheck(valkeyUrl, valkeyParses, valkeyCaFile, io.env)));
  }

  const w = config.wait;
  const cap = capacity({
    intervalMs: w.intervalMs,
    checkTimeoutMs: w.checkTimeoutMs,
    checkSlots: w.checkSlots,
    concurrency: config.concurrency,
    maxMs: w.maxMs,
    maxChecks: w.maxChecks,
    maxFaults: w.maxFaults,
    afterMaxMs: w.afterMaxMs,
  });
  return {
    namespace,
    settingsSource: installed.source,
    profilesConfigMap: config.configMaps.profiles,
    findings,
    capacity: settings.ok ? cap : undefined,
    profileEditors: editors,
  };
}

async function readMap(kc: k8s.KubeConfig, namespace: string, name: string): Promise<ConfigMapRead> {
  try {
    const data = await readConfigMap(kc, namespace, name);
    return data === undefined ? { state: 'missing' } : { state: 'ok', data };
  } catch (err) {
    return { state: 'error', problem: describeError(err) };
  }
}

/** The Deployments in `namespace` that run the operator, or why they could not be read. */
async function readOperators(
  kc: k8s.KubeConfig,
  namespace: string,
): Promise<{ operators: OperatorDeployment[] } | { operators: undefined; problem: string }> {
  try {
    const [deployments, accounts] = await Promise.all([
      kc.makeApiClient(k8s.AppsV1Api).listNamespacedDeployment({ namespace }),
      kc.makeApiClient(k8s.CoreV1Api).listNamespacedServiceAccount({ namespace }),
    ]);
    return { operators: operatorDeployments(deployments.items, accounts.items) };
  } catch (err) {
    return { operators: undefined, problem: describeError(err) };
  }
}

/** The receiver containers of `namespace`'s Deployments: each variable, its value when inline. */
async function readReceivers(kc: k8s.KubeConfig, namespace: string): Promise<ProtectionInput['receivers']> {
  let deployments: k8s.V1Deployment[];
  try {
    deployments = (await kc.makeApiClient(k8s.AppsV1Api).listNamespacedDeployment({ namespace })).items;
  } catch {
    return []; // readOperators has said why already.
  }
  return deployments.flatMap((d) => {
    const c = d.spec?.template.spec?.containers.find((c) =>
      [...(c.command ?? []), ...(c.args ?? [])].some((a) => /(^|\/)receiver\/main\.js$/.test(a)),
    );
    return c && d.metadata?.name
      ? [{ deployment: d.metadata.name, env: (c.env ?? []).map((e) => ({ name: e.name, value: e.value })) }]
      : [];
  });
}

/** The chart's operator-jobs policy of this release namespace, bound, with the levels it records. */
async function readJobPolicy(kc: k8s.KubeConfig, namespace: string): Promise<JobPolicyRead> {
  const admission = kc.makeApiClient(k8s.AdmissionregistrationV1Api);
  try {
    const [policies, bindings] = await Promise.all([
      admission.listValidatingAdmissionPolicy(),
      admission.listValidatingAdmissionPolicyBinding(),
    ]);
    const policy = policies.items.find((p) => {
      const name = p.metadata?.name ?? '';
      return name.startsWith(`${namespace}-`) && name.endsWith('-operator-jobs');
    });
    const bound = bindings.items.some(
      (b) => b.spec?.policyName === policy?.metadata?.name && (b.spec?.validationActions ?? []).includes('Deny'),
    );
    if (!policy || !bound) return { state: 'missing' };
    const recorded = policy.metadata?.annotations?.[JOB_POD_SECURITY_ANNOTATION];
    if (recorded === undefined) return { state: 'ok', level: 'baseline', namespaces: {} };
    const parsed = JSON.parse(recorded) as { default?: unknown; namespaces?: unknown };
    const namespaces = parsed.namespaces && typeof parsed.namespaces === 'object' ? (parsed.namespaces as Record<string, string>) : {};
    return { state: 'ok', level: typeof parsed.default === 'string' ? parsed.default : 'baseline', namespaces };
  } catch (err) {
    return { state: 'error', problem: describeError(err) };
  }
}

/** Whether this release's heldjob-approval policy is bound to deny; undefined when the lists cannot be read. */
async function readApprovalPolicy(kc: k8s.KubeConfig, namespace: string): Promise<boolean | undefined> {
  const admission = kc.makeApiClient(k8s.AdmissionregistrationV1Api);
  try {
    const [policies, bindings] = await Promise.all([
      admission.listValidatingAdmissionPolicy(),
      admission.listValidatingAdmissionPolicyBinding(),
    ]);
    const name = policies.items
      .map((p) => p.metadata?.name ?? '')
      .find((n) => n.startsWith(`${namespace}-`) && n.endsWith('-heldjob-approval'));
    return (
      name !== undefined && bindings.items.some((b) => b.spec?.policyName === name && (b.spec?.validationActions ?? []).includes('Deny'))
    );
  } catch {
    return undefined;
  }
}

async function crdCheck(kc: k8s.KubeConfig): Promise<Finding[]> {
  return [...(await oneCrd(kc, CRD_NAME, crdFindings)), ...(await oneCrd(kc, ONCE_RECORD_CRD_NAME, onceRecordCrdFindings))];
}

async function oneCrd(kc: k8s.KubeConfig, name: string, findings: (installed: unknown) => Finding[]): Promise<Finding[]> {
  // Through the custom-objects client: it hands back the raw JSON, x-kubernetes-* keys intact.
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  try {
    const crd: unknown = await custom.getClusterCustomObject({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      plural: 'customresourcedefinitions',
      name,
    });
    return findings(crd);
  } catch (err) {
    if (statusCodeOf(err) === 404) return findings(undefined);
    return [fail('crd', `cannot read ${name}: ${describeError(err)}`)];
  }
}

async function valkeyCheck(url: string | undefined, parses: boolean, caFile: string | undefined, env: CliIo['env']): Promise<Finding[]> {
  // In a Pod (helm test), the cluster's names resolve: not answering is then a failure whatever the name.
  const inCluster = Boolean(env['KUBERNETES_SERVICE_HOST']);
  if (!parses) return [];
  const reach = await valkeyFindings(url, { caFile, timeoutMs: VALKEY_PING_TIMEOUT_MS, inCluster });
  return url === undefined ? reach : [...reach, ...valkeyExposureFindings(url)];
}

/** `system:serviceaccount:NS:NAME` brings the groups the apiserver gives that account. */
function asGroups(user: string): string[] {
  const sa = /^system:serviceaccount:([^:]+):[^:]+$/.exec(user);
  return sa ? ['system:serviceaccounts', `system:serviceaccounts:${sa[1]}`, 'system:authenticated'] : ['system:authenticated'];
}

async function rbacCheck(kc: k8s.KubeConfig, perms: readonly Permission[], as: string | undefined): Promise<Finding[]> {
  const authz = kc.makeApiClient(k8s.AuthorizationV1Api);
  const who = as ?? (await selfName(kc));
  const attributes = (p: Permission): k8s.V1ResourceAttributes => ({
    verb: p.verb,
    group: p.group,
    resource: p.resource,
    ...(p.subresource ? { subresource: p.subresource } : {}),
    ...(p.name !== undefined ? { name: p.name } : {}),
    ...(p.namespace !== undefined ? { namespace: p.namespace } : {}),
  });
  let answers: { p: Permission; allowed: boolean }[];
  try {
    answers = await Promise.all(
      perms.map(async (p) => {
        const review = as
          ? await authz.createSubjectAccessReview({ body: { spec: { user: as, groups: asGroups(as), resourceAttributes: attributes(p) } } })
          : await authz.createSelfSubjectAccessReview({ body: { spec: { resourceAttributes: attributes(p) } } });
        return { p, allowed: review.status?.allowed === true };
      }),
    );
  } catch (err) {
    return [warn('rbac', `cannot ask the apiserver what ${who} may do: ${describeError(err)}`)];
  }
  const missing = answers.filter((a) => !a.allowed);
  if (missing.length === 0) {
    return [
      ok(
        'rbac',
        `${who} has all ${perms.length} permissions the operator needs${as ? '' : " (run with --as system:serviceaccount:<namespace>:<name> to check the operator's own account)"}`,
      ),
    ];
  }
  // One line per resource (and name) and namespace: `may not list, watch jobs.batch in every namespace`.
  const grouped = new Map<string, Permission[]>();
  for (const { p } of missing) {
    const key = describePermission({ ...p, verb: '' });
    grouped.set(key, [...(grouped.get(key) ?? []), p]);
  }
  return [...grouped.entries()].map(([what, ps]) =>
    fail('rbac', `${who} may not ${ps.map((p) => p.verb).join(', ')}${what}, which the operator needs`),
  );
}

/** The kubeconfig user's name as the apiserver sees it, when it will say. */
async function selfName(kc: k8s.KubeConfig): Promise<string> {
  try {
    const authn = kc.makeApiClient(k8s.AuthenticationV1Api);
    const review = await authn.createSelfSubjectReview({ body: {} });
    const name = review.status?.userInfo?.username;
    if (name) return `the kubeconfig's user (${name})`;
  } catch {
    // an older apiserver: no SelfSubjectReview
  }
  return "the kubeconfig's user";
}

async function editorsOf(
  kc: k8s.KubeConfig,
  namespace: string,
  profilesConfigMap: string,
): Promise<{ editors: Editor[] } | { problem: string }> {
  const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  try {
    const [rb, crb, roles, clusterRoles] = await Promise.all([
      rbac.listNamespacedRoleBinding({ namespace }),
      rbac.listClusterRoleBinding(),
      rbac.listNamespacedRole({ namespace }),
      rbac.listClusterRole(),
    ]);
    const bindings: BindingInfo[] = [
      ...rb.items.map((b) => ({
        kind: 'RoleBinding' as const,
        name: b.metadata?.name ?? '?',
        namespace: b.metadata?.namespace ?? namespace,
        roleRef: b.roleRef,
        subjects: b.subjects ?? [],
      })),
      ...crb.items.map((b) => ({
        kind: 'ClusterRoleBinding' as const,
        name: b.metadata?.name ?? '?',
        roleRef: b.roleRef,
        subjects: b.subjects ?? [],
      })),
    ];
    const roleInfos: RoleInfo[] = [
      ...roles.items.map((r) => ({
        kind: 'Role' as const,
        name: r.metadata?.name ?? '?',
        namespace: r.metadata?.namespace ?? namespace,
        rules: r.rules ?? [],
      })),
      ...clusterRoles.items.map((r) => ({ kind: 'ClusterRole' as const, name: r.metadata?.name ?? '?', rules: r.rules ?? [] })),
    ];
    return { editors: profileEditors(bindings, roleInfos, namespace, profilesConfigMap) };
  } catch (err) {
    return { problem: describeError(err) };
  }
}
