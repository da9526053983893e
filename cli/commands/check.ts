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
import { RefusalToken } from '../../api/vocabulary.js';
import { flagValue, HELP_FLAG, KUBECONFIG_FLAG, OUTPUT_FLAG, parseCommandLine } from '../args.js';
import { explainAnswer, renderExplanation } from '../check-explain.js';
import type { CliIo } from '../io.js';
import { describeError, loadCluster, readConfigMap } from '../kube.js';
import { operatorNamespace, readSettings } from '../settings.js';
import { ExitCode, printHelp, refuseUsage, wantsHelp, type Command } from './command.js';

export const check: Command = {
  words: ['check'],
  args: 'PROFILE TARGET [--namespace NS] [-o json]',
  summary: 'run one check as the operator would, and explain its exit code',
  help: [
    `Reads PROFILE from the ${PROFILES_CONFIGMAP} ConfigMap, runs its script once with TARGET`,
    '(an id-only target such as acme/web#7 or group/repo!12) exactly as the operator runs a',
    'check (no shell, stdin /dev/null, the timeout of WAITGATE_WAIT_CHECK_TIMEOUT_MS, 10000',
    'by default), and says what the answer means: 0 go, 3 not yet, 2 never (wait-refused),',
    'anything else could not tell (counted). The output of the script is counted in bytes,',
    'never shown. The sha256 of the script is printed before it runs.',
    '',
    `The script sees only ${BASE_CHECK_ENV.join(', ')} and the names in WAITGATE_CHECK_ENV_ALLOW`,
    "(comma-separated) of this command's environment, as the operator's checks do; all of it",
    'only with WAITGATE_CHECK_ENV_INHERIT=true.',
    '',
    '  -n, --namespace NS   where the ConfigMap lives (default: $WAITGATE_NAMESPACE, else waitgate-system)',
    '  -o json              the answer as one JSON object',
    '  --kubeconfig PATH    default: $KUBECONFIG, then ~/.kube/config, then in-cluster',
    '',
    'Exit status 0 when the check ran, whatever it answered; 1 when it could not be run (the',
    'cluster could not be asked, the ConfigMap does not load, a pod-mode profile, a script',
    'that cannot be started, Ctrl-C); 2 for a usage error, a bad TARGET or an undeclared PROFILE.',
  ].join('\n'),
  run: runCheck,
};

const LINE = {
  flags: [{ name: 'namespace', short: 'n', value: true }, OUTPUT_FLAG, KUBECONFIG_FLAG, HELP_FLAG],
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
  const settings = readSettings(io.env);
  if (!settings.ok) {
    for (const p of settings.problems) io.stderr(`waitgate check: ${p.variable}: ${p.message}`);
    return ExitCode.Refused;
  }
  const { checkTimeoutMs, killGraceMs, maxFaults } = settings.config.wait;
  const checkEnv = checkEnvironment(io.env, settings.config.checkEnv);
  const namespace = operatorNamespace(flagValue(parsed, 'namespace'), io.env);
  const where = `${namespace}/${PROFILES_CONFIGMAP}`;

  let data: Record<string, string> | undefined;
  try {
    data = await readConfigMap(loadCluster(io, flagValue(parsed, 'kubeconfig')).kc, namespace, PROFILES_CONFIGMAP);
  } catch (err) {
    io.stderr(`waitgate check: cannot read ${where}: ${describeError(err)}`);
    return ExitCode.Failure;
  }
  if (data === undefined) {
    io.stderr(
      `waitgate check: profile ${profileName} is not declared: there is no ConfigMap ${where}, so no profile is. A HeldJob naming it would be refused ${RefusalToken.ProfileUnknown}.`,
    );
    return ExitCode.Refused;
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
      `waitgate check: profile ${profileName} runs in a Pod of image ${profile.image ?? '?'} (pod mode); this command runs exec-mode checks only, and running it here would not be the check the operator runs.`,
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
    else io.stdout(header);
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
