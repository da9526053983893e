// Doctor's look at the two ConfigMaps: does each load the way the operator loads it, does
// every profile a trigger names exist, is every declared script one the operator can execute,
// does any `after` lie beyond the maximum. A profiles ConfigMap that is not there declares
// nothing, but refuses nothing either: the operator pauses the holds that name a profile. The last two are the refusal rules the receiver
// and the operator apply (api/refusal-rules.ts), asked of a delivery arriving now. Pure: the
// ConfigMaps come in as data.
import { parseTriggersFile, TRIGGERS_CONFIGMAP, TRIGGERS_KEY } from '../../api/triggers/triggers-file.js';
import { parseInstant } from '../../api/instant.js';
import { declaredNames, parseProfiles, PROFILES_CONFIGMAP, PROFILES_KEY, ProfileMode, type Profile } from '../../api/profiles.js';
import { afterBeyondMax, unknownProfile, type DeclaredProfiles } from '../../api/refusal-rules.js';
import { formatRefusal } from '../commands/triggers-check.js';
import { formatDuration, plural } from '../format.js';
import { fail, ok, warn, type Finding } from './findings.js';

export { TRIGGERS_CONFIGMAP, TRIGGERS_KEY };

/** A ConfigMap as doctor read it. */
export type ConfigMapRead =
  | { readonly state: 'ok'; readonly data: Record<string, string> }
  | { readonly state: 'missing' }
  | { readonly state: 'error'; readonly problem: string };

export interface ConfigCheckInput {
  readonly namespace: string;
  /** The two ConfigMaps' names, as the operator is told them; unset: waitgate-profiles and waitgate-triggers. */
  readonly names?: { readonly profiles: string; readonly triggers: string };
  readonly profiles: ConfigMapRead;
  readonly triggers: ConfigMapRead;
  readonly nowMs: number;
  readonly afterMaxMs: number;
}

export function configFindings(input: ConfigCheckInput): Finding[] {
  const profilesRef = `${input.namespace}/${input.names?.profiles ?? PROFILES_CONFIGMAP}`;
  const { findings: profileFindings, declared } = profilesFindings(input.profiles, profilesRef);
  const triggers = triggersFindings(input, declared, profilesRef);
  const findings = [...profileFindings, ...triggers.findings];
  if (input.profiles.state === 'missing') {
    // No ConfigMap is not "no profiles": the operator pauses the holds that name one (Waiting,
    // ProfilesUnreadable) and runs no check until it appears; the receiver refuses none of them.
    const named = [...(triggers.named ?? [])].sort();
    findings.unshift(
      named.length > 0
        ? fail(
            'profiles',
            `there is no ${profilesRef}, but triggers name ${named.length === 1 ? 'profile' : 'profiles'} ${named.join(', ')}: their holds pause (Waiting reason ProfilesUnreadable) and no check runs until it is created; none is refused`,
          )
        : ok(
            'profiles',
            triggers.named === undefined
              ? `there is no ${profilesRef}, so no profile is declared; a hold that names one pauses until it is created (none is refused)`
              : `there is no ${profilesRef}, and no trigger names a profile`,
          ),
    );
  }
  return findings;
}

/** Profiles, as the refusal rules see them: unreadable when they could not be read, do not load, or are not there. */
function profilesFindings(p: ConfigMapRead, profilesRef: string): { findings: Finding[]; declared: DeclaredProfiles } {
  const findings: Finding[] = [];
  if (p.state === 'error') {
    findings.push(fail('profiles', `cannot read ${profilesRef}: ${p.problem}`));
    return { findings, declared: { state: 'unreadable' } };
  }
  if (p.state === 'missing') return { findings, declared: { state: 'unreadable' } };
  const parsed = parseProfiles(p.data);
  if (!parsed.ok) {
    for (const problem of parsed.problems) findings.push(fail('profiles', `${profilesRef}: ${problem}`));
    findings.push(fail('profiles', `${profilesRef} does not load: the operator runs no check until it does`));
    return { findings, declared: declaredNames(parsed) };
  }
  const bad = [...parsed.profiles.values()].flatMap((profile) => scriptFindings(profile, p.data));
  findings.push(...bad);
  if (!(PROFILES_KEY in p.data)) {
    findings.push(ok('profiles', `${profilesRef} has no ${PROFILES_KEY} key, so no profile is declared`));
  } else if (bad.length === 0) {
    const names = [...parsed.profiles.keys()].sort();
    findings.push(
      ok('profiles', `${profilesRef} declares ${plural(names.length, 'profile')}${names.length ? ` (${names.join(', ')})` : ''}`),
    );
  }
  return { findings, declared: declaredNames(parsed) };
}

