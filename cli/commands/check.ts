// waitgate check PROFILE TARGET: runs one check the way the operator runs it, and explains
// the answer. The profile comes from the live waitgate-profiles ConfigMap, its script is
// written to a private directory (as an operator without a mounted ConfigMap does), and it
// runs through the operator's own runner: argv [TARGET], stdin /dev/null, no shell, the
// allow-listed part of this command's environment (api/check-env.ts, the operator's rule),
// the configured timeout, output counted and never read. The script came from the cluster and
// runs on the admin's machine: its sha256 is printed before it runs.
//
// waitgate check --pod PROFILE TARGET: a pod-mode profile's check Pod, started in the cluster as
// the operator starts it (cli/check-pod.ts), its exit code explained the same way.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runExecCheck, type CheckAnswer } from '../../operator/checks/exec-check.js';
import { BASE_CHECK_ENV, checkEnvironment } from '../../api/check-env.js';
import { ProfileScripts } from '../../operator/checks/profile-scripts.js';
import { TARGET_PATTERN } from '../../api/heldjob-schema.js';
import {
  isProfileName,
  parseProfiles,
  PROFILES_CONFIGMAP,
  ProfileMode,
  secretsRead,
  withCheckImage,
  type Profile,
} from '../../api/profiles.js';
import { runPodCheck } from '../check-pod.js';
import type * as k8s from '@kubernetes/client-node';
import { ConditionReason, RefusalToken } from '../../api/vocabulary.js';
import {
  CLUSTER_FLAGS,
  CLUSTER_FLAGS_HELP,
  flagValue,
  HELP_FLAG,
  OUTPUT_FLAG,
  parseCommandLine,
  WAITGATE_NAMESPACE_FLAG,
} from '../args.js';
import { explainAnswer, renderExplanation } from '../check-explain.js';
import type { CliIo } from '../io.js';
import { describeError, loadCluster, readConfigMap } from '../kube.js';
import type { CheckPodDefaults } from '../../api/check-pod-placement.js';
import { installedSettings, type InstalledSettings } from '../installed-settings.js';
import { operatorNamespace, readSettings } from '../settings.js';
import { ExitCode, printHelp, refuseUsage, wantsHelp, type Command } from './command.js';

const POD_FLAG = { name: 'pod' } as const;

export const check: Command = {
  words: ['check'],
  args: 'PROFILE TARGET [--pod] [--waitgate-namespace NS] [-o json]',
  summary: 'run one check as the operator would, and explain its exit code',
  help: [
    `Reads PROFILE from the ${PROFILES_CONFIGMAP} ConfigMap, runs its script once with TARGET`,
    '(an id-only target such as acme/web#7 or group/repo!12) exactly as the operator runs a',
    "check (no shell, stdin /dev/null, the installed operator's check timeout), and says what",
    'the answer means: 0 go, 3 not yet, 2 never (wait-refused),',
    'anything else could not tell (counted). The output of the script is counted in bytes,',
    'never shown. The sha256 of the script is printed before it runs.',
    '',
    "The settings are the installed operator's: the environment its Deployment in the",
    "waitgate namespace gives it (this shell's environment when there is none, as for an",
    `operator run by hand). The script sees ${BASE_CHECK_ENV.join(', ')} of this machine, and the names in`,
    "the operator's WAITGATE_CHECK_ENV_ALLOW with the operator's values, as its checks do; all of",
    'it only with WAITGATE_CHECK_ENV_INHERIT=true.',
    '',
    'A pod-mode profile (the default mode) runs only with --pod: its check Pod, built exactly',
    "as the operator builds it (the profile's image, or the operator's WAITGATE_CHECK_IMAGE; its",
    'Secrets and their variables; the same limits, start timeout and check timeout), is created',
    "in the operator's namespace under your own identity with a generated name, its exit code",
    'is read from its status, and it is deleted (also on Ctrl-C or a timeout). You need to',
    'create, get, list, watch and delete Pods there. Its output is never read.',
    '',
    '  --pod                run a pod-mode profile in a check Pod in the cluster',
    '  --waitgate-namespace NS  where the ConfigMap and the operator live (default:',
    '                           $WAITGATE_NAMESPACE, else waitgate-system)',
    '  -o json              the answer as one JSON object',
    ...CLUSTER_FLAGS_HELP,
    '',
    'Exit status 0 when the check ran, whatever it answered; 1 when it could not be run (the',
    'cluster could not be asked, the ConfigMap is missing or does not load, a pod-mode profile',
    'without --pod or an exec-mode one with it, a script or check Pod that cannot be started,',
    'Ctrl-C); 2 for a usage error, a bad TARGET or a PROFILE the ConfigMap does not declare.',
  ].join('\n'),
  run: runCheck,
  get flags() {
    return LINE.flags;
  },
};

const LINE = {
  flags: [POD_FLAG, WAITGATE_NAMESPACE_FLAG, OUTPUT_FLAG, ...CLUSTER_FLAGS, HELP_FLAG],
  positionals: ['PROFILE', 'TARGET'],
  missing: 'give a PROFILE and a TARGET',
} as const;
const TARGET = new RegExp(TARGET_PATTERN);

