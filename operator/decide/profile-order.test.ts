import { describe, expect, test } from '@jest/globals';
import { CheckVerdict } from '../../api/check-verdict.js';
import { nextProfile } from './profile-order.js';

const { Go, NotYet, CouldNotTell } = CheckVerdict;

describe('nextProfile: which profile a round asks next', () => {
  test.each<[string, string[], string[], Record<string, CheckVerdict> | undefined, string | undefined]>([
    ['a new hold: the first written', ['jira', 'ci'], [], undefined, 'jira'],
    ['nothing said yet by the second: the first written still', ['jira', 'ci'], [], { jira: NotYet }, 'jira'],
    ['the first said go, the second held the round up: the second first', ['jira', 'ci'], [], { jira: Go, ci: NotYet }, 'ci'],
    ['it says go in this round: the one that said go before is asked again', ['jira', 'ci'], ['ci'], { jira: Go, ci: Go }, 'jira'],
    ['a fault holds a round up like a not yet', ['jira', 'ci'], [], { jira: Go, ci: CouldNotTell }, 'ci'],
    ['never asked comes before a go to confirm', ['a', 'b', 'c'], ['b'], { a: Go, b: Go }, 'c'],
    ['of several not go, the first written', ['a', 'b', 'c'], [], { a: Go, b: NotYet, c: NotYet }, 'b'],
    ['every one said go last: the order written', ['a', 'b', 'c'], [], { a: Go, b: Go, c: Go }, 'a'],
    ['all go in this round: none', ['jira', 'ci'], ['ci', 'jira'], { jira: Go, ci: Go }, undefined],
    ['a verdict of a profile the hold does not name changes nothing', ['jira'], [], { gone: NotYet, jira: Go }, 'jira'],
  ])('%s', (_n, profiles, cleared, lastVerdicts, expected) => {
    expect(nextProfile(profiles, new Set(cleared), lastVerdicts)).toBe(expected);
  });
});
