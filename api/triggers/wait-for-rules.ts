// The rules for run.waitFor itself: a list of one to four conditions, each an object with
// exactly one key, `after` (an instant with its own zone), `profile` (a profile name) or
// `approval` (a Kubernetes group whose member says go).
// Everything here is strict: a wait term that is dropped or misread would let a job start
// early while looking exactly like a correct run.
import { MAX_CONDITIONS, waitConditionSchema, type WaitCondition } from '../heldjob-schema.js';
import { parseInstant } from '../instant.js';
import { childPath, isRecord, kindOf, show } from './json-path.js';
import { TriggerRefusalCode as Code } from './refusal-codes.js';
import type { PathRefusal } from './types.js';

export interface WaitForCheck {
  /** Present only when there are no refusals. */
  conditions?: WaitCondition[];
  refusals: PathRefusal[];
}

const CONDITION_KEYS = ['after', 'profile', 'approval'] as const;
/** The kinds of condition, as messages list them. */
const KINDS_TEXT = '{"after": ...}, {"profile": ...} or {"approval": ...}';

/** Checks a run.waitFor value; `basePath` is the path of the list itself. Never throws. */
export function checkWaitFor(value: unknown, basePath: string): WaitForCheck {
  const refusals: PathRefusal[] = [];
  if (!Array.isArray(value)) {
    refusals.push({
      path: basePath,
      code: Code.WaitForShape,
      message: `waitFor must be a list of conditions, but it is ${kindOf(value)}`,
    });
    return { refusals };
  }
  if (value.length === 0) {
    refusals.push({
      path: basePath,
      code: Code.WaitForCount,
      message: 'waitFor is empty; a wait needs at least one condition, so remove waitFor to start at once',
    });
  } else if (value.length > MAX_CONDITIONS) {
    refusals.push({
      path: basePath,
      code: Code.WaitForCount,
      message: `waitFor has ${value.length} conditions; at most ${MAX_CONDITIONS} are allowed`,
    });
  }

  const conditions: WaitCondition[] = [];
  let firstAfter: string | undefined;
  let firstApproval: string | undefined;
  const firstProfile = new Map<string, string>();
  // A plain loop, not forEach: holes in a sparse array are conditions too, and wrong ones.
  for (let i = 0; i < value.length; i++) {
    const condPath = childPath(basePath, i);
    const cond: unknown = value[i];
    if (!isRecord(cond)) {
      refusals.push({
        path: condPath,
        code: Code.WaitForShape,
        message: `a condition must be an object with one key, such as ${KINDS_TEXT}, but this is ${kindOf(cond)}`,
      });
      continue;
    }
    const keys = Object.keys(cond);
    if (keys.length !== 1) {
      refusals.push({
        path: condPath,
        code: Code.WaitForShape,
        message:
          keys.length === 0
            ? 'this condition is empty; it must hold exactly one key, after, profile or approval'
            : `this condition holds ${keys.length} keys (${keys
                .slice(0, 4)
                .map((k) => show(k))
                .join(', ')}${keys.length > 4 ? ', …' : ''}); each condition holds exactly one, so write each as its own entry of waitFor`,
      });
      continue;
    }
    const key = keys[0] as string;
    const keyPath = childPath(condPath, key);
    const v = cond[key];
    switch (key) {
      case 'after': {
        if (firstAfter !== undefined) {
          refusals.push({
            path: keyPath,
            code: Code.AfterRepeated,
            message: `a second after (the first is ${firstAfter}); of two instants only the later one has any effect, and the earlier one only misleads whoever reads the list, so keep just the later one`,
          });
        } else {
          firstAfter = keyPath;
        }
        const refusal = afterProblem(v, keyPath);
        if (refusal) refusals.push(refusal);
        else conditions.push({ after: v as string });
        break;
      }
      case 'profile': {
        const refusal = profileProblem(v, keyPath);
        if (refusal) {
          refusals.push(refusal);
          break;
        }
        const name = v as string;
        const earlier = firstProfile.get(name);
        if (earlier !== undefined) {
          refusals.push({
            path: keyPath,
            code: Code.ProfileRepeated,
            message: `profile ${show(name)} is already named at ${earlier}; a second ask of the same check gets the same answer and just runs the script again, so name it once`,
          });
        } else {
          firstProfile.set(name, keyPath);
          conditions.push({ profile: name });
        }
        break;
      }
      case 'approval': {
        const refusal = approvalProblem(v, keyPath);
        if (refusal) {
          refusals.push(refusal);
          break;
        }
        if (firstApproval !== undefined) {
          refusals.push({
            path: keyPath,
            code: Code.ApprovalRepeated,
            message: `a second approval (the first is ${firstApproval}); one member's go clears a hold, so two groups would read as though both had to agree while either would do; name one group`,
          });
        } else {
          firstApproval = keyPath;
          conditions.push({ approval: v as string });
        }
        break;
      }
      case 'exclusive':
        refusals.push({
          path: keyPath,
          code: Code.WaitForExclusive,
          message:
            'exclusivity cannot be asked for in a trigger: how many jobs may run side by side is decided by the operator (its concurrency and scope limits); remove this condition',
        });
        break;
      default:
        refusals.push({ path: keyPath, code: Code.WaitForUnknownKey, message: unknownKeyMessage(key) });
    }
  }
  return refusals.length === 0 ? { conditions, refusals } : { refusals };
}

