import { describe, expect, test } from '@jest/globals';
import { TRIGGER_REFUSAL_CODES, TriggerRefusalCode as Code, WHERE_FILE, type TriggerRefusalCode } from './refusal-codes.js';
import { checkTriggers, parseTriggersFile } from './triggers-file.js';

const job = { backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } };

/** A valid label trigger; `run` and `on` are merged over the defaults. */
function label(name: unknown, run: Record<string, unknown> = {}, on: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, on: { type: 'label', any: ['waitgate:deploy'], ...on }, run: { kind: 'github', flow: 'deploy', job, ...run } };
}
function cron(name: string, run: Record<string, unknown> = {}, on: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, on: { type: 'cron', schedule: '0 9 * * 1', ...on }, run: { kind: 'github', flow: 'nightly', job, ...run } };
}
function waits(...conditions: unknown[]): Record<string, unknown> {
  return { waitFor: conditions };
}
function without(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _dropped, ...rest } = obj;
  return rest;
}

type Expected = { where: string; path: string; code: TriggerRefusalCode };
/** The refusals a row expects: one, or (where one mistake breaks two rules) each of them in order. */
type Row = [description: string, input: { value: unknown } | { text: string }, expected: Expected | Expected[]];

const file = (...entries: unknown[]) => ({ value: entries });
const at = (where: string, path: string, code: TriggerRefusalCode): Expected => ({ where, path, code });

