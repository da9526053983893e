// The stale-receiver trap (wait-skew): the HeldJob compared with its entry in the triggers file.
import type { ConditionInput } from '../../api/conditions.js';
import { assertNever, ConditionReason, ConditionType } from '../../api/vocabulary.js';
import type { TriggersView } from './observed.js';

export interface TriggerCheck {
  /** The file says wait and the HeldJob carries none: refuse before any spend. */
  readonly skew: boolean;
  readonly condition: ConditionInput & { readonly reason: ConditionReason };
}

const condition = (status: 'True' | 'Unknown', reason: ConditionReason, message: string): TriggerCheck['condition'] => ({
  type: ConditionType.TriggerChecked,
  status,
  reason,
  message,
});

export function triggerCheck(triggers: TriggersView, trigger: string, waits: boolean): TriggerCheck {
  switch (triggers.state) {
    case 'ok': {
      const fileWaits = triggers.waits.get(trigger);
      if (fileWaits === undefined) {
        return {
          skew: false,
          condition: condition(
            'Unknown',
            ConditionReason.TriggerNotInFile,
            `trigger "${trigger}" is not in waitgate-triggers; its waits cannot be compared`,
          ),
        };
      }
      if (fileWaits && !waits) {
        return { skew: true, condition: condition('True', ConditionReason.Skew, 'the trigger says wait but this HeldJob carries no wait') };
      }
      return { skew: false, condition: condition('True', ConditionReason.Matches, 'matches its trigger entry') };
    }
    case 'missing':
      return {
        skew: false,
        condition: condition(
          'Unknown',
          ConditionReason.TriggersMissing,
          'the waitgate-triggers ConfigMap does not exist; waits cannot be compared with their triggers',
        ),
      };
    case 'unreadable':
      return {
        skew: false,
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
