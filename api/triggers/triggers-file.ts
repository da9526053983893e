// Loading the triggers file: a JSON array of { name, on, run } entries. Every problem in
// every entry is reported, in file order, so one pass over the refusals fixes the file.
import { findDuplicateKeys } from './duplicate-keys.js';
import { childPath, isRecord, kindOf, show } from './json-path.js';
import { misplacedRepositories, repositoriesProblems, unknownOnKeys } from './on-rules.js';
import { TriggerRefusalCode as Code, WHERE_FILE } from './refusal-codes.js';
import { jobProblems, onProblems, replicaConflicts, runFieldsSchema, triggerNameSchema, issuesOf } from './trigger-shape.js';
import type { LabelOn, PathRefusal, Trigger, TriggerRefusal, TriggerRun, TriggersCheck } from './types.js';
import { misplacedWaits, waitCombinations } from './wait-for-placement.js';
import { checkWaitFor } from './wait-for-rules.js';

/** The ConfigMap, in WAITGATE_NAMESPACE, that holds the triggers file, and its key. */
export const TRIGGERS_CONFIGMAP = 'waitgate-triggers';
export const TRIGGERS_KEY = 'triggers.json';

// The whole API of the triggers file is reachable from this module.
export type { LabelOn, Trigger, TriggerRefusal, TriggerRun, TriggersCheck } from './types.js';
export { TriggerRefusalCode, TRIGGER_REFUSAL_CODES, WHERE_FILE } from './refusal-codes.js';
export { checkWaitFor, type WaitForCheck } from './wait-for-rules.js';
export { jobSpecOf } from './job-spec.js';
export { parseRepositoryPattern, patternMatches, repositoryAllowed, type RepositoryPattern } from './repositories.js';

/** The `where` of entry `index`: its name when it has a usable one, else `#<index>`. */
export function whereOf(entry: unknown, index: number): string {
  const name = isRecord(entry) ? own(entry, 'name') : undefined;
  return triggerNameSchema.safeParse(name).success ? (name as string) : `#${index}`;
}

/** Checks an already-parsed triggers file. Never throws. */
export function checkTriggers(value: unknown): TriggersCheck {
  try {
    return checkArray(value);
  } catch (err) {
    return refuse([{ where: WHERE_FILE, path: '$', code: Code.NotArray, message: `the triggers could not be read (${errorText(err)})` }]);
  }
}

/** Parses and checks the text of a triggers file (the `triggers.json` key). Never throws. */
export function parseTriggersFile(text: string): TriggersCheck {
  if (typeof text !== 'string') {
    return refuse([
      { where: WHERE_FILE, path: '$', code: Code.NotJson, message: `expected the text of a JSON file, but got ${kindOf(text)}` },
    ]);
  }
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    return refuse([
      {
        where: WHERE_FILE,
        path: '$',
        code: Code.NotJson,
        message: `the triggers file is not valid JSON (${errorText(err)}); it must be a JSON array of trigger entries`,
      },
    ]);
  }
  const checked = checkTriggers(value);
  if (!Array.isArray(value)) return checked;
  let duplicates: PathRefusal[];
  try {
    duplicates = findDuplicateKeys(body).map((d) => ({
      path: d.path,
      code: Code.Shape,
      message: `the key ${show(d.key)} appears twice in one object; JSON readers keep only the last one, so the earlier one would silently do nothing`,
    }));
  } catch {
    duplicates = [];
  }
  if (duplicates.length === 0) return checked;
  const attributed: TriggerRefusal[] = duplicates.map((d) => {
    const index = entryIndexOf(d.path);
    return { where: index === undefined ? WHERE_FILE : whereOf(value[index], index), ...d };
  });
  const all = [...(checked.ok ? [] : checked.refusals), ...attributed];
  // Stable: file-level refusals first, then entry by entry.
  return refuse(
    all
      .map((r, n) => ({ r, n, at: entryIndexOf(r.path) ?? -1 }))
      .sort((a, b) => a.at - b.at || a.n - b.n)
      .map((x) => x.r),
  );
}

function checkArray(value: unknown): TriggersCheck {
  if (!Array.isArray(value)) {
    return refuse([
      {
        where: WHERE_FILE,
        path: '$',
        code: Code.NotArray,
        message: `a triggers file is a JSON array of trigger entries, but this is ${kindOf(value)}`,
      },
    ]);
  }
  const refusals: TriggerRefusal[] = [];
  const triggers: Trigger[] = [];
  const firstWithName = new Map<string, number>();
  for (let index = 0; index < value.length; index++) {
    const entry: unknown = value[index];
    let where = `#${index}`;
    let checked: EntryCheck;
    try {
      where = whereOf(entry, index);
      checked = checkEntry(entry, index, firstWithName);
    } catch (err) {
      checked = {
        refusals: [{ path: `$[${index}]`, code: Code.Shape, message: `this entry could not be read (${errorText(err)})` }],
      };
    }
    for (const r of checked.refusals) refusals.push({ where, ...r });
    if (checked.trigger) triggers.push(checked.trigger);
  }
  return refusals.length === 0 ? { ok: true, triggers } : refuse(refusals);
}