const rows: Row[] = [
  // the file as a whole
  ['text that is not JSON', { text: '[{ "name": ' }, at(WHERE_FILE, '$', Code.NotJson)],
  ['an empty text', { text: '' }, at(WHERE_FILE, '$', Code.NotJson)],
  ['YAML rather than JSON', { text: '- name: deploy\n' }, at(WHERE_FILE, '$', Code.NotJson)],
  ['an object instead of an array', { value: { name: 'deploy' } }, at(WHERE_FILE, '$', Code.NotArray)],
  ['a JSON object as text', { text: '{"triggers": []}' }, at(WHERE_FILE, '$', Code.NotArray)],
  ['null', { value: null }, at(WHERE_FILE, '$', Code.NotArray)],

  // an entry's shape
  ['an entry that is a number', file(42), at('#0', '$[0]', Code.Shape)],
  ['an entry that is an array', file(label('a'), []), at('#1', '$[1]', Code.Shape)],
  ['no name', file(without(label('x'), 'name')), at('#0', '$[0].name', Code.Shape)],
  ['an empty name', file(label('')), at('#0', '$[0].name', Code.Shape)],
  ['a blank name', file(label('  ')), at('#0', '$[0].name', Code.Shape)],
  ['a name that is a number', file(label(7)), at('#0', '$[0].name', Code.Shape)],
  ['a name too long for a HeldJob', file(label('n'.repeat(254))), at('#0', '$[0].name', Code.Shape)],
  ['no on', file(without(label('deploy'), 'on')), at('deploy', '$[0].on', Code.Shape)],
  ['on that is a string', file({ ...label('deploy'), on: 'label' }), at('deploy', '$[0].on', Code.Shape)],
  ['an unknown on.type', file(label('deploy', {}, { type: 'push' })), at('deploy', '$[0].on.type', Code.Shape)],
  ['no on.type', file({ ...label('deploy'), on: { any: ['x'] } }), at('deploy', '$[0].on.type', Code.Shape)],
  ['a label trigger without any', file({ ...label('deploy'), on: { type: 'label' } }), at('deploy', '$[0].on.any', Code.Shape)],
  ['a label trigger with an empty any', file(label('deploy', {}, { any: [] })), at('deploy', '$[0].on.any', Code.Shape)],
  ['a label trigger whose any is a string', file(label('deploy', {}, { any: 'x' })), at('deploy', '$[0].on.any', Code.Shape)],
  ['a label that is not a string', file(label('deploy', {}, { any: ['ok', 3] })), at('deploy', '$[0].on.any[1]', Code.Shape)],
  ['a cron trigger', file(cron('nightly')), at('nightly', '$[0].on.type', Code.Cron)],
  ['a cron trigger with once', file(cron('nightly', {}, { once: true })), at('nightly', '$[0].on.type', Code.Cron)],
  ['a cron trigger without schedule', file({ ...cron('nightly'), on: { type: 'cron' } }), at('nightly', '$[0].on.type', Code.Cron)],
  ['on.once that is not a boolean', file(label('deploy', {}, { once: 'yes' })), at('deploy', '$[0].on.once', Code.Shape)],
  ['no run', file(without(label('deploy'), 'run')), at('deploy', '$[0].run', Code.Shape)],
  ['run that is an array', file({ ...label('deploy'), run: [] }), at('deploy', '$[0].run', Code.Shape)],
  ['no run.kind', file({ ...label('deploy'), run: { flow: 'deploy', job } }), at('deploy', '$[0].run.kind', Code.Shape)],
  ['a run.flow that is a number', file(label('deploy', { flow: 5 })), at('deploy', '$[0].run.flow', Code.Shape)],
  ['replicas of zero', file(label('deploy', { replicas: 0 })), at('deploy', '$[0].run.replicas', Code.Shape)],
  ['fractional replicas', file(label('deploy', { replicas: 1.5 })), at('deploy', '$[0].run.replicas', Code.Shape)],
  ['replicas as a string', file(label('deploy', { replicas: '2' })), at('deploy', '$[0].run.replicas', Code.Shape)],
  ['pinRevision as a string', file(label('deploy', { pinRevision: 'yes' })), at('deploy', '$[0].run.pinRevision', Code.Shape)],
  [
    "replicas beside the JobSpec's own parallelism",
    file(label('deploy', { replicas: 3, job: { ...job, parallelism: 2 } })),
    at('deploy', '$[0].run.job.parallelism', Code.ReplicasConflict),
  ],
  [
    "replicas beside the JobSpec's own completionMode",
    file(label('deploy', { replicas: 3, job: { ...job, completionMode: 'NonIndexed' } })),
    at('deploy', '$[0].run.job.completionMode', Code.ReplicasConflict),
  ],
  [
    'a key written twice (JSON.parse would drop the first)',
    {
      text: `[{"name":"deploy","on":{"type":"label","any":["x"]},"run":{"kind":"github","flow":"deploy","waitFor":[{"after":"2026-09-01T09:00:00Z"}],"job":${JSON.stringify(job)},"waitFor":[{"profile":"jira"}]}}]`,
    },
    at('deploy', '$[0].run.waitFor', Code.Shape),
  ],
  ['a repeated name', file(label('deploy'), label('other'), label('deploy')), at('deploy', '$[2].name', Code.NameRepeated)],

  // on's keys, and the repositories a trigger fires for
  [
    'on.repos, a misspelt repositories',
    file(label('deploy', {}, { repos: ['acme/web'] })),
    at('deploy', '$[0].on.repos', Code.OnUnknownKey),
  ],
  ['on.repository', file(label('deploy', {}, { repository: 'acme/web' })), at('deploy', '$[0].on.repository', Code.OnUnknownKey)],
  ['on.Repositories', file(label('deploy', {}, { Repositories: ['acme/web'] })), at('deploy', '$[0].on.Repositories', Code.OnUnknownKey)],
  ['on.labels', file(label('deploy', {}, { labels: ['x'] })), at('deploy', '$[0].on.labels', Code.OnUnknownKey)],
  ['on.branches', file(label('deploy', {}, { branches: ['main'] })), at('deploy', '$[0].on.branches', Code.OnUnknownKey)],
  ['an unknown on key that is null', file(label('deploy', {}, { repos: null })), at('deploy', '$[0].on.repos', Code.OnUnknownKey)],
  [
    'an unknown on key that needs quoting',
    file(label('deploy', {}, { 'only-repos': ['acme/web'] })),
    at('deploy', '$[0].on["only-repos"]', Code.OnUnknownKey),
  ],
  [
    'on.repositories that is a string',
    file(label('deploy', {}, { repositories: 'acme/web' })),
    at('deploy', '$[0].on.repositories', Code.RepositoriesInvalid),
  ],
  [
    'on.repositories that is null',
    file(label('deploy', {}, { repositories: null })),
    at('deploy', '$[0].on.repositories', Code.RepositoriesInvalid),
  ],
  [
    'an empty on.repositories',
    file(label('deploy', {}, { repositories: [] })),
    at('deploy', '$[0].on.repositories', Code.RepositoriesInvalid),
  ],
  [
    'a repository that is a number',
    file(label('deploy', {}, { repositories: ['acme/web', 7] })),
    at('deploy', '$[0].on.repositories[1]', Code.RepositoriesInvalid),
  ],
  [
    'an empty repository',
    file(label('deploy', {}, { repositories: [''] })),
    at('deploy', '$[0].on.repositories[0]', Code.RepositoriesInvalid),
  ],
  [
    'a repository with white space',
    file(label('deploy', {}, { repositories: [' acme/web'] })),
    at('deploy', '$[0].on.repositories[0]', Code.RepositoriesInvalid),
  ],
  [
    'a repository of one segment',
    file(label('deploy', {}, { repositories: ['acme'] })),
    at('deploy', '$[0].on.repositories[0]', Code.RepositoriesInvalid),
  ],
  [
    'a bad glob',
    file(label('deploy', {}, { repositories: ['acme/we?'] })),
    at('deploy', '$[0].on.repositories[0]', Code.RepositoriesInvalid),
  ],
  [
    'a wildcard owner',
    file(label('deploy', {}, { repositories: ['*/web'] })),
    at('deploy', '$[0].on.repositories[0]', Code.RepositoriesInvalid),
  ],
  [
    'every bad pattern of a list',
    file(label('deploy', {}, { repositories: ['acme/web', 'acme/**x', 'svn:acme/web'] })),
    [at('deploy', '$[0].on.repositories[1]', Code.RepositoriesInvalid), at('deploy', '$[0].on.repositories[2]', Code.RepositoriesInvalid)],
  ],
  [
    'repositories at the top of the entry',
    file({ ...label('deploy'), repositories: ['acme/web'] }),
    at('deploy', '$[0].repositories', Code.RepositoriesMisplaced),
  ],
  ['repos under run', file(label('deploy', { repos: ['acme/web'] })), at('deploy', '$[0].run.repos', Code.RepositoriesMisplaced)],
  [
    'repositories under run, beside a valid on.repositories',
    file(label('deploy', { repositories: ['acme/api'] }, { repositories: ['acme/web'] })),
    at('deploy', '$[0].run.repositories', Code.RepositoriesMisplaced),
  ],
  [
    'a misspelt key and a bad pattern together',
    file(label('deploy', {}, { repos: ['acme/api'], repositories: ['acme'] })),
    [at('deploy', '$[0].on.repos', Code.OnUnknownKey), at('deploy', '$[0].on.repositories[0]', Code.RepositoriesInvalid)],
  ],
  [
    'waitFor under on is only waitfor-misspelled',
    file(label('deploy', {}, { waitFor: [] })),
    at('deploy', '$[0].on.waitFor', Code.WaitForMisspelled),
  ],
  ['no run.job', file({ ...label('deploy'), run: { kind: 'github', flow: 'deploy' } }), at('deploy', '$[0].run.job', Code.JobInvalid)],
  ['run.job that is an array', file(label('deploy', { job: [] })), at('deploy', '$[0].run.job', Code.JobInvalid)],
  ['run.job without template', file(label('deploy', { job: { backoffLimit: 0 } })), at('deploy', '$[0].run.job.template', Code.JobInvalid)],
  [
    'run.job.template that is a string',
    file(label('deploy', { job: { template: 'pod' } })),
    at('deploy', '$[0].run.job.template', Code.JobInvalid),
  ],

  // waitFor's own shape
  [
    'waitFor that is an object',
    file(label('deploy', { waitFor: { after: '2026-09-01T09:00:00Z' } })),
    at('deploy', '$[0].run.waitFor', Code.WaitForShape),
  ],
  ['waitFor that is null', file(label('deploy', { waitFor: null })), at('deploy', '$[0].run.waitFor', Code.WaitForShape)],
  ['a condition that is a string', file(label('deploy', waits('jira'))), at('deploy', '$[0].run.waitFor[0]', Code.WaitForShape)],
  [
    'a condition that is null',
    file(label('deploy', waits({ profile: 'ci' }, null))),
    at('deploy', '$[0].run.waitFor[1]', Code.WaitForShape),
  ],
  [
    'a condition that is an array',
    file(label('deploy', waits([{ profile: 'ci' }]))),
    at('deploy', '$[0].run.waitFor[0]', Code.WaitForShape),
  ],
  ['an empty condition', file(label('deploy', waits({}))), at('deploy', '$[0].run.waitFor[0]', Code.WaitForShape)],
  [
    'two keys in one condition',
    file(label('deploy', waits({ after: '2026-09-01T09:00:00Z', profile: 'jira' }))),
    at('deploy', '$[0].run.waitFor[0]', Code.WaitForShape),
  ],
  ['zero conditions', file(label('deploy', waits())), at('deploy', '$[0].run.waitFor', Code.WaitForCount)],
  [
    'five conditions',
    file(label('deploy', waits({ after: '2026-09-01T09:00:00Z' }, { profile: 'a' }, { profile: 'b' }, { profile: 'c' }, { profile: 'd' }))),
    at('deploy', '$[0].run.waitFor', Code.WaitForCount),
  ],
  [
    'an unknown key',
    file(label('deploy', waits({ before: '2026-09-01T09:00:00Z' }))),
    at('deploy', '$[0].run.waitFor[0].before', Code.WaitForUnknownKey),
  ],
  [
    'After with a capital',
    file(label('deploy', waits({ After: '2026-09-01T09:00:00Z' }))),
    at('deploy', '$[0].run.waitFor[0].After', Code.WaitForUnknownKey),
  ],
  [
    'a key that needs quoting',
    file(label('deploy', waits({ 'not-yet': true }))),
    at('deploy', '$[0].run.waitFor[0]["not-yet"]', Code.WaitForUnknownKey),
  ],
  ['exclusive', file(label('deploy', waits({ exclusive: true }))), at('deploy', '$[0].run.waitFor[0].exclusive', Code.WaitForExclusive)],
  [
    'exclusive beside a valid condition',
    file(label('deploy', waits({ profile: 'ci' }, { exclusive: 'repo' }))),
    at('deploy', '$[0].run.waitFor[1].exclusive', Code.WaitForExclusive),
  ],

  // waits that would not be read
  ['run.waitfor', file(label('deploy', { waitfor: [{ profile: 'ci' }] })), at('deploy', '$[0].run.waitfor', Code.WaitForMisspelled)],
  ['run.wait_for', file(label('deploy', { wait_for: [{ profile: 'ci' }] })), at('deploy', '$[0].run.wait_for', Code.WaitForMisspelled)],
  ['run.waitFOR', file(label('deploy', { waitFOR: [{ profile: 'ci' }] })), at('deploy', '$[0].run.waitFOR', Code.WaitForMisspelled)],
  ['run.WaitFor', file(label('deploy', { WaitFor: [{ profile: 'ci' }] })), at('deploy', '$[0].run.WaitFor', Code.WaitForMisspelled)],
  [
    'run.wait-for',
    file(label('deploy', { 'wait-for': [{ profile: 'ci' }] })),
    at('deploy', '$[0].run["wait-for"]', Code.WaitForMisspelled),
  ],
  ['on.waitFor', file(label('deploy', {}, { waitFor: [{ profile: 'ci' }] })), at('deploy', '$[0].on.waitFor', Code.WaitForMisspelled)],
  ['on.wait_for', file(label('deploy', {}, { wait_for: [{ profile: 'ci' }] })), at('deploy', '$[0].on.wait_for', Code.WaitForMisspelled)],
  ['waitFor beside name', file({ ...label('deploy'), waitFor: [{ profile: 'ci' }] }), at('deploy', '$[0].waitFor', Code.WaitForMisspelled)],

  // after
  [
    'a zoneless after',
    file(label('deploy', waits({ after: '2026-09-01T09:00:00' }))),
    at('deploy', '$[0].run.waitFor[0].after', Code.AfterZoneless),
  ],
  [
    'a zoneless after without seconds',
    file(label('deploy', waits({ after: '2026-09-01T09:00' }))),
    at('deploy', '$[0].run.waitFor[0].after', Code.AfterZoneless),
  ],
  [
    'an after that is a number',
    file(label('deploy', waits({ after: 1788253200000 }))),
    at('deploy', '$[0].run.waitFor[0].after', Code.AfterInvalid),
  ],
  ['an after that is null', file(label('deploy', waits({ after: null }))), at('deploy', '$[0].run.waitFor[0].after', Code.AfterInvalid)],
  [
    'an after in words',
    file(label('deploy', waits({ after: 'tomorrow 9am' }))),
    at('deploy', '$[0].run.waitFor[0].after', Code.AfterInvalid),
  ],
  [
    'February 31st',
    file(label('deploy', waits({ after: '2026-02-31T09:00:00Z' }))),
    at('deploy', '$[0].run.waitFor[0].after', Code.AfterInvalid),
  ],
  [
    'February 29th of a common year',
    file(label('deploy', waits({ after: '2027-02-29T09:00:00Z' }))),
    at('deploy', '$[0].run.waitFor[0].after', Code.AfterInvalid),
  ],
  [
    '24:00:00',
    file(label('deploy', waits({ after: '2026-09-01T24:00:00Z' }))),
    at('deploy', '$[0].run.waitFor[0].after', Code.AfterInvalid),
  ],
  [
    'a leap second',
    file(label('deploy', waits({ after: '2026-12-31T23:59:60Z' }))),
    at('deploy', '$[0].run.waitFor[0].after', Code.AfterInvalid),
  ],
  [
    'an offset out of range',
    file(label('deploy', waits({ after: '2026-09-01T09:00:00+24:00' }))),
    at('deploy', '$[0].run.waitFor[0].after', Code.AfterInvalid),
  ],
  [
    'a space instead of T',
    file(label('deploy', waits({ after: '2026-09-01 09:00:00Z' }))),
    at('deploy', '$[0].run.waitFor[0].after', Code.AfterInvalid),
  ],
  [
    'an impossible date without a zone is invalid first',
    file(label('deploy', waits({ after: '2026-02-31T09:00:00' }))),
    at('deploy', '$[0].run.waitFor[0].after', Code.AfterInvalid),
  ],
  [
    'two afters',
    file(label('deploy', waits({ after: '2026-09-01T09:00:00Z' }, { profile: 'jira' }, { after: '2026-09-02T09:00:00Z' }))),
    at('deploy', '$[0].run.waitFor[2].after', Code.AfterRepeated),
  ],

  // profile
  [
    'a profile with capitals',
    file(label('deploy', waits({ profile: 'Jira' }))),
    at('deploy', '$[0].run.waitFor[0].profile', Code.ProfileInvalid),
  ],
  ['an empty profile', file(label('deploy', waits({ profile: '' }))), at('deploy', '$[0].run.waitFor[0].profile', Code.ProfileInvalid)],
  [
    'a profile of 64 characters',
    file(label('deploy', waits({ profile: 'p'.repeat(64) }))),
    at('deploy', '$[0].run.waitFor[0].profile', Code.ProfileInvalid),
  ],
  [
    'a profile starting with -',
    file(label('deploy', waits({ profile: '-jira' }))),
    at('deploy', '$[0].run.waitFor[0].profile', Code.ProfileInvalid),
  ],
  [
    'a profile with _',
    file(label('deploy', waits({ profile: 'wait_jira' }))),
    at('deploy', '$[0].run.waitFor[0].profile', Code.ProfileInvalid),
  ],
  [
    'a profile that is a number',
    file(label('deploy', waits({ profile: 42 }))),
    at('deploy', '$[0].run.waitFor[0].profile', Code.ProfileInvalid),
  ],
  [
    'a repeated profile',
    file(label('deploy', waits({ profile: 'jira' }, { profile: 'jira' }))),
    at('deploy', '$[0].run.waitFor[1].profile', Code.ProfileRepeated),
  ],
  [
    'an approval group with a space',
    file(label('deploy', waits({ approval: 'release managers' }))),
    at('deploy', '$[0].run.waitFor[0].approval', Code.ApprovalInvalid),
  ],
  [
    'an empty approval group',
    file(label('deploy', waits({ approval: '' }))),
    at('deploy', '$[0].run.waitFor[0].approval', Code.ApprovalInvalid),
  ],
  [
    'an approval that is a list',
    file(label('deploy', waits({ approval: ['a'] }))),
    at('deploy', '$[0].run.waitFor[0].approval', Code.ApprovalInvalid),
  ],
  [
    'a second approval',
    file(label('deploy', waits({ approval: 'release-managers' }, { approval: 'sre' }))),
    at('deploy', '$[0].run.waitFor[1].approval', Code.ApprovalRepeated),
  ],

  // combinations
  ['waitFor with on.once', file(label('deploy', waits({ profile: 'jira' }), { once: true })), at('deploy', '$[0].on.once', Code.WithOnce)],
  [
    'waitFor with run.replicas',
    file(label('deploy', { ...waits({ profile: 'jira' }), replicas: 3 })),
    at('deploy', '$[0].run.replicas', Code.WithReplicas),
  ],
  [
    'waitFor with run.replicas of 1',
    file(label('deploy', { ...waits({ profile: 'jira' }), replicas: 1 })),
    at('deploy', '$[0].run.replicas', Code.WithReplicas),
  ],
  [
    'waitFor on a cron trigger',
    file(cron('nightly', waits({ after: '2026-09-01T09:00:00Z' }))),
    [at('nightly', '$[0].on.type', Code.Cron), at('nightly', '$[0].on.type', Code.OnCron)],
  ],
];

