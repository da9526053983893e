import { describe, expect, test } from '@jest/globals';
import { configFindings, type ConfigCheckInput } from './config-checks.js';
import type { Finding } from './findings.js';

const NOW = Date.parse('2026-09-01T09:00:00Z');
const DAY = 86_400_000;
const job = { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } };
const trigger = (name: string, waitFor?: object[]) => ({
  name,
  on: { type: 'label', any: ['waitgate:go'] },
  run: { kind: 'github', flow: 'deploy', job, ...(waitFor ? { waitFor } : {}) },
});
const profilesData = (profiles: Record<string, object>, scripts: Record<string, string>) => ({
  'profiles.json': JSON.stringify(profiles),
  ...scripts,
});
const SH = '#!/bin/sh\nexit 3\n';

function run(over: Partial<ConfigCheckInput>): Finding[] {
  return configFindings({
    namespace: 'waitgate-system',
    profiles: { state: 'ok', data: profilesData({ jira: { mode: 'exec', script: 'jira.sh' } }, { 'jira.sh': SH }) },
    triggers: { state: 'ok', data: { 'triggers.json': JSON.stringify([trigger('deploy', [{ profile: 'jira' }])]) } },
    nowMs: NOW,
    afterMaxMs: 30 * DAY,
    ...over,
  });
}
const levels = (fs: Finding[]) => fs.map((f) => `${f.level} ${f.area}`);
const fails = (fs: Finding[]) => fs.filter((f) => f.level === 'FAIL').map((f) => f.message);

describe('doctor: the ConfigMaps', () => {
  test('healthy: both load, every named profile is declared', () => {
    const fs = run({});
    expect(levels(fs)).toEqual(['ok profiles', 'ok triggers']);
    expect(fs[0]?.message).toBe('waitgate-system/waitgate-profiles declares 1 profile (jira)');
    expect(fs[1]?.message).toBe('waitgate-system/waitgate-triggers loads: 1 trigger, 1 of them with waitFor');
  });

  test('profiles that are not JSON are a hard failure', () => {
    const fs = run({ profiles: { state: 'ok', data: { 'profiles.json': '{"jira": ' } } });
    expect(fails(fs)).toEqual([
      expect.stringMatching(/profiles\.json is not valid JSON/),
      'waitgate-system/waitgate-profiles does not load: the operator runs no check until it does',
    ]);
  });

  test.each([
    ['missing', {}, /script "jira\.sh" is not a key/],
    ['empty', { 'jira.sh': '  \n' }, /script "jira\.sh" is empty/],
    ['without #!', { 'jira.sh': 'exit 0\n' }, /does not start with #!.*ENOEXEC/],
    ['with CRLF line ends', { 'jira.sh': '#!/bin/sh\r\nexit 0\r\n' }, /CRLF/],
  ])('a declared script that is %s is a hard failure', (_d, scripts, message) => {
    const fs = run({ profiles: { state: 'ok', data: profilesData({ jira: { mode: 'exec', script: 'jira.sh' } }, scripts) } });
    expect(fails(fs)[0]).toMatch(message);
  });

  test('a trigger naming an undeclared profile is a hard failure (wait-profile-unknown)', () => {
    const fs = run({ triggers: { state: 'ok', data: { 'triggers.json': JSON.stringify([trigger('deploy', [{ profile: 'jria' }])]) } } });
    expect(fails(fs)).toEqual([
      'trigger deploy names profile jria, which waitgate-system/waitgate-profiles does not declare: its HeldJobs would be refused wait-profile-unknown',
    ]);
    // ...and the profile nobody names is a warning.
    expect(fs.filter((f) => f.level === 'WARN').map((f) => f.message)).toEqual(['profile jira is declared but no trigger names it']);
  });

  test.each<[string, Partial<ConfigCheckInput>, string[], string]>([
    [
      'triggers name profiles: their holds pause, none is refused',
      {
        triggers: {
          state: 'ok',
          data: { 'triggers.json': JSON.stringify([trigger('deploy', [{ profile: 'jira' }]), trigger('ship', [{ profile: 'ci' }])]) },
        },
      },
      ['FAIL profiles', 'ok triggers'],
      'there is no waitgate-system/waitgate-profiles, but triggers name profiles ci, jira: their holds pause (Waiting reason ProfilesUnreadable) and no check runs until it is created; none is refused',
    ],
    [
      'no trigger names a profile',
      { triggers: { state: 'ok', data: { 'triggers.json': JSON.stringify([trigger('deploy', [{ after: '2026-09-02T09:00:00Z' }])]) } } },
      ['ok profiles', 'ok triggers'],
      'there is no waitgate-system/waitgate-profiles, and no trigger names a profile',
    ],
    [
      'no triggers either',
      { triggers: { state: 'missing' } },
      ['ok profiles', 'WARN triggers'],
      'there is no waitgate-system/waitgate-profiles, so no profile is declared; a hold that names one pauses until it is created (none is refused)',
    ],
  ])('no profiles ConfigMap at all, %s', (_n, over, lv, message) => {
    const fs = run({ profiles: { state: 'missing' }, ...over });
    expect(levels(fs)).toEqual(lv);
    expect(fs[0]?.message).toBe(message);
    expect(fs.map((f) => f.message).join('\n')).not.toMatch(/refused wait-profile-unknown/);
  });

  test('triggers that do not load are a hard failure, one line per refusal', () => {
    const fs = run({
      triggers: { state: 'ok', data: { 'triggers.json': JSON.stringify([trigger('deploy', [{ after: '2026-09-01T09:00:00' }])]) } },
    });
    expect(fails(fs)).toEqual([
      expect.stringMatching(/^waitgate-system\/waitgate-triggers: deploy \$\[0\]\.run\.waitFor\[0\]\.after: waitfor-after-zoneless: /),
      expect.stringMatching(/does not load/),
    ]);
    expect(fails(run({ triggers: { state: 'ok', data: { 'triggers.json': '[{' } } }))[0]).toMatch(/triggers-not-json/);
    expect(fails(run({ triggers: { state: 'ok', data: {} } }))).toEqual([expect.stringMatching(/has no triggers\.json key/)]);
  });

  test('an after further out than the maximum is a hard failure; one inside it is not', () => {
    const far = new Date(NOW + 31 * DAY).toISOString();
    const near = new Date(NOW + 29 * DAY).toISOString();
    const fs = run({
      triggers: {
        state: 'ok',
        data: {
          'triggers.json': JSON.stringify([trigger('far', [{ after: far }, { profile: 'jira' }]), trigger('near', [{ after: near }])]),
        },
      },
    });
    expect(fails(fs)).toEqual([
      expect.stringMatching(
        /^trigger far waits until after .*, 31d from now and more than WAITGATE_WAIT_AFTER_MAX_MS \(30d\) ahead: .*wait-after-beyond-max$/,
      ),
    ]);
  });

  test('a missing triggers ConfigMap is a warning; an unreadable one a failure', () => {
    expect(levels(run({ triggers: { state: 'missing' } }))).toEqual(['ok profiles', 'WARN triggers']);
    expect(levels(run({ triggers: { state: 'error', problem: 'HTTP 403' } }))).toEqual(['ok profiles', 'FAIL triggers']);
    expect(levels(run({ profiles: { state: 'error', problem: 'HTTP 403' } }))).toEqual(['FAIL profiles', 'ok triggers']);
  });
});