interface EntryCheck {
  refusals: PathRefusal[];
  trigger?: Trigger;
}

function checkEntry(entry: unknown, index: number, firstWithName: Map<string, number>): EntryCheck {
  const base = `$[${index}]`;
  if (!isRecord(entry)) {
    return {
      refusals: [
        {
          path: base,
          code: Code.Shape,
          message: `each trigger entry must be an object with name, on and run, but this is ${kindOf(entry)}`,
        },
      ],
    };
  }
  const refusals: PathRefusal[] = [];

  // name
  const name = own(entry, 'name');
  const namePath = childPath(base, 'name');
  const nameProblems = issuesOf(triggerNameSchema, name, namePath);
  refusals.push(...nameProblems);
  if (nameProblems.length === 0) {
    const earlier = firstWithName.get(name as string);
    if (earlier !== undefined) {
      refusals.push({
        path: namePath,
        code: Code.NameRepeated,
        message: `entry $[${earlier}] already has this name; every HeldJob records the trigger that made it by name, so names must be unique`,
      });
    } else {
      firstWithName.set(name as string, index);
    }
  }
  refusals.push(...misplacedWaits(entry, 'entry', base));
  refusals.push(...misplacedRepositories(entry, 'entry', base));

  // on
  const on = own(entry, 'on');
  const onPath = childPath(base, 'on');
  if (!isRecord(on)) {
    refusals.push({
      path: onPath,
      code: Code.Shape,
      message:
        on === undefined ? 'the entry has no on; it says what fires the trigger, a label' : `on must be an object, but it is ${kindOf(on)}`,
    });
  } else {
    refusals.push(...onProblems(on, onPath));
    refusals.push(...misplacedWaits(on, 'on', onPath));
    if (own(on, 'type') === 'label') {
      refusals.push(...unknownOnKeys(on, onPath));
      refusals.push(...repositoriesProblems(own(on, 'repositories'), childPath(onPath, 'repositories')));
    }
  }

  // run
  const run = own(entry, 'run');
  const runPath = childPath(base, 'run');
  let conditions: ReturnType<typeof checkWaitFor>['conditions'];
  if (!isRecord(run)) {
    refusals.push({
      path: runPath,
      code: Code.Shape,
      message:
        run === undefined
          ? 'the entry has no run; it says what to launch when the trigger fires'
          : `run must be an object, but it is ${kindOf(run)}`,
    });
  } else {
    refusals.push(...issuesOf(runFieldsSchema, run, runPath));
    refusals.push(...misplacedWaits(run, 'run', runPath));
    refusals.push(...misplacedRepositories(run, 'run', runPath));
    const waitFor = own(run, 'waitFor');
    if (waitFor !== undefined) {
      const checked = checkWaitFor(waitFor, childPath(runPath, 'waitFor'));
      refusals.push(...checked.refusals);
      conditions = checked.conditions;
    }
    refusals.push(
      ...waitCombinations(
        {
          hasWaitFor: waitFor !== undefined,
          onType: isRecord(on) ? own(on, 'type') : undefined,
          once: isRecord(on) ? own(on, 'once') : undefined,
          replicas: own(run, 'replicas'),
        },
        base,
      ),
    );
    refusals.push(...jobProblems(own(run, 'job'), childPath(runPath, 'job')));
    refusals.push(...replicaConflicts(run, runPath));
  }

  if (refusals.length > 0 || !isRecord(on) || !isRecord(run)) return { refusals };
  return { refusals, trigger: { name: name as string, on: loadedOn(on), run: loadedRun(run, conditions) } };
}

/** A checked on: onProblems refuses every type but label. */
function loadedOn(on: Record<string, unknown>): LabelOn {
  const once = own(on, 'once') as boolean | undefined;
  const repositories = own(on, 'repositories') as string[] | undefined;
  return {
    type: 'label',
    any: [...(own(on, 'any') as string[])],
    ...(once === undefined ? {} : { once }),
    ...(repositories === undefined ? {} : { repositories: [...repositories] }),
  };
}

function loadedRun(run: Record<string, unknown>, conditions: ReturnType<typeof checkWaitFor>['conditions']): TriggerRun {
  const loaded: Record<string, unknown> = { ...run };
  if (conditions !== undefined) loaded.waitFor = conditions;
  else delete loaded.waitFor;
  return loaded as unknown as TriggerRun;
}

function own(obj: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

function refuse(refusals: readonly TriggerRefusal[]): TriggersCheck {
  return { ok: false, refusals };
}

const ENTRY = /^\$\[(\d+)\]/;

function entryIndexOf(path: string): number | undefined {
  const m = ENTRY.exec(path);
  return m ? Number(m[1]) : undefined;
}

function errorText(err: unknown): string {
  try {
    return err instanceof Error ? err.message : String(err);
  } catch {
    return 'unknown error';
  }
}
