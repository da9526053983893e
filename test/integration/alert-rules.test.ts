// The chart's alerts, run by a real promtool (built from the Prometheus Go module by
// hack/install-promtool.sh): the PrometheusRule as `helm template` renders it, and the cases
// of test/prometheus/alerts.test.yaml; besides, every alert has its summary, its description
// and a runbook_url to a heading of docs/runbooks.md.
import { describe, expect, test } from '@jest/globals';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { Timeouts } from '../support/timeouts.js';

const run = promisify(execFile);

interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly annotations?: Record<string, string>;
}

async function renderedGroups(): Promise<{ name: string; rules: AlertRule[] }[]> {
  const { stdout } = await run('helm', [
    'template',
    'waitgate',
    'charts/waitgate',
    '--namespace',
    'team-a',
    '--set',
    'prometheusRule.enabled=true',
    '--set',
    'valkey.url=redis://valkey.valkey.svc:6379',
    '--show-only',
    'templates/prometheusrule.yaml',
  ]);
  return (parse(stdout) as { spec: { groups: { name: string; rules: AlertRule[] }[] } }).spec.groups;
}

/** GitHub's anchor of a Markdown heading: lower case, spaces to dashes, punctuation dropped. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}

describe("the chart's alerts", () => {
  test(
    'promtool test rules passes over the rendered PrometheusRule',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'waitgate-alerts-'));
      try {
        writeFileSync(join(dir, 'rules.yaml'), stringify({ groups: await renderedGroups() }));
        copyFileSync('test/prometheus/alerts.test.yaml', join(dir, 'alerts.test.yaml'));
        const check = await run('promtool', ['check', 'rules', 'rules.yaml'], { cwd: dir });
        expect(check.stdout).toMatch(/SUCCESS: \d+ rules found/);
        const { stdout } = await run('promtool', ['test', 'rules', 'alerts.test.yaml'], { cwd: dir }).catch(
          (err: { stdout?: string; stderr?: string }) => {
            throw new Error(`promtool test rules failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
          },
        );
        expect(stdout).toContain('SUCCESS');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    Timeouts.testMs,
  );

  test(
    'every alert has a summary, a description, a runbook_url to its heading in docs/runbooks.md, and a promtool case',
    async () => {
      const alerts = (await renderedGroups()).flatMap((g) => g.rules);
      const headings = new Set(
        readFileSync('docs/runbooks.md', 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('## '))
          .map((l) => anchorOf(l.slice(3))),
      );
      const cases = readFileSync('test/prometheus/alerts.test.yaml', 'utf8');
      expect(alerts.length).toBeGreaterThanOrEqual(6);
      for (const a of alerts) {
        expect(a.annotations?.['summary']).toBeTruthy();
        expect(a.annotations?.['description']).toBeTruthy();
        const url = a.annotations?.['runbook_url'] ?? '';
        expect(url).toBe(`https://github.com/waitgate/waitgate/blob/main/docs/runbooks.md#${a.alert.toLowerCase()}`);
        expect({ alert: a.alert, heading: headings.has(a.alert.toLowerCase()) }).toEqual({ alert: a.alert, heading: true });
        expect({ alert: a.alert, tested: cases.includes(`alertname: ${a.alert}`) }).toEqual({ alert: a.alert, tested: true });
      }
      // No runbook for an alert the chart does not have.
      expect([...headings].sort()).toEqual(alerts.map((a) => a.alert.toLowerCase()).sort());
    },
    Timeouts.testMs,
  );
});
