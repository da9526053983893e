import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProfileMode, type Profile } from '../../api/profiles.js';
import { mountedScriptPath, ProfileScripts } from './profile-scripts.js';

const exec = (name: string, script: string): [string, Profile] => [name, { name, mode: ProfileMode.Exec, script }];
const profilesOf = (...ps: [string, Profile][]): ReadonlyMap<string, Profile> => new Map(ps);

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'waitgate-profile-scripts-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const modeOf = (p: string) => statSync(p).mode & 0o777;

describe('ProfileScripts', () => {
  test('creates a missing directory with mode 0700', () => {
    const dir = join(root, 'a', 'scripts');
    const s = new ProfileScripts(dir);
    expect(s.dir).toBe(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(modeOf(dir)).toBe(0o700);
  });

  test('narrows an existing directory open to others to 0700', () => {
    const dir = join(root, 'open');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    new ProfileScripts(dir);
    expect(modeOf(dir)).toBe(0o700);
  });

  test('refuses a path that is a file', () => {
    const file = join(root, 'file');
    writeFileSync(file, '');
    expect(() => new ProfileScripts(file)).toThrow();
  });

  test('writes each referenced script once, executable by the owner only, and nothing else', () => {
    const s = new ProfileScripts(join(root, 's'));
    const data = { 'profiles.json': '{}', 'a.sh': '#!/bin/sh\nexit 0\n', 'b.sh': '#!/bin/sh\nexit 3\n', 'unused.sh': '#!/bin/sh\n' };
    const written = s.sync(data, profilesOf(exec('a', 'a.sh'), exec('b', 'b.sh'), exec('b2', 'b.sh')));
    expect(written).toEqual(['a.sh', 'b.sh']);
    expect(readdirSync(s.dir).sort()).toEqual(['a.sh', 'b.sh']);
    expect(readFileSync(s.pathOf('a.sh'), 'utf8')).toBe(data['a.sh']);
    expect(readFileSync(s.pathOf('b.sh'), 'utf8')).toBe(data['b.sh']);
    expect(modeOf(s.pathOf('a.sh'))).toBe(0o700);
    expect(modeOf(s.pathOf('b.sh'))).toBe(0o700);
  });

  test('replaces changed scripts and removes those no longer referenced, temp leftovers included', () => {
    const s = new ProfileScripts(join(root, 's'));
    s.sync({ 'a.sh': 'one', 'b.sh': 'two' }, profilesOf(exec('a', 'a.sh'), exec('b', 'b.sh')));
    const inodeBefore = statSync(s.pathOf('a.sh')).ino;
    writeFileSync(join(s.dir, '.waitgate-tmp-1-deadbeef'), 'half a script');
    writeFileSync(join(s.dir, 'stray'), 'x');

    expect(s.sync({ 'a.sh': 'one, edited' }, profilesOf(exec('a', 'a.sh')))).toEqual(['a.sh']);
    expect(readdirSync(s.dir)).toEqual(['a.sh']);
    expect(readFileSync(s.pathOf('a.sh'), 'utf8')).toBe('one, edited');
    // Replaced by rename, not rewritten in place: a check already running keeps its file.
    expect(statSync(s.pathOf('a.sh')).ino).not.toBe(inodeBefore);
  });

  test('no profiles and no data empties the directory', () => {
    const s = new ProfileScripts(join(root, 's'));
    s.sync({ 'a.sh': 'one' }, profilesOf(exec('a', 'a.sh')));
    expect(s.sync(undefined, new Map())).toEqual([]);
    expect(readdirSync(s.dir)).toEqual([]);
  });

  test('leaves a subdirectory alone', () => {
    const s = new ProfileScripts(join(root, 's'));
    mkdirSync(join(s.dir, 'sub'));
    s.sync({ 'a.sh': 'one' }, profilesOf(exec('a', 'a.sh')));
    expect(readdirSync(s.dir).sort()).toEqual(['a.sh', 'sub']);
  });

  test.each([
    ['a path outside the directory', '../escape.sh'],
    ['an absolute path', '/tmp/escape.sh'],
    ['.', '.'],
    ['..', '..'],
    ['an empty key', ''],
    ['a space', 'a b'],
  ])('refuses %s, writing nothing', (_what, key) => {
    const s = new ProfileScripts(join(root, 's'));
    const data = { [key]: '#!/bin/sh\n', 'ok.sh': '#!/bin/sh\n' };
    expect(() => s.sync(data, profilesOf(exec('ok', 'ok.sh'), exec('bad', key)))).toThrow('is not a safe file name');
    expect(() => s.pathOf(key)).toThrow('is not a safe file name');
    expect(() => mountedScriptPath(root, key)).toThrow('is not a safe file name');
    expect(readdirSync(s.dir)).toEqual([]);
    expect(existsSync(join(root, 'escape.sh'))).toBe(false);
  });

  test('refuses a referenced key missing from data, writing nothing', () => {
    const s = new ProfileScripts(join(root, 's'));
    expect(() => s.sync({ 'ok.sh': 'x' }, profilesOf(exec('ok', 'ok.sh'), exec('gone', 'gone.sh')))).toThrow('"gone.sh" is not in');
    expect(() => s.sync({ 'ok.sh': 'x' }, profilesOf(exec('proto', 'constructor')))).toThrow('"constructor" is not in');
    expect(readdirSync(s.dir)).toEqual([]);
  });

  test('pathOf is absolute and inside the directory', () => {
    const s = new ProfileScripts(join(root, 's'));
    expect(s.pathOf('wait-jira.sh')).toBe(join(root, 's', 'wait-jira.sh'));
  });
});

describe('mountedScriptPath', () => {
  test.each([
    ['/etc/waitgate/profiles', 'wait-jira.sh', '/etc/waitgate/profiles/wait-jira.sh'],
    ['/etc/waitgate/profiles/', '.dotted.sh', '/etc/waitgate/profiles/.dotted.sh'],
  ])('%s + %s', (dir, key, path) => {
    expect(mountedScriptPath(dir, key)).toBe(path);
  });
});
