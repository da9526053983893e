// The command line as a kubectl plugin, through the real kubectl: the package's bins on PATH
// (as `npm install -g` links them), `kubectl waitgate --version`, `kubectl waitgate held` with
// kubectl's own flags, and `kubectl waitgate <TAB>` through the plugin's completer. And the
// npm package ships what those bins need.
import { describe, expect, test } from '@jest/globals';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { VERSION } from '../../lib/version.js';
import { afterIn, heldJob } from '../support/builders.js';
import { runTool } from '../support/chart.js';
import { kubeconfigPath, ROOT } from '../support/env.js';
import { TestKube } from '../support/kube.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

/** A folder holding the package's bins under their installed names, as npm links them. */
function pluginPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'waitgate-plugin-'));
  symlinkSync(join(ROOT, 'bin', 'waitgate.js'), join(dir, 'kubectl-waitgate'));
  symlinkSync(join(ROOT, 'bin', 'kubectl_complete-waitgate.js'), join(dir, 'kubectl_complete-waitgate'));
  return dir;
}

/** kubectl with the plugin (and this node) first on PATH. */
async function kubectl(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const saved = process.env['PATH'];
  process.env['PATH'] = [pluginPath(), dirname(process.execPath), saved ?? ''].join(':');
  try {
    return await runTool('kubectl', args);
  } finally {
    process.env['PATH'] = saved;
  }
}

describe('kubectl waitgate', () => {
  test(
    '--version, held with kubectl flags, and completion, through the real kubectl',
    async () => {
      const version = await kubectl(['waitgate', '--version']);
      expect(version).toMatchObject({ code: 0, stdout: `waitgate ${VERSION}\n` });

      const list = await kubectl(['plugin', 'list']);
      expect(list.stdout).toMatch(/kubectl-waitgate/);

      const kube = new TestKube();
      const ns = await kube.createNamespace('kubectl-plugin');
      try {
        await kube.createHeldJob(ns, heldJob({ name: 'later', waitFor: [{ after: afterIn(3_600_000).after }] }));
        // No operator runs here: the HeldJob is Pending, counted apart from the waiting ones.
        const held = await eventually(
          'kubectl waitgate held to list it',
          async () => {
            const r = await kubectl(['waitgate', 'held', '-n', ns, '--kubeconfig', kubeconfigPath(), '-o', 'json']);
            return r.code === 0 && r.stdout.includes('"later"') ? r : undefined;
          },
          Timeouts.shortMs,
        );
        expect(JSON.parse(held.stdout)).toEqual([expect.objectContaining({ namespace: ns, name: 'later', target: 'acme/web#7' })]);
        // kubectl's --context, with a context the kubeconfig does not have: refused, naming it.
        const noContext = await kubectl(['waitgate', 'held', '-n', ns, '--kubeconfig', kubeconfigPath(), '--context', 'nope']);
        expect(noContext.code).toBe(1);
        expect(noContext.stderr).toMatch(/no context "nope" in the kubeconfig/);
      } finally {
        await kube.deleteNamespace(ns);
      }

      const completion = await kubectl(['__complete', 'waitgate', 'h']);
      expect(completion.stdout.split('\n')).toContain('held');
    },
    Timeouts.testMs,
  );

  test(
    'the npm package ships the bins and the built code they run, and no tests',
    async () => {
      const packed = await runTool('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', ROOT]);
      expect(packed.code).toBe(0);
      const files = (JSON.parse(packed.stdout) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
      for (const f of [
        'bin/waitgate.js',
        'bin/kubectl_complete-waitgate.js',
        'dist/cli/main.js',
        'dist/operator/main.js',
        'LICENSE',
        'package.json',
      ]) {
        expect(files).toContain(f);
      }
      expect(files.filter((f) => f.includes('.test.') || f.startsWith('test/'))).toEqual([]);
    },
    Timeouts.testMs,
  );
});
