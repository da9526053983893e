// The chart's forge values (issue 11): the operator's env for reporting and redelivery, with
// credentials from the Secrets the values name, and the values it refuses.
import { describe, expect, test } from '@jest/globals';
import { parseAllDocuments } from 'yaml';
import { parseOperatorConfig } from '../../api/config/operator-config.js';
import { parseReceiverConfig } from '../../receiver/config.js';
import { CHART_DIR, mustRun, RELEASE, runTool } from '../support/chart.js';
import { Timeouts } from '../support/timeouts.js';

type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } };

async function deploymentEnv(component: 'operator' | 'receiver', args: readonly string[]): Promise<EnvVar[]> {
  const r = await mustRun('helm', ['template', RELEASE, CHART_DIR, '-n', 'team-a', '--set', 'valkey.url=redis://valkey:6379', ...args]);
  const ms = parseAllDocuments(r.stdout).map((d) => d.toJS() as { kind?: string; metadata?: { name?: string }; spec?: unknown } | null);
  const op = ms.find((m) => m?.kind === 'Deployment' && m.metadata?.name === `${RELEASE}-${component}`) as {
    spec: { template: { spec: { containers: { env: EnvVar[] }[] } } };
  };
  return op.spec.template.spec.containers[0]?.env ?? [];
}
const operatorEnv = (args: readonly string[]) => deploymentEnv('operator', args);

/** What a Pod would see of the forges: the plain values, and `secret-<key>` for each forge Secret key it reads. */
function seenBy(env: readonly EnvVar[]): Record<string, string> {
  const seen: Record<string, string> = {};
  for (const e of env) {
    if (e.value !== undefined) seen[e.name] = e.value;
    else if (e.valueFrom?.secretKeyRef && /GITHUB|GITLAB|AZURE/.test(e.name)) seen[e.name] = `secret-${e.valueFrom.secretKeyRef.key}`;
  }
  return { ...seen, VALKEY_URL: 'redis://valkey:6379' };
}