function check(input: { value: unknown } | { text: string }) {
  return 'text' in input ? parseTriggersFile(input.text) : checkTriggers(input.value);
}

describe('refusals', () => {
  test.each(rows)('%s', (_description, input, expected) => {
    const r = check(input);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.refusals.map(({ where, path, code }) => ({ where, path, code }))).toEqual([expected].flat());
    for (const refusal of r.refusals) {
      expect(refusal.message.length).toBeGreaterThan(20);
      expect(refusal.message).not.toMatch(/\n/);
    }
  });

  test('the table covers every code of the vocabulary', () => {
    expect(new Set(rows.flatMap(([, , e]) => [e].flat().map((x) => x.code)))).toEqual(new Set(TRIGGER_REFUSAL_CODES));
  });

  test.each([
    [Code.AfterZoneless, label('d', waits({ after: '2026-09-01T09:00:00' })), /zone/],
    [Code.WithOnce, label('d', waits({ profile: 'jira' }), { once: true }), /once/],
    [Code.WithReplicas, label('d', { ...waits({ profile: 'jira' }), replicas: 2 }), /replica/],
    [Code.OnCron, cron('d', waits({ profile: 'jira' })), /cron/],
    [Code.Cron, cron('d'), /forge events.*CronJob/],
    [Code.ReplicasConflict, label('d', { replicas: 2, job: { ...job, completions: 4 } }), /not both/],
    [Code.WaitForMisspelled, label('d', { wait_for: [] }), /waitFor/],
    [Code.AfterInvalid, label('d', waits({ after: '2026-02-31T09:00:00Z' })), /2026-02-31 is not a date/],
    [Code.OnUnknownKey, label('d', {}, { repos: ['acme/web'] }), /on has no key "repos"; did you mean "repositories"\?.*every repository/],
    [Code.OnUnknownKey, label('d', {}, { onse: true }), /on has no key "onse"; did you mean "once"\?/],
    [Code.OnUnknownKey, label('d', {}, { zzz: 1 }), /on has no key "zzz"; on holds only type, any, once, repositories\./],
    [Code.RepositoriesInvalid, label('d', {}, { repositories: ['acme/we?'] }), /the repository "acme\/we\?" contains "\?"/],
    [Code.RepositoriesInvalid, label('d', {}, { repositories: [] }), /empty.*remove the key/],
    [Code.RepositoriesMisplaced, label('d', { repositories: ['acme/web'] }), /not read under run.*on\.repositories/],
  ])('the %s message says why', (code, entry, why) => {
    const r = checkTriggers([entry]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.refusals.find((x) => x.code === code)?.message).toMatch(why);
  });

  test('a file with many problems reports every one of them, in file order', () => {
    const r = checkTriggers([
      label('deploy', waits({ after: '2026-09-01T09:00:00' }, { exclusive: true }, { profile: 'Jira' }), { once: true }),
      'not an entry',
      { on: { type: 'cron' }, run: { kind: 'github', flow: 'nightly', job, wait_for: [], waitFor: [{ profile: 'ci' }] } },
      label('deploy', waits({ profile: 'ci' }, { profile: 'ci' }, { after: 1 }, { after: '2026-09-01T09:00:00Z' }, {})),
      label('ok'),
    ]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.refusals.map(({ where, path, code }) => [where, path, code])).toEqual([
      ['deploy', '$[0].run.waitFor[0].after', Code.AfterZoneless],
      ['deploy', '$[0].run.waitFor[1].exclusive', Code.WaitForExclusive],
      ['deploy', '$[0].run.waitFor[2].profile', Code.ProfileInvalid],
      ['deploy', '$[0].on.once', Code.WithOnce],
      ['#1', '$[1]', Code.Shape],
      ['#2', '$[2].name', Code.Shape],
      ['#2', '$[2].on.type', Code.Cron],
      ['#2', '$[2].run.wait_for', Code.WaitForMisspelled],
      ['#2', '$[2].on.type', Code.OnCron],
      ['deploy', '$[3].name', Code.NameRepeated],
      ['deploy', '$[3].run.waitFor', Code.WaitForCount],
      ['deploy', '$[3].run.waitFor[1].profile', Code.ProfileRepeated],
      ['deploy', '$[3].run.waitFor[2].after', Code.AfterInvalid],
      ['deploy', '$[3].run.waitFor[3].after', Code.AfterRepeated],
      ['deploy', '$[3].run.waitFor[4]', Code.WaitForShape],
    ]);
  });

  test('an entry that throws while being read is refused, not thrown', () => {
    const hostile = {
      get name(): string {
        throw new Error('boom');
      },
    };
    const r = checkTriggers([label('fine'), hostile]);
    expect(r).toEqual({ ok: false, refusals: [expect.objectContaining({ where: '#1', path: '$[1]', code: Code.Shape })] });
    const proxy = new Proxy([], {
      get() {
        throw new Error('boom');
      },
    });
    expect(checkTriggers(proxy).ok).toBe(false);
  });
});