export async function runCheck(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) return printHelp(check, io);
  const usage = (problem: string) => refuseUsage(check, io, problem);
  const parsed = parseCommandLine(args, LINE);
  if (!parsed.ok) return usage(parsed.problem);
  const [profileName, target] = parsed.args;
  const { json } = parsed;
  const podMode = parsed.flags.get('pod') === true;
  if (!isProfileName(profileName)) {
    return usage(`${JSON.stringify(profileName)} is not a profile name (1 to 63 lowercase letters, digits or '-')`);
  }
  if (target.length > 256 || !TARGET.test(target)) {
    return usage(`${JSON.stringify(target)} is not an id-only target: <owner>/<repo>#<n> or <owner>/<repo>!<n>, as in acme/web#7`);
  }
  const namespace = operatorNamespace(flagValue(parsed, 'waitgate-namespace'), io.env);
  let where = `${namespace}/${PROFILES_CONFIGMAP}`;

  let data: Record<string, string> | undefined;
  let installed: InstalledSettings;
  let kc: k8s.KubeConfig;
  let settings: ReturnType<typeof readSettings>;
  try {
    ({ kc } = loadCluster(io, flagValue(parsed, 'kubeconfig'), flagValue(parsed, 'context')));
    installed = await installedSettings(kc, namespace, io.env);
    // The profiles ConfigMap the installed operator reads (a release of the chart names it after itself).
    settings = readSettings(installed.env);
    if (settings.ok) where = `${namespace}/${settings.config.configMaps.profiles}`;
    data = await readConfigMap(kc, namespace, settings.ok ? settings.config.configMaps.profiles : PROFILES_CONFIGMAP);
  } catch (err) {
    io.stderr(`waitgate check: cannot read ${where}: ${describeError(err)}`);
    return ExitCode.Failure;
  }
  if (!settings.ok) {
    for (const p of settings.problems) io.stderr(`waitgate check: ${p.variable} (from ${installed.source}): ${p.message}`);
    return ExitCode.Refused;
  }
  const { checkTimeoutMs, killGraceMs, maxFaults } = settings.config.wait;
  // This machine's PATH, HOME, LANG and TZ; the allow-listed names with the operator's values.
  const local = Object.fromEntries(BASE_CHECK_ENV.map((n) => [n, io.env[n]]));
  const checkEnv = checkEnvironment({ ...installed.env, ...local }, settings.config.checkEnv);
  if (data === undefined) {
    // No ConfigMap is not "no profiles": the operator pauses such holds, it refuses none.
    io.stderr(
      `waitgate check: there is no ConfigMap ${where}, so there is no script of profile ${profileName} to run. The operator runs no check either: a HeldJob naming a profile pauses (Waiting reason ${ConditionReason.ProfilesUnreadable}) until the ConfigMap is created, and is not refused.`,
    );
    return ExitCode.Failure;
  }
  const profiles = parseProfiles(data);
  if (!profiles.ok) {
    io.stderr(`waitgate check: ${where} does not load, so the operator runs no check at all (every profile hold waits until it is fixed):`);
    for (const p of profiles.problems) io.stderr(`  ${p}`);
    return ExitCode.Failure;
  }
  const profile = profiles.profiles.get(profileName);
  if (profile === undefined) {
    const declared = [...profiles.profiles.keys()].sort();
    io.stderr(
      `waitgate check: profile ${profileName} is not declared in ${where} (declared: ${declared.length ? declared.join(', ') : 'none'}). A HeldJob naming it would be refused ${RefusalToken.ProfileUnknown}.`,
    );
    return ExitCode.Refused;
  }
  if (profile.mode === ProfileMode.Pod && !podMode) {
    io.stderr(
      `waitgate check: profile ${profileName} runs in a Pod of image ${profile.image ?? "the operator's default (WAITGATE_CHECK_IMAGE)"} (pod mode); run it with --pod (waitgate check --pod ${profileName} ${target}), which starts that check Pod in ${namespace} as the operator would. Running its script here would not be the check the operator runs.`,
    );
    return ExitCode.Failure;
  }
  if (profile.mode === ProfileMode.Exec && podMode) {
    io.stderr(`waitgate check: profile ${profileName} is an exec-mode profile (a process of the operator, no Pod); run it without --pod.`);
    return ExitCode.Failure;
  }
  if (podMode) {
    const imaged = withCheckImage({ ok: true, profiles: new Map([[profileName, profile]]) }, settings.config.checkImage);
    if (!imaged.ok) {
      for (const p of imaged.problems) io.stderr(`waitgate check: ${p}`);
      return ExitCode.Failure;
    }
    return runInPod(io, {
      kc,
      namespace,
      where,
      source: installed.source,
      profile: imaged.profiles.get(profileName) as Profile,
      target,
      json,
      checkTimeoutMs,
      startTimeoutMs: settings.config.podStartTimeoutMs,
      maxFaults,
      configMap: settings.config.configMaps.profiles,
      // Placed as the installed operator places its check Pods (WAITGATE_CHECK_POD_DEFAULTS).
      defaults: settings.config.checkPodDefaults,
    });
  }

  const dir = mkdtempSync(join(tmpdir(), 'waitgate-check-'));
  // A check runs in a session of its own, so Ctrl-C does not reach it: stop it here instead.
  const interrupt = new AbortController();
  const onSignal = () => interrupt.abort();
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  let answer: CheckAnswer;
  let scriptSha256: string;
  try {
    const scripts = new ProfileScripts(dir);
    scripts.sync(data, new Map([[profileName, profile]]));
    const path = scripts.pathOf(profile.script);
    // What is about to run, as written: compare it with what you expect before trusting the answer.
    const sha256 = createHash('sha256').update(readFileSync(path)).digest('hex');
    const header = `check ${profileName} on ${target} (${where}, script ${profile.script} sha256 ${sha256}, timeout ${checkTimeoutMs} ms)`;
    if (json) io.stderr(header);
    else io.stdout(`settings: from ${installed.source}\n${header}`);
    answer = await runExecCheck({ path, target, timeoutMs: checkTimeoutMs, killGraceMs, env: checkEnv, signal: interrupt.signal });
    if (interrupt.signal.aborted) {
      io.stderr('waitgate check: interrupted; the check was stopped');
      return ExitCode.Failure;
    }
    scriptSha256 = sha256;
  } catch (err) {
    io.stderr(`waitgate check: cannot run the check: ${describeError(err)}`);
    return ExitCode.Failure;
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    rmSync(dir, { recursive: true, force: true });
  }

  const e = explainAnswer(answer, { timeoutMs: checkTimeoutMs, maxFaults });
  if (json) {
    io.stdout(
      JSON.stringify(
        {
          profile: profileName,
          target,
          namespace,
          scriptSha256,
          verdict: e.verdict,
          exitCode: answer.exitCode,
          signal: answer.signal,
          timedOut: answer.timedOut,
          spawnError: answer.spawnError ?? null,
          durationMs: answer.durationMs,
          stdoutBytes: answer.stdoutBytes,
          stderrBytes: answer.stderrBytes,
          grepTrap: e.grepTrap,
          explanation: [e.summary, ...e.details],
        },
        null,
        2,
      ),
    );
  } else {
    for (const line of renderExplanation(answer, e)) io.stdout(line);
  }
  return answer.spawnError !== undefined ? ExitCode.Failure : ExitCode.Ok;
}

