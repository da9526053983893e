import { describe, expect, test } from '@jest/globals';
import { parse } from 'acorn';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { enginesNode, nodeVersionProblem, satisfiesRange } from './node-version.js';

const PACKAGE_JSON = new URL('../package.json', import.meta.url);

describe('satisfiesRange', () => {
  test.each([
    // version, range, satisfied
    ['20.20.2', '>=22.19', false],
    ['22.18.9', '>=22.19', false],
    ['22.19.0', '>=22.19', true],
    ['22.19.1', '>=22.19', true],
    ['24.11.0', '>=22.19', true],
    ['v24.11.0', '>=22.19', true],
    ['18.0.0', '>=22.19.0', false],
    ['22.19.0', '>=22.19.0', true],
    ['100.0.0', '>=22.19.0', true],
    ['22.19.0', '>= 22.19', true],
    // A prerelease counts just below its release.
    ['22.19.0-pre', '>=22.19', false],
    ['22.19.0-rc.1', '>=22.19.0', false],
    ['22.19.1-pre', '>=22.19', true],
    ['25.0.0-nightly20260101abcdef', '>=22.19', true],
    ['24.0.0+build.5', '>=22.19', true],
    // Every comparator, and several of them at once.
    ['22.19.0', '>22.19.0', false],
    ['22.19.1', '>22.19.0', true],
    ['22.19.0', '<22.19.0', false],
    ['22.18.0', '<22.19', true],
    ['22.19.0', '<=22.19.0', true],
    ['22.19.1', '<=22.19.0', false],
    ['22.19.0', '=22.19.0', true],
    ['22.19.0', '22.19.0', true],
    ['22.19.1', '22.19.0', false],
    ['22.20.0', '>=22.19 <23', true],
    ['23.0.0', '>=22.19 <23', false],
    // Alternatives.
    ['20.19.0', '>=20.19.0 <21 || >=22.12.0', true],
    ['21.0.0', '>=20.19.0 <21 || >=22.12.0', false],
    ['22.12.0', '>=20.19.0 <21 || >=22.12.0', true],
  ])('%s against %s: %s', (version, range, satisfied) => {
    expect(satisfiesRange(version, range)).toBe(satisfied);
  });

  test.each([
    // version, range: what this check does not read is undefined, never a refusal
    ['20.20.2', '^22.19.0'],
    ['20.20.2', '~22.19.0'],
    ['20.20.2', '22.x'],
    ['20.20.2', '*'],
    ['20.20.2', ''],
    ['20.20.2', '>=22.19 ||'],
    ['20.20.2', '>22'],
    ['20.20.2', '<=22.19'],
    ['20.20.2', '=22'],
    ['not-a-version', '>=22.19'],
    ['', '>=22.19'],
  ])('%j against %j cannot be read', (version, range) => {
    expect(satisfiesRange(version, range)).toBeUndefined();
  });
});

describe('nodeVersionProblem', () => {
  test.each([
    ['20.20.2', '>=22.19', 'waitgate: needs Node.js >=22.19 (this is v20.20.2); install a newer Node.js'],
    ['18.20.8', ' >=22.19.0 ', 'waitgate: needs Node.js >=22.19.0 (this is v18.20.8); install a newer Node.js'],
    ['22.19.0-pre', '>=22.19', 'waitgate: needs Node.js >=22.19 (this is v22.19.0-pre); install a newer Node.js'],
    ['22.19.0', '>=22.19', undefined],
    ['24.11.0', '>=22.19', undefined],
    // A range it cannot read lets the Node.js through.
    ['20.20.2', '^22.19.0', undefined],
  ])('%s against %j: %j', (version, range, problem) => {
    expect(nodeVersionProblem(version, range)).toBe(problem);
  });
});

describe("the project's own engines.node", () => {
  test('is a range this check reads, refusing Node.js 20 and taking the pinned Node.js', () => {
    const range = enginesNode(PACKAGE_JSON);
    expect(range).toEqual(expect.any(String));
    expect(satisfiesRange('20.20.2', range as string)).toBe(false);
    expect(satisfiesRange(process.versions.node, range as string)).toBe(true);
  });

  test('a package.json without one, or no file at all, gives undefined', () => {
    expect(enginesNode(new URL('./no-such-package.json', import.meta.url))).toBeUndefined();
    expect(enginesNode(new URL('../tsconfig.json', import.meta.url))).toBeUndefined();
  });
});

describe('what an older Node.js loads parses as ES2020', () => {
  /** acorn (eslint's parser underneath) at ES2020 refuses top-level await, class fields, `??=` and newer. */
  const parsesAsEs2020 = (code: string) => () => parse(code, { ecmaVersion: 2020, sourceType: 'module' });

  test.each(['../bin/waitgate.js', '../bin/kubectl_complete-waitgate.js'])('%s', (path) => {
    const code = readFileSync(new URL(path, import.meta.url), 'utf8').replace(/^#!.*\n/, '');
    expect(parsesAsEs2020(code)).not.toThrow();
  });

  test('cli/node-version.ts as the build emits it', () => {
    const tsconfig = ts.readConfigFile(new URL('../tsconfig.json', import.meta.url).pathname, (p) => ts.sys.readFile(p)).config as {
      compilerOptions: object;
    };
    const { options } = ts.convertCompilerOptionsFromJson(tsconfig.compilerOptions, '.');
    const source = readFileSync(new URL('./node-version.ts', import.meta.url), 'utf8');
    // The build emits ES modules (package.json's "type": "module"); transpileModule alone cannot tell.
    const { outputText } = ts.transpileModule(source, { compilerOptions: { ...options, module: ts.ModuleKind.ES2022 } });
    expect(outputText).toMatch(/export function nodeVersionOk/);
    expect(parsesAsEs2020(outputText)).not.toThrow();
  });

  test('the check itself can fail: top-level await is refused', () => {
    expect(parsesAsEs2020('await import("./x.js");')).toThrow();
  });
});