describe('files that load', () => {
  const valid: [string, unknown[]][] = [
    ['an after with a +02:00 offset', [label('deploy', waits({ after: '2026-09-01T09:00:00+02:00' }))]],
    ['an after with a -05:30 offset', [label('deploy', waits({ after: '2026-09-01T09:00:00-05:30' }))]],
    ['fractional seconds', [label('deploy', waits({ after: '2026-09-01T09:00:00.250Z' }))]],
    ['nine digits of fraction', [label('deploy', waits({ after: '2026-09-01T09:00:00.123456789+01:00' }))]],
    ['an after without seconds', [label('deploy', waits({ after: '2026-09-01T09:00Z' }))]],
    ['the leap day of 2028', [label('deploy', waits({ after: '2028-02-29T00:00:00Z' }))]],
    [
      'four conditions',
      [label('deploy', waits({ profile: 'jira' }, { after: '2026-09-01T09:00:00Z' }, { profile: 'ci' }, { profile: 'deploy-window' }))],
    ],
    ['a profile and an after', [label('deploy', waits({ profile: 'jira' }, { after: '2026-09-01T09:00:00Z' }))]],
    [
      'an approval beside an after and a profile',
      [label('deploy', waits({ after: '2026-09-01T09:00:00Z' }, { approval: 'release-managers' }, { profile: 'jira' }))],
    ],
    ['an approval group such as OIDC gives one', [label('deploy', waits({ approval: 'oidc:team/release@example.com' }))]],
    ['a profile that no ConfigMap declares', [label('deploy', waits({ profile: 'nobody-declared-this' }))]],
    ['a profile of 63 characters', [label('deploy', waits({ profile: 'p'.repeat(63) }))]],
    ['a label trigger without waitFor', [label('deploy')]],
    ['on.once without a wait', [label('deploy', {}, { once: true })]],
    ['on.once false with a wait', [label('deploy', waits({ profile: 'jira' }), { once: false })]],
    ['replicas without a wait', [label('deploy', { replicas: 3 })]],
    ['replicas beside JobSpec fields it does not set', [label('deploy', { replicas: 3, job: { ...job, activeDeadlineSeconds: 60 } })]],
    ['unknown run keys', [label('deploy', { timeoutMinutes: 30, labels: { team: 'a' }, ...waits({ profile: 'jira' }) })]],
    ['on.repositories naming one repository', [label('deploy', {}, { repositories: ['acme/web'] })]],
    [
      'on.repositories with globs and forge prefixes',
      [label('deploy', {}, { repositories: ['acme/*', 'gitlab:group/sub/**', 'github:tools/lint'] })],
    ],
    ['on.repositories beside once', [label('deploy', {}, { once: true, repositories: ['acme/web'] })]],
    ['on.repositories beside a wait', [label('deploy', waits({ profile: 'jira' }), { repositories: ['acme/web'] })]],
    ['a run key that merely starts like repositories', [label('deploy', { repositoryUrl: 'https://example.test' })]],
    ['a name of 253 characters', [label('n'.repeat(253))]],
    ['several triggers', [label('deploy'), label('fix', waits({ profile: 'jira' })), label('nightly', {}, { once: true })]],
    ['no triggers at all', []],
  ];

  test.each(valid)('%s', (_description, entries) => {
    const r = checkTriggers(entries);
    expect(r).toEqual({ ok: true, triggers: expect.any(Array) });
    if (!r.ok) return;
    expect(r.triggers).toHaveLength(entries.length);
    // The text form loads the same.
    expect(parseTriggersFile(JSON.stringify(entries))).toEqual(r);
  });

  test('a loaded trigger keeps its fields, its conditions in order and unknown run keys', () => {
    const r = checkTriggers([
      label('deploy', { timeoutMinutes: 30, ...waits({ profile: 'jira' }, { after: '2026-09-01T09:00:00-05:30' }) }, { once: false }),
      label('nightly', { replicas: 2, pinRevision: true }, { once: true }),
    ]);
    expect(r).toEqual({
      ok: true,
      triggers: [
        {
          name: 'deploy',
          on: { type: 'label', any: ['waitgate:deploy'], once: false },
          run: {
            kind: 'github',
            flow: 'deploy',
            job,
            timeoutMinutes: 30,
            waitFor: [{ profile: 'jira' }, { after: '2026-09-01T09:00:00-05:30' }],
          },
        },
        {
          name: 'nightly',
          on: { type: 'label', any: ['waitgate:deploy'], once: true },
          run: { kind: 'github', flow: 'deploy', job, replicas: 2, pinRevision: true },
        },
      ],
    });
  });

  test('a loaded trigger keeps on.repositories as written, in order', () => {
    const r = checkTriggers([label('deploy', {}, { repositories: ['Acme/Web', 'gitlab:group/sub/*'] }), label('open')]);
    expect(r).toEqual({
      ok: true,
      triggers: [
        {
          name: 'deploy',
          on: { type: 'label', any: ['waitgate:deploy'], repositories: ['Acme/Web', 'gitlab:group/sub/*'] },
          run: expect.any(Object),
        },
        { name: 'open', on: { type: 'label', any: ['waitgate:deploy'] }, run: expect.any(Object) },
      ],
    });
  });

  test('a byte-order mark before the JSON is tolerated', () => {
    expect(parseTriggersFile(`\uFEFF${JSON.stringify([label('deploy')])}`).ok).toBe(true);
  });
});
