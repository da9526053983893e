// The stale-receiver trap (wait-skew): the HeldJob compared with its entry in the triggers file.
import type { ConditionInput } from '../../api/conditions.js';
import { assertNever, ConditionReason, ConditionType } from '../../api/vocabulary.js';
import type { HeldJobObject, HeldJobSpec } from '../../api/heldjob-schema.js';
import { bindingProblem, declaredTriggerOf, madeByReceiver, type BindingProblem } from '../../api/trigger-binding.js';
import type { TriggersView } from './observed.js';

export interface TriggerCheck {
  /**
   * The file says more than the HeldJob carries, refused before any spend: it says wait and the
   * HeldJob carries none, or it pins the revision (run.pinRevision) and the HeldJob records none
   * (it would run on the moving head). Undefined: no skew.
   */
  readonly skew: string | undefined;
  readonly condition: ConditionInput & { readonly reason: ConditionReason };
}

const condition = (status: 'True' | 'Unknown', reason: ConditionReason, message: string): TriggerCheck['condition'] => ({
  type: ConditionType.TriggerChecked,
  status,
  reason,
  message,
});

/** What the HeldJob carries that its trigger entry is compared with. */
export interface Carried {
  readonly waits: boolean;
  readonly revision: boolean;
}

export function triggerCheck(triggers: TriggersView, trigger: string, carried: Carried): TriggerCheck {
  switch (triggers.state) {
    case 'ok': {
      const fileWaits = triggers.waits.get(trigger);
      if (fileWaits === undefined) {
        return {
          skew: undefined,
          condition: condition(
            'Unknown',
            ConditionReason.TriggerNotInFile,
            `trigger "${trigger}" is not in waitgate-triggers; its waits cannot be compared`,
          ),
        };
      }
      if (fileWaits && !carried.waits) {
        const said = 'the trigger says wait but this HeldJob carries no wait';
        return { skew: said, condition: condition('True', ConditionReason.Skew, said) };
      }
      if (triggers.declared.get(trigger)?.run.pinRevision === true && !carried.revision) {
        const said =
          'the trigger pins the revision (run.pinRevision) but this HeldJob records none, so its Job would run on the moving head';
        return { skew: said, condition: condition('True', ConditionReason.Skew, said) };
      }
      return { skew: undefined, condition: condition('True', ConditionReason.Matches, 'matches its trigger entry') };
    }
    case 'missing':
      return {
        skew: undefined,
        condition: condition(
          'Unknown',
          ConditionReason.TriggersMissing,
          'the waitgate-triggers ConfigMap does not exist; waits cannot be compared with their triggers',
        ),
      };
    case 'unreadable':
      return {
        skew: undefined,
        condition: condition(
          'Unknown',
          ConditionReason.TriggersUnreadable,
          `waitgate-triggers cannot be read (${triggers.problem}); waits cannot be compared with their triggers`,
        ),
      };
    default:
      return assertNever(triggers);
  }
}

/**
 * How long a receiver-made HeldJob whose trigger does not yet match is given, from its creation,
 * before it fails: the receiver may have read a triggers ConfigMap this operator's watch has not
 * brought yet (a trigger just added or edited).
 */
export const BINDING_GRACE_MS = 30_000;

export type TriggerBinding =
  /** Written by hand, or bound to its trigger: nothing stops it here. */
  | { readonly kind: 'bound' }
  /** Not bound, for good: it ends Failed with the reason, and no Job. */
  | { readonly kind: 'unbound'; readonly problem: BindingProblem }
  /** Cannot be told yet (the triggers cannot be read, or its grace runs): it stays held. */
  | {
      readonly kind: 'unconfirmed';
      readonly reason: ConditionReason;
      readonly message: string;
      /** When to look again; undefined: the triggers ConfigMap's next change wakes it. */
      readonly wakeAt: number | undefined;
    };

/**
 * Whether a HeldJob the receiver made is bound to its trigger (api/trigger-binding.ts). While
 * the triggers ConfigMap is missing or unreadable nothing can be compared, so it is held, never
 * failed and never launched. `createdMs`: the HeldJob's creation, for the grace.
 */
export function triggerBinding(
  triggers: TriggersView,
  heldJob: Pick<HeldJobObject, 'metadata'>,
  spec: HeldJobSpec,
  createdMs: number,
  now: number,
): TriggerBinding {
  if (!madeByReceiver(heldJob)) return { kind: 'bound' };
  switch (triggers.state) {
    case 'ok': {
      const problem = bindingProblem(heldJob, spec, declaredTriggerOf(triggers.declared, spec.trigger));
      if (problem === undefined) return { kind: 'bound' };
      const graceEnds = createdMs + BINDING_GRACE_MS;
      if (now < graceEnds) {
        return {
          kind: 'unconfirmed',
          reason: problem.reason,
          message: `${problem.message}; looked at again until ${new Date(graceEnds).toISOString()}`,
          wakeAt: graceEnds,
        };
      }
      return { kind: 'unbound', problem };
    }
    case 'missing':
      return {
        kind: 'unconfirmed',
        reason: ConditionReason.TriggersMissing,
        message: 'the waitgate-triggers ConfigMap does not exist; a HeldJob the receiver made is held until its trigger can be compared',
        wakeAt: undefined,
      };
    case 'unreadable':
      return {
        kind: 'unconfirmed',
        reason: ConditionReason.TriggersUnreadable,
        message: `waitgate-triggers cannot be read (${triggers.problem}); a HeldJob the receiver made is held until its trigger can be compared`,
        wakeAt: undefined,
      };
    default:
      return assertNever(triggers);
  }
}
