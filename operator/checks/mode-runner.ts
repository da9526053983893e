// Which way a profile's check runs: a local process (exec) or a short-lived Pod (pod). The
// rest of the gate cannot tell them apart: same slots, same contract, same counters.
import { assertNever } from '../../api/vocabulary.js';
import { ProfileMode, type Profile } from '../../api/profiles.js';
import { runExecCheck, type CheckAnswer } from './exec-check.js';
import type { CheckRunner } from './slotted-check-runner.js';

export interface ExecSettings {
  /** Where the profile's script is on this machine. */
  readonly scriptPath: (profile: Profile) => string;
  readonly timeoutMs: number;
  readonly killGraceMs: number;
  /** The environment the scripts run with: the allow-listed part of the operator's (api/check-env.ts). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

export class ModeCheckRunner implements CheckRunner {
  constructor(
    private readonly exec: ExecSettings,
    private readonly pods: CheckRunner,
  ) {}

  run(profile: Profile, target: string, signal: AbortSignal, key: string): Promise<CheckAnswer> {
    switch (profile.mode) {
      case ProfileMode.Pod:
        return this.pods.run(profile, target, signal, key);
      case ProfileMode.Exec: {
        const { scriptPath, timeoutMs, killGraceMs, env } = this.exec;
        return runExecCheck({ path: scriptPath(profile), target, timeoutMs, killGraceMs, env, signal });
      }
      default:
        return assertNever(profile.mode);
    }
  }
}
