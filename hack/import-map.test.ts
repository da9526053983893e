import { describe, expect, test } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importMapProblem, resolveImport, specifiersOf, violationsUnder } from './import-map.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('importMapProblem', () => {
  test.each<[string, string, string, boolean]>([
    // Programs import api/ and lib/ and their own folder.
    ['operator → api', 'operator/decide/waiting.ts', 'api/refusal-rules.ts', true],
    ['operator → lib', 'operator/adapters/kube-jobs.ts', 'lib/kube/client.ts', true],
    ['operator → operator', 'operator/controller/reconciler.ts', 'operator/decide/decide.ts', true],
    ['receiver → api', 'receiver/delivery/plan.ts', 'api/supersede-window.ts', true],
    ['receiver → lib (I/O too)', 'receiver/adapters/kube-records.ts', 'lib/kube/client.ts', true],
    ['cli → api', 'cli/commands/doctor.ts', 'api/refusal-rules.ts', true],
    ['cli → lib', 'cli/kube.ts', 'lib/kube/client.ts', true],
    // The receiver takes nothing of the operator's; the operator nothing of the receiver's or the CLI's.
    ['receiver → operator', 'receiver/delivery/deliver.ts', 'operator/decide/launch.ts', false],
    ['receiver → operator, type only too', 'receiver/delivery/deliver.ts', 'operator/controller/ports.ts', false],
    ['receiver → cli', 'receiver/http/server.ts', 'cli/kube.ts', false],
    ['operator → receiver', 'operator/forge/reporter.ts', 'receiver/forges/github.ts', false],
    ['operator → cli', 'operator/main.ts', 'cli/commands/check.ts', false],
    // The CLI takes only the check runner from the operator.
    ['cli → the exec-check runner', 'cli/commands/check.ts', 'operator/checks/exec-check.ts', true],
    ['cli → the profile scripts', 'cli/commands/check.ts', 'operator/checks/profile-scripts.ts', true],
    ['cli → the pod check runner (check --pod)', 'cli/check-pod.ts', 'operator/checks/pod-check.ts', true],
    ['cli → anything else of the operator', 'cli/commands/check.ts', 'operator/checks/mode-runner.ts', false],
    ['cli → the operator decide', 'cli/doctor/config-checks.ts', 'operator/decide/view.ts', false],
    ['cli → receiver', 'cli/commands/doctor.ts', 'receiver/delivery/plan.ts', false],
    // api/ takes only lib/'s helpers that do no I/O, and no program.
    ['api → lib/hash.ts', 'api/job-name.ts', 'lib/hash.ts', true],
    ['api → lib/config/env.ts', 'api/config/operator-config.ts', 'lib/config/env.ts', true],
    ['api → lib/valkey/keys.ts', 'api/target.ts', 'lib/valkey/keys.ts', true],
    ['api → the kube client', 'api/refusal-rules.ts', 'lib/kube/client.ts', false],
    ['api → the logger', 'api/cadence.ts', 'lib/logger.ts', false],
    ['api → operator', 'api/refusal-rules.ts', 'operator/decide/status.ts', false],
    ['api → receiver', 'api/triggers/triggers-file.ts', 'receiver/delivery/plan.ts', false],
    ['api → cli', 'api/profiles.ts', 'cli/check-explain.ts', false],
    // lib/ takes neither.
    ['lib → lib', 'lib/valkey/keys.ts', 'lib/hash.ts', true],
    ['lib → api', 'lib/kube/informer.ts', 'api/vocabulary.ts', false],
    ['lib → operator', 'lib/valkey/slots.ts', 'operator/controller/ports.ts', false],
    // Tests beside the code may use test/'s builders and fakes; the code itself may not.
    ['a unit test → test/support', 'operator/decide/decide.test.ts', 'test/support/launch-plan.ts', true],
    ['code → test/support', 'operator/decide/decide.ts', 'test/support/launch-plan.ts', false],
    ['a unit test → another program', 'receiver/delivery/deliver.test.ts', 'operator/decide/launch.ts', false],
    ['code → bench', 'operator/main.ts', 'bench/record/herd.ts', false],
    // Outside the map: not checked.
    ['test → operator', 'test/support/fake-ports.ts', 'operator/controller/ports.ts', true],
    ['bench → receiver', 'bench/receiver-process.ts', 'receiver/main.ts', true],
    ['hack → api', 'hack/crd-file.ts', 'api/crd.ts', true],
  ])('%s: %s → %s allowed %s', (_what, from, to, allowed) => {
    const problem = importMapProblem(from, to);
    if (allowed) expect(problem).toBeUndefined();
    else expect(problem).toEqual(expect.any(String));
  });
});

describe('resolveImport', () => {
  test.each<[string, string, string | undefined]>([
    ['operator/decide/waiting.ts', '../../api/refusal-rules.js', 'api/refusal-rules.ts'],
    ['operator/decide/waiting.ts', './status.js', 'operator/decide/status.ts'],
    ['cli/kube.ts', '../lib/kube/client.js', 'lib/kube/client.ts'],
    // A folder named like a program inside another is not that program.
    ['receiver/adapters/x.ts', '../operator/y.js', 'receiver/operator/y.ts'],
    ['operator/main.ts', 'zod', undefined],
    ['operator/main.ts', 'node:fs', undefined],
    ['operator/main.ts', '@kubernetes/client-node', undefined],
  ])('%s imports %s: %s', (from, specifier, to) => {
    expect(resolveImport(from, specifier)).toBe(to);
  });
});

describe('specifiersOf', () => {
  test('every way a file names a module, and nothing in comments or strings', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      'import {',
      '  c,',
      '  d,',
      "} from './cd.js';",
      "export { e } from './e.js';",
      "export * from './f.js';",
      "import './side-effect.js';",
      "const g = await import('./g.js');",
      "// import { no } from './comment.js';",
      'const s = "from \'./string.js\'";',
    ].join('\n');
    expect(specifiersOf(text).sort()).toEqual(['../b.js', './a.js', './cd.js', './e.js', './f.js', './g.js', './side-effect.js']);
  });
});

describe('violationsUnder', () => {
  test('finds each forbidden import in a tree, and only those', () => {
    const root = mkdtempSync(join(tmpdir(), 'import-map-'));
    try {
      const write = (path: string, text: string) => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      };
      write('api/rule.ts', "import { shortHash } from '../lib/hash.js';\nimport { connect } from '../lib/valkey/connection.js';\n");
      write('lib/hash.ts', "import { createHash } from 'node:crypto';\n");
      write('operator/decide/x.ts', "import { rule } from '../../api/rule.js';\n");
      write('receiver/delivery/y.ts', "import type { HeldJob } from '../../operator/controller/ports.js';\n");
      write('cli/commands/z.ts', "import { runExecCheck } from '../../operator/checks/exec-check.js';\n");
      expect(violationsUnder(root)).toEqual([
        { file: 'api/rule.ts', specifier: '../lib/valkey/connection.js', problem: expect.stringContaining('no I/O') },
        {
          file: 'receiver/delivery/y.ts',
          specifier: '../../operator/controller/ports.js',
          problem: expect.stringContaining('never another program'),
        },
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('the repository keeps to the map', () => {
    expect(violationsUnder(ROOT)).toEqual([]);
  });
});