function afterProblem(value: unknown, path: string): PathRefusal | undefined {
  if (typeof value !== 'string') {
    return {
      path,
      code: Code.AfterInvalid,
      message: `after must be a string holding an instant such as "2026-09-01T09:00:00Z", but it is ${kindOf(value)}`,
    };
  }
  const parsed = parseInstant(value);
  if (!parsed.ok) {
    if (parsed.problem === 'zoneless') {
      return {
        path,
        code: Code.AfterZoneless,
        message: `after ${show(value)} names no zone; a clock time without one is read in whatever zone the reading machine uses, so your laptop and the cluster could disagree without any warning; end it with Z or an offset such as +02:00`,
      };
    }
    return {
      path,
      code: Code.AfterInvalid,
      message: `after ${show(value)} is not a usable instant (${oneLine(parsed.detail)}); it is refused, never shifted to a neighbouring valid date`,
    };
  }
  // parseInstant and the CRD's pattern agree; this keeps it so if either ever changes.
  if (!waitConditionSchema.safeParse({ after: value }).success) {
    return {
      path,
      code: Code.AfterInvalid,
      message: `after ${show(value)} would not be accepted on a HeldJob`,
    };
  }
  return undefined;
}

function profileProblem(value: unknown, path: string): PathRefusal | undefined {
  if (typeof value !== 'string') {
    return {
      path,
      code: Code.ProfileInvalid,
      message: `profile must be a string naming a wait profile, but it is ${kindOf(value)}`,
    };
  }
  // The same rule the HeldJob schema (and so the CRD) applies to a profile name.
  if (!waitConditionSchema.safeParse({ profile: value }).success) {
    return {
      path,
      code: Code.ProfileInvalid,
      message: `profile ${show(value)} is not a profile name: 1 to 63 lowercase letters, digits or '-', starting and ending with a letter or digit`,
    };
  }
  return undefined;
}

function approvalProblem(value: unknown, path: string): PathRefusal | undefined {
  // The same rule the HeldJob schema (and so the CRD) applies to a group name.
  if (typeof value !== 'string' || !waitConditionSchema.safeParse({ approval: value }).success) {
    return {
      path,
      code: Code.ApprovalInvalid,
      message:
        typeof value !== 'string'
          ? `approval must be a string naming a Kubernetes group, but it is ${kindOf(value)}`
          : `approval ${show(value)} is not a group name: 1 to 253 printable characters without spaces, as a group reaches the apiserver (request.userInfo.groups)`,
    };
  }
  return undefined;
}

function unknownKeyMessage(key: string): string {
  const lower = key.trim().toLowerCase();
  const hint = (CONDITION_KEYS as readonly string[]).includes(lower) ? ` (keys are case-sensitive: did you mean "${lower}"?)` : '';
  return `${show(key)} is not a kind of condition; a condition is ${KINDS_TEXT}${hint}. An unrecognized key here is refused, not skipped, because a skipped wait would let the job start early`;
}

// eslint-disable-next-line no-control-regex -- control characters are what it finds, on purpose
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const MAX_DETAIL = 160;

/** parseInstant's detail quotes the raw text; keep it to one short line. */
function oneLine(text: string): string {
  const escaped = text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length > MAX_DETAIL ? `${escaped.slice(0, MAX_DETAIL - 1)}…` : escaped;
}
