// The README's own commands, run: every `helm install` or `helm upgrade` of the chart in its
// shell blocks is rendered with `helm template` and the same arguments, so a value the chart's
// schema refuses (issue #30: `receiver.ingress.host`, where the value is `hosts`) fails here
// rather than for the first reader.
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHART_DIR, runTool } from '../support/chart.js';
import { ROOT } from '../support/env.js';
import { Timeouts } from '../support/timeouts.js';

/** The commands of a Markdown file's sh blocks, continuation lines joined. */
function shellCommands(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  return blocks.flatMap((b) =>
    b
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#')),
  );
}

/** Words of one command line as a POSIX shell splits them (quotes, no expansion). */
function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3] ?? '');
  return out;
}

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

describe("the README's helm commands", () => {
  const installs = shellCommands(readme).filter((l) => /^helm (install|upgrade)\b/.test(l) && l.includes('charts/waitgate'));

  test('there are some to run, and none uses the old spelling receiver.ingress.host=', () => {
    expect(installs.length).toBeGreaterThan(0);
    for (const l of installs) expect(l).not.toMatch(/receiver\.ingress\.host=/);
  });

  test.concurrent.each(installs)(
    '%s renders against the chart and its schema',
    async (line) => {
      const [, verb, ...rest] = words(line);
      // `helm upgrade --install NAME CHART` and `helm install NAME CHART`: the same arguments to template.
      const args = rest
        .filter((a) => a !== '--install' && a !== '--wait' && a !== '--atomic')
        .map((a) => (/charts\/waitgate$/.test(a) ? CHART_DIR : a));
      expect(verb).toMatch(/^(install|upgrade)$/);
      const r = await runTool('helm', ['template', ...args]);
      expect({ line, code: r.code, stderr: r.stderr }).toEqual({ line, code: 0, stderr: '' });
    },
    Timeouts.testMs,
  );

  test('the old spelling is what the schema refuses', async () => {
    const r = await runTool('helm', [
      'template',
      'waitgate',
      CHART_DIR,
      '--set',
      'valkey.deploy=true',
      '--set',
      'receiver.ingress.enabled=true',
      '--set',
      'receiver.ingress.host=waitgate.example.com',
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/additional properties 'host' not allowed/);
  });
});