describe('the chart’s forge values', () => {
  test(
    'off by default: no credentials, refusals the transition',
    async () => {
      const env = await operatorEnv([]);
      expect(env.filter((e) => /GITHUB|GITLAB|AZURE/.test(e.name))).toEqual([]);
      expect(env.find((e) => e.name === 'WAITGATE_FORGE_REPORT')?.value).toBe('refused');
    },
    Timeouts.testMs,
  );

  test(
    'credentials from the named Secrets; the env parses as the operator parses it',
    async () => {
      const env = await operatorEnv([
        '--set',
        'forge.github.existingSecret=gh-creds',
        '--set',
        'forge.github.apiUrl=https://ghe.example/api/v3',
        '--set-json',
        'forge.github.redeliverHooks=["acme/web:12","acme:34"]',
        '--set',
        'forge.gitlab.existingSecret=gl-creds',
        '--set',
        'forge.report=refused\\,launched\\,finished',
      ]);
      const byName = Object.fromEntries(env.map((e) => [e.name, e]));
      expect(byName['WAITGATE_GITHUB_TOKEN']?.valueFrom?.secretKeyRef).toEqual({ name: 'gh-creds', key: 'token', optional: true });
      expect(byName['WAITGATE_GITHUB_APP_PRIVATE_KEY']?.valueFrom?.secretKeyRef).toEqual({
        name: 'gh-creds',
        key: 'privateKey',
        optional: true,
      });
      expect(byName['WAITGATE_GITLAB_TOKEN']?.valueFrom?.secretKeyRef).toEqual({ name: 'gl-creds', key: 'token' });
      // What the Pod would see with a token in each Secret.
      const seen: Record<string, string> = { VALKEY_URL: 'redis://valkey:6379' };
      for (const e of env) {
        if (e.value !== undefined) seen[e.name] = e.value;
        else if (e.name === 'WAITGATE_GITHUB_TOKEN' || e.name === 'WAITGATE_GITLAB_TOKEN') seen[e.name] = 'secret-token';
      }
      const forge = parseOperatorConfig(seen).forge;
      expect(forge.report).toEqual(['refused', 'launched', 'finished']);
      expect(forge.github).toEqual({ apiUrl: 'https://ghe.example/api/v3', auth: { kind: 'token', token: 'secret-token' } });
      expect(forge.gitlab?.apiUrl).toBe('https://gitlab.com/api/v4');
      expect(forge.redeliverHooks).toHaveLength(2);
    },
    Timeouts.testMs,
  );

  test(
    'the GitHub App’s own webhook (app) is a hook the values take, beside the others',
    async () => {
      const env = await operatorEnv([
        '--set',
        'forge.github.existingSecret=gh-app',
        '--set-json',
        'forge.github.redeliverHooks=["app","acme:34"]',
      ]);
      expect(env.find((e) => e.name === 'WAITGATE_GITHUB_REDELIVER_HOOKS')?.value).toBe('app,acme:34');
      // What the Pod would see with an App in the Secret.
      const seen: Record<string, string> = {
        VALKEY_URL: 'redis://valkey:6379',
        WAITGATE_GITHUB_APP_ID: '1',
        WAITGATE_GITHUB_APP_PRIVATE_KEY: 'k',
        WAITGATE_GITHUB_APP_INSTALLATION_ID: '2',
      };
      for (const e of env) if (e.value !== undefined) seen[e.name] = e.value;
      expect(parseOperatorConfig(seen).forge.redeliverHooks).toEqual([{ kind: 'app' }, { kind: 'org', org: 'acme', hookId: 34 }]);
    },
    Timeouts.testMs,
  );

  test(
    'Azure DevOps: the operator’s token and organisation, the receiver’s webhook secret, and its API access only when asked',
    async () => {
      const values = [
        '--set',
        'forge.azure.existingSecret=ado-creds',
        '--set',
        'forge.azure.apiUrl=https://dev.azure.com/acme',
        '--set',
        'receiver.azure.webhookSecret=hook-secret',
      ];
      const op = await operatorEnv(values);
      expect(op.find((e) => e.name === 'WAITGATE_AZURE_TOKEN')?.valueFrom?.secretKeyRef).toEqual({ name: 'ado-creds', key: 'token' });
      expect(parseOperatorConfig(seenBy(op)).forge.azure).toEqual({ apiUrl: 'https://dev.azure.com/acme', token: 'secret-token' });

      const rec = await deploymentEnv('receiver', values);
      expect(rec.find((e) => e.name === 'WAITGATE_AZURE_WEBHOOK_SECRET')?.valueFrom?.secretKeyRef).toMatchObject({
        key: 'azure-webhook-secret',
      });
      const receiver = parseReceiverConfig(seenBy(rec));
      // The single secret's key and the optional list's, both read from the chart's Secret.
      expect(receiver.webhookSecrets.azure).toEqual(['secret-azure-webhook-secret', 'secret-azure-webhook-secrets']);
      // The receiver faces the internet: no forge credentials unless a pinned issue needs them.
      expect(receiver.forgeApis).toEqual({});
      const withAccess = parseReceiverConfig(seenBy(await deploymentEnv('receiver', [...values, '--set', 'receiver.forgeApiAccess=true'])));
      expect(withAccess.forgeApis.azure).toMatchObject({ url: 'https://dev.azure.com/acme', token: 'secret-token' });
    },
    Timeouts.testMs,
  );

  test.each<[string, string[], RegExp]>([
    ['an unknown transition', ['--set', 'forge.report=started'], /forge\/report/],
    ['a malformed hook', ['--set-json', 'forge.github.redeliverHooks=["acme/web"]'], /redeliverHooks/],
    [
      'a hook written App',
      ['--set', 'forge.github.existingSecret=gh', '--set-json', 'forge.github.redeliverHooks=["App"]'],
      /redeliverHooks/,
    ],
    ['hooks without GitHub credentials', ['--set-json', 'forge.github.redeliverHooks=["acme/web:1"]'], /needs forge.github.existingSecret/],
    ['an API URL that is not one', ['--set', 'forge.gitlab.apiUrl=gitlab.example'], /forge\/gitlab\/apiUrl/],
    ['Azure DevOps credentials without the organisation', ['--set', 'forge.azure.existingSecret=ado'], /needs forge.azure.apiUrl/],
  ])(
    '`helm template` fails on %s',
    async (_what, args, message) => {
      const r = await runTool('helm', ['template', RELEASE, CHART_DIR, '-n', 'team-a', '--set', 'valkey.url=redis://valkey:6379', ...args]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(message);
    },
    Timeouts.testMs,
  );
});
