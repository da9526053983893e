import { describe, expect, test } from '@jest/globals';
import type { CheckAnswer } from '../operator/checks/exec-check.js';
import { explainAnswer, looksLikeGrepTrap, renderExplanation } from './check-explain.js';

const settings = { timeoutMs: 10_000, maxFaults: 5 };
const answer = (a: Partial<CheckAnswer>): CheckAnswer => ({
  exitCode: 0,
  signal: null,
  timedOut: false,
  stdoutBytes: 0,
  stderrBytes: 0,
  durationMs: 40,
  ...a,
});
const text = (a: CheckAnswer) => renderExplanation(a, explainAnswer(a, settings)).join('\n');

describe('explainAnswer: one explanation per class of answer', () => {
  test('0 is go', () => {
    const e = explainAnswer(answer({ exitCode: 0 }), settings);
    expect(e).toMatchObject({ verdict: 'go', summary: 'exit 0 after 40ms: go.', grepTrap: false });
    expect(e.details.join(' ')).toMatch(/cleared.*Job starts/);
  });

  test('3 is not yet, and not counted', () => {
    const e = explainAnswer(answer({ exitCode: 3 }), settings);
    expect(e).toMatchObject({ verdict: 'not-yet', summary: 'exit 3 after 40ms: not yet.' });
    expect(e.details.join(' ')).toMatch(/Not counted/);
  });

  test('2 is never: the HeldJob would be refused wait-refused', () => {
    const e = explainAnswer(answer({ exitCode: 2 }), settings);
    expect(e).toMatchObject({ verdict: 'never', summary: 'exit 2 after 40ms: never.' });
    expect(e.details.join(' ')).toContain('wait-refused');
  });

  test('1 with output, or slow, is could not tell: counted, five in a row refuse wait-unanswerable; no trap', () => {
    for (const a of [answer({ exitCode: 1, stderrBytes: 12 }), answer({ exitCode: 1, durationMs: 2500 })]) {
      const e = explainAnswer(a, settings);
      expect(e).toMatchObject({ verdict: 'could-not-tell', grepTrap: false });
      expect(e.details.join(' ')).toMatch(/counts this as a fault: 5 "could not tell" in a row .*wait-unanswerable/);
      expect(e.details.join(' ')).not.toContain('grep');
    }
  });

  test('an unknown code is could not tell, and says why', () => {
    const e = explainAnswer(answer({ exitCode: 7 }), settings);
    expect(e).toMatchObject({ verdict: 'could-not-tell', summary: 'exit 7 after 40ms: could not tell.' });
    expect(e.details[0]).toMatch(/7 is none of the answers a check may give \(0 go, 3 not yet, 2 never\)/);
  });

  test('a timeout is could not tell, whatever code came after it', () => {
    const e = explainAnswer(answer({ exitCode: 0, timedOut: true, durationMs: 10_020 }), { timeoutMs: 10_000, maxFaults: 3 });
    expect(e).toMatchObject({ verdict: 'could-not-tell', summary: 'no answer within 10s: timed out, could not tell.' });
    expect(e.details.join(' ')).toMatch(/SIGTERM, then SIGKILL.*3 "could not tell" in a row/);
  });

  test('a signal is could not tell', () => {
    expect(explainAnswer(answer({ exitCode: null, signal: 'SIGSEGV' }), settings).summary).toBe(
      'killed by SIGSEGV after 40ms: could not tell.',
    );
  });

  test.each([
    ['ENOEXEC', /#!/],
    ['EACCES', /not executable/],
    ['ENOENT', /interpreter/],
    ['EWHATEVER', /EWHATEVER/],
  ])('a check that cannot start (%s) is could not tell, with the cause', (code, why) => {
    const e = explainAnswer(answer({ exitCode: null, spawnError: code, durationMs: 1 }), settings);
    expect(e.summary).toBe(`could not start (${code}): could not tell.`);
    expect(e.details[0]).toMatch(why);
  });
});

describe('the grep -q trap', () => {
  test('exit 1, fast, not a byte of output: explained, and "not yet" must be exit 3', () => {
    const a = answer({ exitCode: 1, durationMs: 15 });
    expect(looksLikeGrepTrap(a)).toBe(true);
    const out = text(a);
    expect(out).toMatch(/grep -q trap/);
    expect(out).toMatch(/`grep -q`/);
    expect(out).toMatch(/"Not yet" must be exit 3/);
    expect(out).toContain('docs/checks.md');
  });

  test.each([
    ['with output', answer({ exitCode: 1, durationMs: 15, stdoutBytes: 1 })],
    ['slow', answer({ exitCode: 1, durationMs: 1000 })],
    ['a different code', answer({ exitCode: 3, durationMs: 15 })],
    ['a timeout', answer({ exitCode: 1, durationMs: 15, timedOut: true })],
  ])('not the trap when %s', (_d, a) => {
    expect(looksLikeGrepTrap(a)).toBe(false);
    expect(text(a)).not.toMatch(/grep/);
  });
});

test('renderExplanation counts the output in bytes and never shows it', () => {
  const lines = renderExplanation(
    answer({ exitCode: 3, stdoutBytes: 100000, stderrBytes: 70000 }),
    explainAnswer(answer({ exitCode: 3 }), settings),
  );
  expect(lines.at(-1)).toBe(
    'output: stdout 100000 bytes, stderr 70000 bytes (counted, never shown; the operator does not read them either)',
  );
});
