import { describe, expect, test } from '@jest/globals';
import { checkSecretFindings, type SecretsMetadata } from './check-secrets.js';
import type { ConfigMapRead } from './config-checks.js';

const SH = '#!/bin/sh\nexit 0\n';
const profiles = (json: object): ConfigMapRead => ({ state: 'ok', data: { 'profiles.json': JSON.stringify(json), 'c.sh': SH } });
const api = { script: 'c.sh', secrets: ['jira', 'ci'], env: { JIRA_TOKEN: { secret: 'jira', key: 'token' } } };
const meta = (entries: [string, Record<string, string>][]): SecretsMetadata => ({ state: 'ok', labels: new Map(entries) });
const LABELLED = { 'waitgate.dev/check-secret': 'true' };

describe('checkSecretFindings', () => {
  test.each<[string, ConfigMapRead, SecretsMetadata, string[]]>([
    [
      'no profile reads a Secret',
      profiles({ a: { script: 'c.sh' } }),
      meta([]),
      ['ok secrets: no profile of ns/waitgate-profiles reads a Secret'],
    ],
    [
      'both labelled: the reads listed, nothing to warn',
      profiles({ api }),
      meta([
        ['jira', LABELLED],
        ['ci', LABELLED],
      ]),
      [
        'ok secrets: profile api reads jira (files in /var/run/waitgate/secrets/jira/; env JIRA_TOKEN), ci (files in /var/run/waitgate/secrets/ci/)',
      ],
    ],
    [
      'one missing, one unlabelled',
      profiles({ api }),
      meta([['jira', { other: 'x' }]]),
      [
        'ok secrets: profile api reads jira (files in /var/run/waitgate/secrets/jira/; env JIRA_TOKEN), ci (files in /var/run/waitgate/secrets/ci/)',
        'WARN secrets: Secret ns/ci, read by api, does not exist: its check Pods cannot start (could not tell, counted) until it does',
        'WARN secrets: Secret ns/jira, read by api, is not labelled waitgate.dev/check-secret=true: their check Pods are refused at admission and the holds pause (CheckSecretRefused)',
      ],
    ],
    [
      'metadata not listable: one warning, no guess',
      profiles({ api }),
      { state: 'unreadable', problem: 'HTTP 403' },
      [
        'ok secrets: profile api reads jira (files in /var/run/waitgate/secrets/jira/; env JIRA_TOKEN), ci (files in /var/run/waitgate/secrets/ci/)',
        'WARN secrets: cannot list Secret metadata in ns (HTTP 403): whether ci, jira exist and carry waitgate.dev/check-secret is not checked',
      ],
    ],
    ['profiles that do not load: left to the profiles findings', { state: 'ok', data: { 'profiles.json': '{' } }, meta([]), []],
  ])('%s', (_what, p, s, lines) => {
    expect(checkSecretFindings('ns', p, s).map((f) => `${f.level} ${f.area}: ${f.message}`)).toEqual(lines);
  });
});
