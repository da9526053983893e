import { describe, expect, test } from '@jest/globals';
import { commentBody, parseReportTransitions, reportMarker, type ReportSubject } from './forge-reports.js';
import { REFUSAL_TEXTS } from './refusal-texts.js';
import { FailureReason, REFUSAL_TOKENS } from './vocabulary.js';

const heldJob = { name: 'web-7-deploy', namespace: 'team-a', uid: '0b1c-uid' };

describe('commentBody', () => {
  test.each(REFUSAL_TOKENS)('a %s refusal names the token, says what it means, names the HeldJob and carries the marker', (token) => {
    const body = commentBody({ heldJob, subject: { transition: 'refused', token } });
    expect(body).toContain(`\`${token}\``);
    expect(body).toContain(REFUSAL_TEXTS[token]);
    expect(body).toContain('`web-7-deploy`');
    expect(body).toContain('`team-a`');
    expect(body.endsWith('<!-- waitgate:0b1c-uid:refused -->')).toBe(true);
  });

  test.each<[ReportSubject, string]>([
    [{ transition: 'launched', jobName: 'web-7-deploy' }, 'Job `web-7-deploy` was created'],
    [
      { transition: 'launched', jobName: 'web-7-deploy', approvedBy: 'alice' },
      'cleared, approved by `alice`, and Job `web-7-deploy` was created',
    ],
    [{ transition: 'finished', succeeded: true }, 'this job succeeded'],
    [{ transition: 'finished', succeeded: false }, 'The job ran and failed'],
    [{ transition: 'finished', succeeded: false, failureReason: FailureReason.JobRejected }, 'refused to create the job'],
    [{ transition: 'finished', succeeded: false, failureReason: FailureReason.JobMissing }, 'disappeared from the cluster'],
  ])('%j says %s', (subject, words) => {
    const body = commentBody({ heldJob, subject });
    expect(body).toContain(words);
    expect(body).toContain(reportMarker(heldJob.uid, subject.transition));
  });

  test('every refusal token has its own sentence', () => {
    expect(new Set(Object.values(REFUSAL_TEXTS)).size).toBe(REFUSAL_TOKENS.length);
    for (const t of REFUSAL_TOKENS) expect(REFUSAL_TEXTS[t]).toMatch(/^[A-Z].*[.]$/);
  });
});

describe('parseReportTransitions', () => {
  test.each<[string, unknown]>([
    ['refused', { ok: true, transitions: ['refused'] }],
    ['refused, launched,finished', { ok: true, transitions: ['refused', 'launched', 'finished'] }],
    ['finished', { ok: true, transitions: ['finished'] }],
    [' , ', { ok: false, problem: 'must list one or more of refused, launched, finished' }],
    ['refused,started', { ok: false, problem: '"started" is not a transition (refused, launched, finished)' }],
    ['refused,refused', { ok: false, problem: '"refused" is listed twice' }],
  ])('%j', (text, expected) => {
    expect(parseReportTransitions(text)).toEqual(expected);
  });
});
