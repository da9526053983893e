// waitgate check PROFILE TARGET: runs one check the way the operator runs it, and explains
// the answer. The profile comes from the live waitgate-profiles ConfigMap, its script is
// written to a private directory (as an operator without a mounted ConfigMap does), and it
// runs through the operator's own runner: argv [TARGET], stdin /dev/null, no shell, the
// allow-listed part of this command's environment (api/check-env.ts, the operator's rule),
// the configured timeout, output counted and never read. The script came from the cluster and
// runs on the admin's machine: its sha256 is printed before it runs.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runExecCheck, type CheckAnswer } from '../../operator/checks/exec-check.js';
import { BASE_CHECK_ENV, checkEnvironment } from '../../api/check-env.js';
import { ProfileScripts } from '../../operator/checks/profile-scripts.js';
import { TARGET_PATTERN } from '../../api/heldjob-schema.js';
import { isProfileName, parseProfiles, PROFILES_CONFIGMAP, ProfileMode } from '../../api/profiles.js';
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
import { installedSettings, type InstalledSettings } from '../installed-settings.js';
import { operatorNamespace, readSettings } from '../settings.js';
import { ExitCode, printHelp, refuseUsage, wantsHelp, type Command } from './command.js';

export const check: Command = {
  words: ['check'],
  args: 'PROFILE TARGET [--waitgate-namespace NS] [-o json]',
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
    '  --waitgate-namespace NS  where the ConfigMap and the operator live (default:',
    '                           $WAITGATE_NAMESPACE, else waitgate-system)',
    '  -o json              the answer as one JSON object',
    ...CLUSTER_FLAGS_HELP,
    '',
    'Exit status 0 when the check ran, whatever it answered; 1 when it could not be run (the',
    'cluster could not be asked, the ConfigMap is missing or does not load, a pod-mode profile,',
    'a script that cannot be started, Ctrl-C); 2 for a usage error, a bad TARGET or a PROFILE',
    'the ConfigMap does not declare.',
  ].join('\n'),
  run: runCheck,
  get flags() {
    return LINE.flags;
  },
};

const LINE = {
  flags: [WAITGATE_NAMESPACE_FLAG, OUTPUT_FLAG, ...CLUSTER_FLAGS, HELP_FLAG],
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
  if (!isProfileName(profileName)) {
    return usage(`${JSON.stringify(profileName)} is not a profile name (1 to 63 lowercase letters, digits or '-')`);
  }
  if (target.length > 256 || !TARGET.test(target)) {
    return usage(`${JSON.stringify(target)} is not an id-only target: <owner>/<repo>#<n> or <owner>/<repo>!<n>, as in acme/web#7`);
  }
  const namespace = operatorNamespace(flagValue(parsed, 'waitgate-namespace'), io.env);
  const where = `${namespace}/${PROFILES_CONFIGMAP}`;

  let data: Record<string, string> | undefined;
  let installed: InstalledSettings;
  try {
    const { kc } = loadCluster(io, flagValue(parsed, 'kubeconfig'), flagValue(parsed, 'context'));
    [data, installed] = await Promise.all([readConfigMap(kc, namespace, PROFILES_CONFIGMAP), installedSettings(kc, namespace, io.env)]);
  } catch (err) {
    io.stderr(`waitgate check: cannot read ${where}: ${describeError(err)}`);
    return ExitCode.Failure;
  }
  const settings = readSettings(installed.env);
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
  if (profile.mode === ProfileMode.Pod) {
    io.stderr(
      `waitgate check: profile ${profileName} runs in a Pod of image ${profile.image ?? "the operator's default (WAITGATE_CHECK_IMAGE)"} (pod mode); this command runs exec-mode checks only, and running it here would not be the check the operator runs.`,
    );
    return ExitCode.Failure;
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
