// What a triggers file that loads may still be doing that its author did not mean: said by
// `waitgate triggers check`, never a reason to refuse the file.
import { childPath } from './json-path.js';
import type { Trigger } from './types.js';

/** The closed vocabulary of warnings about a file that loads. */
export const TriggerWarningCode = {
  /** No on.repositories: a label in any repository whose deliveries reach the receiver fires it. */
  EveryRepository: 'trigger-every-repository',
} as const;
export type TriggerWarningCode = (typeof TriggerWarningCode)[keyof typeof TriggerWarningCode];
export const TRIGGER_WARNING_CODES: readonly TriggerWarningCode[] = Object.values(TriggerWarningCode);

export interface TriggerWarning {
  /** The trigger's name. */
  readonly where: string;
  /** A JSON path into the file, such as `$[0].on`. */
  readonly path: string;
  readonly code: TriggerWarningCode;
  readonly message: string;
}

export const EVERY_REPOSITORY_WARNING =
  'no on.repositories, so a label put in any repository whose deliveries reach the receiver fires this trigger: with an organisation hook or a GitHub App that is every repository they cover, and anyone who can label an issue there runs this Job. Name the repositories it is for, for example "repositories": ["acme/web"]';

/** Warnings about loaded triggers, in file order (`triggers` as checkTriggers loaded them, one per entry). */
export function triggerWarnings(triggers: readonly Trigger[]): TriggerWarning[] {
  return triggers.flatMap((t, index) =>
    t.on.repositories === undefined
      ? [
          {
            where: t.name,
            path: childPath(`$[${index}]`, 'on'),
            code: TriggerWarningCode.EveryRepository,
            message: EVERY_REPOSITORY_WARNING,
          },
        ]
      : [],
  );
}
