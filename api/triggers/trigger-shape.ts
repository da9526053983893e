// The shape of one entry outside its waits: name, on (a label; a cron schedule is refused) and run's own fields.
// Written as zod schemas; their issues become `trigger-shape` and `trigger-job-invalid`
// refusals with paths into the file.
import { z } from 'zod';
import { heldJobSpecSchema } from '../heldjob-schema.js';
import { REPLICA_FIELDS } from './job-spec.js';
import { childPath, joinPath, kindOf, show } from './json-path.js';
import { TriggerRefusalCode as Code, type TriggerRefusalCode } from './refusal-codes.js';
import type { PathRefusal } from './types.js';

/** A HeldJob records the trigger's name in spec.trigger, which holds at most this many characters. */
export const MAX_TRIGGER_NAME = 253;

function text(what: string, purpose: string) {
  return z
    .string({
      error: (iss) =>
        iss.input === undefined ? `${what} is missing; ${purpose}` : `${what} must be a string, but it is ${kindOf(iss.input)}`,
    })
    .regex(/\S/, { error: `${what} must not be blank` });
}

function flag(what: string) {
  return z.boolean({ error: (iss) => `${what} must be true or false, but it is ${show(iss.input)}` });
}

export const triggerNameSchema = text('name', 'every trigger needs one, and each HeldJob it creates records it').max(MAX_TRIGGER_NAME, {
  error: `name is longer than ${MAX_TRIGGER_NAME} characters, more than a HeldJob can record as its trigger`,
});

export const labelOnSchema = z
  .object({
    type: z.literal('label'),
    any: z
      .array(text('each label in on.any', 'labels are names'), {
        error: (iss) =>
          iss.input === undefined
            ? 'a label trigger needs on.any, the list of labels that fire it'
            : `on.any must be a list of label names, but it is ${kindOf(iss.input)}`,
      })
      .min(1, { error: 'on.any is empty, so no label could ever fire this trigger' }),
    once: flag('on.once').optional(),
  })
  .loose();

/** Why a cron trigger is refused: it would load and never fire. */
export const CRON_REFUSAL =
  'waitgate acts on forge events (a label added to an issue, pull request or merge request) and has no scheduler, so a cron trigger would load and never fire; run schedules with a Kubernetes CronJob';

/** run's own fields. Keys it does not know are kept: newer files may carry fields this version ignores. */
export const runFieldsSchema = z
  .object({
    kind: text('run.kind', 'it names the kind of run to launch, such as github'),
    flow: text('run.flow', 'it names the flow the run carries out'),
    replicas: z
      .int({ error: (iss) => `run.replicas must be a whole number of at least 1, but it is ${show(iss.input)}` })
      .positive({ error: (iss) => `run.replicas must be at least 1, but it is ${show(iss.input)}` })
      .optional(),
    pinRevision: flag('run.pinRevision').optional(),
  })
  .loose();

/** run.replicas beside run.job's own counts: one of them would be dropped, so neither is guessed at. */
export function replicaConflicts(run: Record<string, unknown>, runPath: string): PathRefusal[] {
  if (run.replicas === undefined || !isRecordValue(run.job)) return [];
  const job = run.job;
  return REPLICA_FIELDS.filter((f) => Object.hasOwn(job, f)).map((f) => ({
    path: childPath(childPath(runPath, 'job'), f),
    code: Code.ReplicasConflict,
    message: `run.replicas sets run.job.${f} itself (completions and parallelism to the replicas, completionMode Indexed); set one or the other, not both`,
  }));
}

const isRecordValue = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The HeldJob's own JobSpec rule, so that a trigger cannot hold a job its HeldJob would refuse. */
const jobSchema = heldJobSpecSchema.shape.job;

/** Runs a schema and turns its issues into refusals under `path`. */
export function issuesOf(schema: z.ZodType, value: unknown, path: string, code: TriggerRefusalCode = Code.Shape): PathRefusal[] {
  const r = schema.safeParse(value);
  if (r.success) return [];
  return r.error.issues.map((i) => ({ path: joinPath(path, i.path), code, message: i.message }));
}

/** Checks on.* (but not the waits under it). */
export function onProblems(on: Record<string, unknown>, onPath: string): PathRefusal[] {
  switch (on.type) {
    case 'label':
      return issuesOf(labelOnSchema, on, onPath);
    case 'cron':
      return [{ path: childPath(onPath, 'type'), code: Code.Cron, message: CRON_REFUSAL }];
    default:
      return [
        {
          path: childPath(onPath, 'type'),
          code: Code.Shape,
          message: on.type === undefined ? 'on.type is missing; it must be "label"' : `on.type must be "label", but it is ${show(on.type)}`,
        },
      ];
  }
}

export function jobProblems(job: unknown, jobPath: string): PathRefusal[] {
  const r = jobSchema.safeParse(job);
  if (r.success) return [];
  return r.error.issues.map((i) => {
    if (i.path.length > 0) {
      const template = (job as Record<string, unknown>).template;
      return {
        path: joinPath(jobPath, i.path),
        code: Code.JobInvalid,
        message:
          template === undefined
            ? 'run.job has no template; a JobSpec needs a Pod template to start anything'
            : `run.job.template must be an object (a Pod template), but it is ${kindOf(template)}`,
      };
    }
    return {
      path: jobPath,
      code: Code.JobInvalid,
      message:
        job === undefined
          ? 'run.job is missing; it is the batch/v1 JobSpec of the Job to launch'
          : `run.job must be an object (a batch/v1 JobSpec), but it is ${kindOf(job)}`,
    };
  });
}
