// For the pure decision tests: decide()'s actions with the dry run at the first hold passed
// (the job valid) and a launch carried through as if its scope slot was taken and its Job
// created. The outcomes that are not the happy ones have their own tests (launch.test.ts).
import type { Action } from '../../operator/decide/actions.js';
import { afterCreate, afterScope } from '../../operator/decide/launch.js';
import { JobOutcome, type Observed } from '../../operator/decide/observed.js';
import { decide } from '../../operator/decide/decide.js';

/** The actions, with a passed dry run unwrapped. */
export function unwrapDryRun(actions: readonly Action[]): readonly Action[] {
  return actions.flatMap((a) => (a.type === 'dryRunJob' ? unwrapDryRun(a.then) : [a]));
}

/**
 * The actions, and when they launch, what follows a slot taken and a Job created: the create,
 * the record left for a pass of its own, and that pass (decide() again, its Job there, active
 * and fenced, as the executor shows a Job it created before the informer brings it).
 */
export function withLaunch(o: Observed, actions: readonly Action[], now: number): readonly Action[] {
  const flat = unwrapDryRun(actions);
  const last = flat[flat.length - 1];
  if (last?.type !== 'acquireScope' || !o.view.ok) return flat;
  const scoped = afterScope(o.view, last.ready, last.job, 'acquired', now);
  const created = afterCreate({ view: o.view, heldJob: o.heldJob }, o.heldJob.status ?? {}, last.ready, { kind: 'created' }, now);
  const jobName = last.job.metadata?.name ?? o.view.jobName;
  const recordPass = decide({ ...o, job: { name: jobName, outcome: JobOutcome.Active, fenced: true } }, now);
  return [...flat, ...scoped.filter((a) => a.type !== 'createJob'), ...created, ...recordPass];
}
