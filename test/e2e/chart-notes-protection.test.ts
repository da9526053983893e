// The install notes say which of the receiver's tenancy protections are in force (issue 30):
// each forge's webhook secrets scoped to repositories or speaking for every repository, and
// whether labels are confirmed with the forge. Rendered by `helm install --dry-run` of the chart.
import { describe, expect, test } from '@jest/globals';
import { installNotes } from '../support/chart.js';
import { Timeouts } from '../support/timeouts.js';

const SECRET = 'a'.repeat(24);
const RECEIVER = ['--set', 'receiver.enabled=true', '--set', 'valkey.deploy=true'];
const scoped = (repos: string[]) => JSON.stringify([{ secret: 'b'.repeat(24), repositories: repos }]);

describe('NOTES: the receiver protection in force', () => {
  test.concurrent.each<[string, string[], RegExp[], RegExp[]]>([
    [
      'one GitHub secret for every hook: warned, with the value that scopes it',
      ['--set', `receiver.github.webhookSecret=${SECRET}`],
      [
        /^ {2}WARNING: receiver\.github\.webhookSecret speaks for EVERY repository/m,
        /Scope it with receiver\.github\.scopedWebhookSecrets\./,
        /^ {2}Labels: a verified delivery's label is believed as sent \(receiver\.confirmLabels: false\)\./m,
      ],
      [/gitlab:/, /WARNING: receiver\.gitlab/],
    ],
    [
      'scoped GitLab tokens only: said, not warned',
      ['--set-json', `receiver.gitlab.scopedWebhookTokens=${scoped(['acme/*'])}`],
      [/^ {2}gitlab: 1 scoped \(receiver\.gitlab\.scopedWebhookTokens\), each for the repositories it names\./m],
      [/WARNING: receiver\.\w+\.webhook/, /No webhook secret is set/],
    ],
    [
      'an existing Secret: NOTES cannot see inside it and sends you to doctor',
      ['--set', 'receiver.existingSecret=hooks'],
      [/^ {2}The secrets in Secret hooks are read when the receiver starts: `waitgate doctor` says/m],
      [/WARNING: receiver\.\w+\.webhook/],
    ],
  ])(
    '%s',
    async (_what, args, present, absent) => {
      const notes = await installNotes('team-a', [...RECEIVER, ...args]);
      for (const p of present) expect(notes).toMatch(p);
      for (const a of absent) expect(notes).not.toMatch(a);
      expect(notes).not.toContain(SECRET);
    },
    Timeouts.testMs,
  );
});