/** The pod-mode path: the operator's check Pod, in the cluster, explained as exec mode is. */
async function runInPod(
  io: CliIo,
  o: {
    kc: k8s.KubeConfig;
    namespace: string;
    where: string;
    source: string;
    profile: Profile;
    target: string;
    json: boolean;
    checkTimeoutMs: number;
    startTimeoutMs: number;
    maxFaults: number;
    configMap: string;
    defaults: CheckPodDefaults;
  },
): Promise<number> {
  const reads = secretsRead(o.profile)
    .map((r) => `${r.secret}${r.envNames.length ? ` (env ${r.envNames.join(', ')})` : ''}`)
    .join(', ');
  const header = `check ${o.profile.name} on ${o.target} in a Pod of ${o.namespace} (image ${o.profile.image ?? '?'}, script ${o.profile.script} from ${o.where}${reads ? `, Secrets ${reads}` : ''}, start timeout ${o.startTimeoutMs} ms, check timeout ${o.checkTimeoutMs} ms)`;
  if (o.json) io.stderr(header);
  else io.stdout(`settings: from ${o.source}\n${header}`);
  const interrupt = new AbortController();
  const onSignal = () => interrupt.abort();
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  let answer: CheckAnswer;
  try {
    answer = await runPodCheck({
      kubeConfig: o.kc,
      namespace: o.namespace,
      profile: o.profile,
      target: o.target,
      checkTimeoutMs: o.checkTimeoutMs,
      startTimeoutMs: o.startTimeoutMs,
      configMap: o.configMap,
      defaults: o.defaults,
      signal: interrupt.signal,
    });
  } catch (err) {
    io.stderr(`waitgate check: cannot run the check Pod: ${describeError(err)}`);
    return ExitCode.Failure;
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
  if (interrupt.signal.aborted) {
    io.stderr('waitgate check: interrupted; the check Pod was deleted');
    return ExitCode.Failure;
  }
  const e = explainAnswer(answer, { timeoutMs: o.checkTimeoutMs, maxFaults: o.maxFaults, pod: true });
  if (o.json) {
    io.stdout(
      JSON.stringify(
        {
          profile: o.profile.name,
          target: o.target,
          namespace: o.namespace,
          mode: ProfileMode.Pod,
          image: o.profile.image ?? null,
          verdict: e.verdict,
          exitCode: answer.exitCode,
          timedOut: answer.timedOut,
          spawnError: answer.spawnError ?? null,
          refusedSecret: answer.refusedSecret ?? null,
          durationMs: answer.durationMs,
          explanation: [e.summary, ...e.details],
        },
        null,
        2,
      ),
    );
  } else {
    for (const line of renderExplanation(answer, e, true)) io.stdout(line);
  }
  return answer.spawnError !== undefined ? ExitCode.Failure : ExitCode.Ok;
}
