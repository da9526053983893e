import { describe, expect, test } from '@jest/globals';
import { ConditionReason, EventReason, FAILURE_REASONS, REFUSAL_REASONS, REFUSAL_TOKENS } from './vocabulary.js';

// The API conventions: a reason is a CamelCase word; kebab-case refusal tokens stay in status.reason.
const CAMEL_CASE = /^[A-Z][A-Za-z0-9]*$/;

describe('reasons are CamelCase', () => {
  test.each([
    ...Object.values(ConditionReason).map((r) => ['condition reason', r] as const),
    ...Object.values(EventReason).map((r) => ['event reason', r] as const),
    ...FAILURE_REASONS.map((r) => ['failure reason', r] as const),
    ...Object.values(REFUSAL_REASONS).map((r) => ['refusal reason', r] as const),
  ])('%s %s', (_kind, reason) => {
    expect(reason).toMatch(CAMEL_CASE);
  });

  test('every refusal token has its own reason, and only the tokens do', () => {
    expect(Object.keys(REFUSAL_REASONS).sort()).toEqual([...REFUSAL_TOKENS].sort());
    expect(new Set(Object.values(REFUSAL_REASONS)).size).toBe(REFUSAL_TOKENS.length);
    // A reason a tool shows is recognisably its token: wait-after-beyond-max is WaitAfterBeyondMax.
    for (const [token, reason] of Object.entries(REFUSAL_REASONS)) {
      expect(reason.toLowerCase()).toBe(token.replaceAll('-', ''));
    }
  });
});
