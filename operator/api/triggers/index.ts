// The triggers file: its types, its refusal vocabulary and its checks.
export { TriggerRefusalCode, TRIGGER_REFUSAL_CODES, WHERE_FILE, isTriggerRefusalCode } from './refusal-codes.js';
export type { CronOn, LabelOn, Trigger, TriggerRefusal, TriggerRun, TriggersCheck } from './types.js';
export { checkTriggers, parseTriggersFile, whereOf } from './triggers-file.js';
export { checkWaitFor, type WaitForCheck } from './wait-for-rules.js';
export { readsAsWaitFor } from './wait-for-placement.js';
export { MAX_TRIGGER_NAME } from './trigger-shape.js';
