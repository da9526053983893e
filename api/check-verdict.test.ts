import { describe, expect, test } from '@jest/globals';
import { CheckVerdict, verdictOf, type CheckOutcome } from './check-verdict.js';

const exited = (exitCode: number): CheckOutcome => ({ exitCode, signal: null, timedOut: false });

describe('verdictOf', () => {
  test.each<[string, CheckOutcome, CheckVerdict]>([
    ['exit 0', exited(0), CheckVerdict.Go],
    ['exit 3', exited(3), CheckVerdict.NotYet],
    ['exit 2', exited(2), CheckVerdict.Never],
    ['exit 1', exited(1), CheckVerdict.CouldNotTell],
    ['exit 4', exited(4), CheckVerdict.CouldNotTell],
    ['exit 6 (curl could not resolve)', exited(6), CheckVerdict.CouldNotTell],
    ['exit 126', exited(126), CheckVerdict.CouldNotTell],
    ['exit 127', exited(127), CheckVerdict.CouldNotTell],
    ['exit 255', exited(255), CheckVerdict.CouldNotTell],
    ['killed by SIGSEGV', { exitCode: null, signal: 'SIGSEGV', timedOut: false }, CheckVerdict.CouldNotTell],
    ['killed by SIGTERM on timeout', { exitCode: null, signal: 'SIGTERM', timedOut: true }, CheckVerdict.CouldNotTell],
    ['killed by SIGKILL on timeout', { exitCode: null, signal: 'SIGKILL', timedOut: true }, CheckVerdict.CouldNotTell],
    ['exit 0 after it was told to stop', { exitCode: 0, signal: null, timedOut: true }, CheckVerdict.CouldNotTell],
    ['a signal alongside a code', { exitCode: 0, signal: 'SIGTERM', timedOut: false }, CheckVerdict.CouldNotTell],
    ['missing file', { exitCode: null, signal: null, timedOut: false, spawnError: 'ENOENT' }, CheckVerdict.CouldNotTell],
    ['not executable', { exitCode: null, signal: null, timedOut: false, spawnError: 'EACCES' }, CheckVerdict.CouldNotTell],
    ['no interpreter line', { exitCode: null, signal: null, timedOut: false, spawnError: 'ENOEXEC' }, CheckVerdict.CouldNotTell],
    ['neither code nor signal', { exitCode: null, signal: null, timedOut: false }, CheckVerdict.CouldNotTell],
  ])('%s', (_what, answer, verdict) => {
    expect(verdictOf(answer)).toBe(verdict);
  });
});
