import { describe, expect, test } from '@jest/globals';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { ConditionType, FailureReason, Labels, MADE_BY_RECEIVER, Phase, RefusalToken } from '../../api/vocabulary.js';
import type { Action } from './actions.js';
import type { ObservedHeldJob } from './observed.js';
import { forgeTargetOf, nextReports, REPORT_MAX_AGE_MS, type ReportSettings } from './report.js';

const T0 = Date.parse('2026-09-01T08:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const ALL: ReportSettings = { transitions: ['refused', 'launched', 'finished'], forges: ['github', 'gitlab'], namespaces: [] };
const REFUSED_ONLY: ReportSettings = { transitions: ['refused'], forges: ['github', 'gitlab'], namespaces: [] };

/** A HeldJob the receiver made: its forge label says where its target is (GitHub unless told; null: no label). */
function hj(status: HeldJobStatus, over: { forge?: string | null; deleted?: boolean; byHand?: boolean } = {}): ObservedHeldJob {
  const forge = over.forge === undefined ? 'github' : over.forge;
  return {
    metadata: {
      name: 'web-7-deploy',
      namespace: 'team-a',
      uid: 'uid-1',
      ...(forge ? { labels: { [Labels.forge]: forge, ...(over.byHand ? {} : { [Labels.madeBy]: MADE_BY_RECEIVER }) } } : {}),
      ...(over.deleted ? { deletionTimestamp: iso(T0) } : {}),
    },
    status,
  };
}

const refused: HeldJobStatus = { phase: Phase.Refused, reason: RefusalToken.Expired, message: 'script said: secret', finishedAt: iso(T0) };
const launched: HeldJobStatus = {
  phase: Phase.Running,
  jobName: 'web-7-deploy',
  launchedAt: iso(T0),
  conditions: [{ type: ConditionType.Launched, status: 'True', reason: 'JobCreated', lastTransitionTime: iso(T0) }],
};
const creating: HeldJobStatus = {
  ...launched,
  conditions: [{ type: ConditionType.Launched, status: 'Unknown', reason: 'Creating', lastTransitionTime: iso(T0) }],
};
const succeeded: HeldJobStatus = { ...launched, phase: Phase.Succeeded, finishedAt: iso(T0 + 1000) };
const rejected: HeldJobStatus = { phase: Phase.Failed, reason: FailureReason.JobRejected, finishedAt: iso(T0) };

const summary = (actions: Action[]) =>
  actions.map((a) => (a.type === 'report' ? `${a.report.transition}@${a.report.target.forge}:${a.report.target.repository}` : a.type));

describe('nextReports', () => {
  test.each<[string, ObservedHeldJob, string, ReportSettings | undefined, number, string[]]>([
    ['a refusal is reported', hj(refused), 'acme/web#7', REFUSED_ONLY, T0, ['refused@github:acme/web']],
    ['nothing without settings (no credentials)', hj(refused), 'acme/web#7', undefined, T0, []],
    [
      'nothing to a forge without credentials',
      hj(refused),
      'acme/web#7',
      { transitions: ['refused'], forges: ['gitlab'], namespaces: [] },
      T0,
      [],
    ],
    [
      'a merge request goes to GitLab',
      hj(refused, { forge: 'gitlab' }),
      'group/sub/web!12',
      REFUSED_ONLY,
      T0,
      ['refused@gitlab:group/sub/web'],
    ],
    [
      'an Azure DevOps pull request',
      hj(refused, { forge: 'azure' }),
      'proj/web!12',
      { transitions: ['refused'], forges: ['azure'], namespaces: [] },
      T0,
      ['refused@azure:proj/web'],
    ],
    ['an unlabelled # names no forge: nothing', hj(refused, { forge: null }), 'acme/web#7', REFUSED_ONLY, T0, []],
    ['an unlabelled ! names no forge: nothing', hj(refused, { forge: null }), 'group/web!12', REFUSED_ONLY, T0, []],
    ['a GitLab issue by its label', hj(refused, { forge: 'gitlab' }), 'group/web#3', REFUSED_ONLY, T0, ['refused@gitlab:group/web']],
    [
      'a refusal already recorded is not reported again',
      hj({ ...refused, reports: [{ transition: 'refused', outcome: 'Posted', at: iso(T0) }] }),
      'acme/web#7',
      REFUSED_ONLY,
      T0,
      [],
    ],
    [
      'one that gave up is not tried again',
      hj({ ...refused, reports: [{ transition: 'refused', outcome: 'GaveUp', at: iso(T0) }] }),
      'acme/web#7',
      REFUSED_ONLY,
      T0,
      [],
    ],
    ['an old transition is not reported', hj(refused), 'acme/web#7', REFUSED_ONLY, T0 + REPORT_MAX_AGE_MS + 1, []],
    ['a HeldJob being deleted is not reported', hj(refused, { deleted: true }), 'acme/web#7', REFUSED_ONLY, T0, []],
    ['launched is reported once the Job is created, when enabled', hj(launched), 'acme/web#7', ALL, T0, ['launched@github:acme/web']],
    ['launched is not reported by default', hj(launched), 'acme/web#7', REFUSED_ONLY, T0, []],
    ['not while the create is under way', hj(creating), 'acme/web#7', ALL, T0, []],
    [
      'a finished job not yet reported launched: both',
      hj(succeeded),
      'acme/web#7',
      ALL,
      T0,
      ['launched@github:acme/web', 'finished@github:acme/web'],
    ],
    [
      'finished after launched was recorded',
      hj({ ...succeeded, reports: [{ transition: 'launched', outcome: 'Posted', at: iso(T0) }] }),
      'acme/web#7',
      ALL,
      T0,
      ['finished@github:acme/web'],
    ],
    ['a rejected Job is finished, not launched', hj(rejected), 'acme/web#7', ALL, T0, ['finished@github:acme/web']],
    [
      'a refusal is not reported as finished',
      hj(refused),
      'acme/web#7',
      { transitions: ['finished'], forges: ['github'], namespaces: [] },
      T0,
      [],
    ],
    ['a pending HeldJob: nothing', hj({ phase: Phase.Held }), 'acme/web#7', ALL, T0, []],
  ])('%s', (_, heldJob, target, settings, now, expected) => {
    expect(summary(nextReports(heldJob, target, settings, now))).toEqual(expected);
  });

  test('the comment holds the token, its sentence, the HeldJob and the marker, never the status message', () => {
    const [a] = nextReports(hj(refused), 'acme/web#7', REFUSED_ONLY, T0);
    expect(a?.type).toBe('report');
    if (a?.type !== 'report') return;
    expect(a.report.body).toContain('`wait-expired`');
    expect(a.report.body).toContain('web-7-deploy');
    expect(a.report.body).not.toContain('secret');
    expect(a.report.marker).toBe('<!-- waitgate:uid-1:refused -->');
    expect(a.report.body).toContain(a.report.marker);
    expect(a.report.since).toBe(iso(T0 - 10 * 60_000));
    expect(a.report.target).toEqual({ forge: 'github', repository: 'acme/web', number: 7, mergeRequest: false });
  });
});

describe('forgeTargetOf', () => {
  test.each<[string, string | undefined, object | undefined]>([
    // The reference: `#` is an issue on any forge and `!` GitLab's or Azure's, so without the
    // receiver's forge label neither names a forge, and no comment is sent to a guessed one.
    ['acme/web#7', undefined, undefined],
    ['acme/web#7', 'github', { forge: 'github', repository: 'acme/web', number: 7, mergeRequest: false }],
    ['acme/web#7', 'gitlab', { forge: 'gitlab', repository: 'acme/web', number: 7, mergeRequest: false }],
    ['g/s/p!12', undefined, undefined],
    ['g/s/p!12', 'gitlab', { forge: 'gitlab', repository: 'g/s/p', number: 12, mergeRequest: true }],
    ['proj/web!12', 'azure', { forge: 'azure', repository: 'proj/web', number: 12, mergeRequest: true }],
    ['proj/proj#5', 'azure', { forge: 'azure', repository: 'proj/proj', number: 5, mergeRequest: false }],
    ['acme/web!12', 'github', undefined],
    ['nonsense', undefined, undefined],
  ])('%s (label %s)', (target, forge, expected) => {
    expect(forgeTargetOf(hj({}, { forge: forge ?? null }), target)).toEqual(expected);
  });
});

describe('nextReports: only for HeldJobs the receiver made, or namespaces allowed to report', () => {
  const skippedOf = (actions: Action[]) => actions.map((a) => (a.type === 'report' ? (a.report.skipped ?? 'sent') : a.type));
  const unbound: HeldJobStatus = { phase: Phase.Failed, reason: FailureReason.JobNotTrigger, finishedAt: iso(T0) };
  const FINISHED: ReportSettings = { transitions: ['refused', 'finished'], forges: ['github'], namespaces: [] };
  test.each<[string, ObservedHeldJob, ReportSettings, string]>([
    ['made by the receiver: sent', hj(refused), FINISHED, 'sent'],
    ['written by hand (a forge label, no made-by): skipped, nothing sent', hj(refused, { byHand: true }), FINISHED, 'skipped'],
    [
      'written by hand in a namespace allowed to report: sent',
      hj(refused, { byHand: true }),
      { ...FINISHED, namespaces: ['team-a'] },
      'sent',
    ],
    [
      'written by hand in another namespace than the allowed: skipped',
      hj(refused, { byHand: true }),
      { ...FINISHED, namespaces: ['team-b'] },
      'skipped',
    ],
    ['labelled as the receiver’s but not bound to its trigger: skipped', hj(unbound), FINISHED, 'skipped'],
  ])('%s', (_n, heldJob, settings, outcome) => {
    const got = skippedOf(nextReports(heldJob, 'victim/private#3', settings, T0));
    expect(got).toHaveLength(1);
    expect(got[0] === 'sent' ? 'sent' : 'skipped').toBe(outcome);
    // The reason names the rule, never the repository.
    if (outcome === 'skipped') expect(got[0]).not.toContain('victim');
  });
});