/** The triggers, and the profiles they name (undefined when they do not load). */
function triggersFindings(
  input: ConfigCheckInput,
  declared: DeclaredProfiles,
  profilesRef: string,
): { findings: Finding[]; named: ReadonlySet<string> | undefined } {
  const findings: Finding[] = [];
  const triggersRef = `${input.namespace}/${input.names?.triggers ?? TRIGGERS_CONFIGMAP}`;
  const t = input.triggers;
  if (t.state === 'error') {
    findings.push(fail('triggers', `cannot read ${triggersRef}: ${t.problem}`));
    return { findings, named: undefined };
  }
  if (t.state === 'missing') {
    findings.push(
      warn(
        'triggers',
        `there is no ${triggersRef}: the receiver matches no delivery, and the operator cannot compare holds with their triggers (wait-skew)`,
      ),
    );
    return { findings, named: undefined };
  }
  const text = t.data[TRIGGERS_KEY];
  if (text === undefined) {
    findings.push(fail('triggers', `${triggersRef} has no ${TRIGGERS_KEY} key: the triggers do not load`));
    return { findings, named: undefined };
  }
  const loaded = parseTriggersFile(text);
  if (!loaded.ok) {
    for (const r of loaded.refusals) findings.push(fail('triggers', `${triggersRef}: ${formatRefusal(r)}`));
    findings.push(
      fail('triggers', `${triggersRef} does not load: the receiver refuses every delivery, and the operator cannot check for wait-skew`),
    );
    return { findings, named: undefined };
  }

  const named = new Set<string>();
  for (const trigger of loaded.triggers) {
    for (const c of trigger.run.waitFor ?? []) {
      if ('profile' in c) {
        named.add(c.profile);
        const refusal = unknownProfile(c.profile, declared);
        if (refusal) {
          findings.push(
            fail(
              'triggers',
              `trigger ${show(trigger.name)} names profile ${c.profile}, which ${profilesRef} does not declare: its HeldJobs would be refused ${refusal.token}`,
            ),
          );
        }
        continue;
      }
      if (!('after' in c)) continue;
      // Measured from now: what a delivery arriving now would meet.
      const refusal = afterBeyondMax(c.after, input.nowMs, input.afterMaxMs);
      if (refusal) {
        const at = parseInstant(c.after);
        const ahead = at.ok ? `${formatDuration(at.epochMs - input.nowMs)} from now and ` : '';
        findings.push(
          fail(
            'triggers',
            `trigger ${show(trigger.name)} waits until after ${c.after}, ${ahead}more than WAITGATE_WAIT_AFTER_MAX_MS (${formatDuration(input.afterMaxMs)}) ahead: its HeldJobs would be refused ${refusal.token}`,
          ),
        );
      }
    }
  }
  if (findings.length === 0) {
    const waiting = loaded.triggers.filter((tr) => (tr.run.waitFor ?? []).length > 0).length;
    findings.push(ok('triggers', `${triggersRef} loads: ${plural(loaded.triggers.length, 'trigger')}, ${waiting} of them with waitFor`));
  }
  if (declared.state === 'ok') {
    for (const name of [...declared.names].sort()) {
      if (!named.has(name)) findings.push(warn('profiles', `profile ${name} is declared but no trigger names it`));
    }
  }
  return { findings, named };
}

/** An exec-mode script the operator would refuse to execute (ENOEXEC) before running it. */
function scriptFindings(profile: Profile, data: Record<string, string>): Finding[] {
  if (profile.mode !== ProfileMode.Exec) return [];
  const text = data[profile.script] ?? '';
  const firstLine = text.split('\n', 1)[0] ?? '';
  if (!text.startsWith('#!')) {
    return [
      fail(
        'profiles',
        `profile ${profile.name}: script ${profile.script} does not start with #!, so the operator cannot execute it (ENOEXEC) and every check of it reads as could not tell`,
      ),
    ];
  }
  if (firstLine.endsWith('\r')) {
    return [
      fail(
        'profiles',
        `profile ${profile.name}: script ${profile.script} has CRLF line ends, so its #! line names an interpreter that does not exist and every check of it reads as could not tell`,
      ),
    ];
  }
  return [];
}

function show(name: string): string {
  return /^[-._a-zA-Z0-9]+$/.test(name) ? name : JSON.stringify(name);
}
