import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { Forge } from '../vocabulary.js';
import { MAX_REPOSITORY_LENGTH, parseRepositoryPattern, patternMatches, repositoryAllowed } from './repositories.js';

describe('parseRepositoryPattern: patterns that load', () => {
  test.each<[string, string, object]>([
    ['an exact GitHub name', 'acme/web', { segments: ['acme', 'web'] }],
    ['every repository of an owner', 'acme/*', { segments: ['acme', '*'] }],
    ['a prefix glob', 'acme/web-*', { segments: ['acme', 'web-*'] }],
    ['several stars in a segment', 'acme/*-svc-*', { segments: ['acme', '*-svc-*'] }],
    ['a GitLab nested group', 'group/sub/*', { segments: ['group', 'sub', '*'] }],
    ['every project under a group at any depth', 'group/**', { segments: ['group', '**'] }],
    ['** between segments', 'group/**/web', { segments: ['group', '**', 'web'] }],
    ['dots, underscores and dashes', 'my-org/web.site_2', { segments: ['my-org', 'web.site_2'] }],
    ['capitals, kept without case', 'Acme/Web', { segments: ['acme', 'web'] }],
    ['a github: prefix', 'github:acme/web', { forge: 'github', segments: ['acme', 'web'] }],
    ['a gitlab: prefix', 'gitlab:group/sub/*', { forge: 'gitlab', segments: ['group', 'sub', '*'] }],
    ['github: with **', 'github:acme/**', { forge: 'github', segments: ['acme', '**'] }],
    [
      'the longest a target can name',
      `acme/${'r'.repeat(MAX_REPOSITORY_LENGTH - 5)}`,
      { segments: ['acme', 'r'.repeat(MAX_REPOSITORY_LENGTH - 5)] },
    ],
  ])('%s: %s', (_d, text, pattern) => {
    expect(parseRepositoryPattern(text)).toEqual({ ok: true, pattern });
  });
});

describe('parseRepositoryPattern: patterns refused, and why', () => {
  test.each<[string, string, RegExp]>([
    ['empty', '', /is empty/],
    ['a space inside', 'acme/ web', /white space/],
    ['a trailing space', 'acme/web ', /white space/],
    ['a tab', 'acme/\tweb', /white space/],
    ['a newline', 'acme/web\n', /white space/],
    ['one segment', 'acme', /one segment; name owner\/name .*"acme\/\*"/],
    ['a lone star', '*', /one segment/],
    ['a leading slash', '/acme/web', /empty segment/],
    ['a trailing slash', 'acme/web/', /empty segment/],
    ['a doubled slash', 'acme//web', /empty segment/],
    ['a question mark', 'acme/we?', /contains "\?".*only wildcards are \*/],
    ['a character class', 'acme/[wa]eb', /contains "\["/],
    ['braces', 'acme/{web,api}', /contains "\{"/],
    ['a negation', '!acme/web', /contains "!"/],
    ['a backslash', 'acme\\web', /contains "\\\\"/],
    ['a URL', 'https://github.com/acme/web', /forge "https"/],
    ['a colon inside', 'acme/we:b', /contains ":"/],
    ['an unknown forge', 'bitbucket:acme/web', /forge "bitbucket"; a prefix is one of github:, gitlab:/],
    ['a capitalised forge', 'GitHub:acme/web', /forge "GitHub"/],
    ['a forge and nothing else', 'github:', /names no repository after github:/],
    ['a forge and one segment', 'gitlab:group', /one segment.*"gitlab:group\/\*"/],
    ['a dot segment', 'acme/./web', /segment "\."/],
    ['a dot-dot segment', 'acme/../web', /segment "\.\."/],
    ['** inside a segment', 'acme/web**', /\*\* inside the segment "web\*\*"/],
    ['*** as a segment', 'acme/***', /\*\* inside the segment/],
    ['a wildcard owner', '*/web', /first segment, the owner/],
    ['a partial wildcard owner', 'acme-*/web', /first segment/],
    ['** as the owner', '**/web', /first segment/],
    ['three fixed segments on GitHub', 'github:acme/web/x', /more segments than a GitHub repository/],
    ['longer than any target', `acme/${'r'.repeat(MAX_REPOSITORY_LENGTH)}`, /longer than 254 characters/],
  ])('%s: %j', (_d, text, why) => {
    const r = parseRepositoryPattern(text);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problem).toMatch(why);
      expect(r.problem).not.toMatch(/\n/);
    }
  });
});

describe('patternMatches', () => {
  const rows: [pattern: string, forge: Forge, repository: string, matches: boolean][] = [
    // exact names
    ['acme/web', 'github', 'acme/web', true],
    ['acme/web', 'github', 'acme/api', false],
    ['acme/web', 'github', 'acme/web2', false],
    ['acme/web', 'github', 'acme/we', false],
    ['acme/web', 'github', 'other/web', false],
    ['acme/web', 'github', 'acme-x/web', false],
    // case: ignored on both forges
    ['acme/web', 'github', 'Acme/Web', true],
    ['Acme/Web', 'github', 'acme/web', true],
    ['Group/Sub/Proj', 'gitlab', 'group/sub/proj', true],
    ['group/sub/proj', 'gitlab', 'GROUP/sub/Proj', true],
    // * within one segment
    ['acme/*', 'github', 'acme/web', true],
    ['acme/*', 'github', 'acme/a', true],
    ['acme/*', 'github', 'other/web', false],
    ['acme/*', 'gitlab', 'acme/sub/web', false],
    ['acme/web-*', 'github', 'acme/web-api', true],
    ['acme/web-*', 'github', 'acme/web-', true],
    ['acme/web-*', 'github', 'acme/web', false],
    ['acme/*-svc', 'github', 'acme/pay-svc', true],
    ['acme/*-svc', 'github', 'acme/pay-svc-old', false],
    ['acme/*-svc-*', 'github', 'acme/a-svc-b', true],
    ['acme/*-svc-*', 'github', 'acme/a-svc', false],
    ['acme/*a*a*', 'github', 'acme/banana', true],
    ['acme/*a*a*a*a', 'github', 'acme/banana', false],
    ['acme/w*b', 'github', 'acme/wb', true],
    // GitLab nested groups
    ['group/sub/*', 'gitlab', 'group/sub/repo', true],
    ['group/sub/*', 'gitlab', 'group/sub/deeper/repo', false],
    ['group/sub/*', 'gitlab', 'group/other/repo', false],
    ['group/sub/*', 'gitlab', 'group/repo', false],
    ['group/*/repo', 'gitlab', 'group/sub/repo', true],
    ['group/*/repo', 'gitlab', 'group/a/b/repo', false],
    // ** across segments, none included
    ['group/**', 'gitlab', 'group/repo', true],
    ['group/**', 'gitlab', 'group/sub/deeper/repo', true],
    ['group/**', 'gitlab', 'groupie/repo', false],
    ['group/**', 'github', 'group/web', true],
    ['group/**/web', 'gitlab', 'group/web', true],
    ['group/**/web', 'gitlab', 'group/a/b/web', true],
    ['group/**/web', 'gitlab', 'group/a/b/web2', false],
    ['group/**/sub/*', 'gitlab', 'group/x/sub/repo', true],
    ['group/**/sub/*', 'gitlab', 'group/x/sub', false],
    ['group/**/**', 'gitlab', 'group/a/b', true],
    // a forge prefix limits the pattern to that forge
    ['github:acme/web', 'github', 'acme/web', true],
    ['github:acme/web', 'gitlab', 'acme/web', false],
    ['gitlab:acme/web', 'github', 'acme/web', false],
    ['gitlab:acme/*', 'gitlab', 'acme/web', true],
  ];
  test.each(rows)('%s on %s, %s → %s', (text, forge, repository, matches) => {
    const parsed = parseRepositoryPattern(text);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(patternMatches(parsed.pattern, forge, repository)).toBe(matches);
  });
});

describe('repositoryAllowed', () => {
  test.each<[string, readonly string[] | undefined, Forge, string, boolean]>([
    ['no on.repositories: every repository', undefined, 'github', 'anyone/anything', true],
    ['no on.repositories, on GitLab too', undefined, 'gitlab', 'g/s/p', true],
    ['one of several patterns', ['acme/api', 'acme/web'], 'github', 'acme/web', true],
    ['none of several patterns', ['acme/api', 'acme/web'], 'github', 'acme/docs', false],
    ['a glob among names', ['acme/api', 'tools/*'], 'github', 'tools/lint', true],
    ['a pattern for the other forge only', ['gitlab:acme/web'], 'github', 'acme/web', false],
    ['a pattern that does not parse matches nothing', ['acme/we?'], 'github', 'acme/web', false],
    ['an empty list matches nothing', [], 'github', 'acme/web', false],
  ])('%s', (_d, patterns, forge, repository, allowed) => {
    expect(repositoryAllowed(patterns, forge, repository)).toBe(allowed);
  });

  test('a long repository against a pattern of many stars stays quick', () => {
    const started = process.hrtime.bigint();
    const long = `acme/${'a'.repeat(MAX_REPOSITORY_LENGTH - 5)}`;
    expect(repositoryAllowed([`acme/${'*a'.repeat(60)}b`], 'github', long)).toBe(false);
    expect(repositoryAllowed([`acme/${'**/'.repeat(40)}z`], 'gitlab', `acme/${'x/'.repeat(100)}y`)).toBe(false);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(500);
  });
});

describe('the matcher against a reference built from regular expressions', () => {
  /** The grammar read as a regular expression: * is [^/]*, a ** segment any number of /segments. */
  function reference(text: string, forge: Forge, repository: string): boolean {
    const prefixed = /^(github|gitlab):(.*)$/.exec(text);
    if (prefixed && prefixed[1] !== forge) return false;
    const [first, ...rest] = (prefixed ? (prefixed[2] as string) : text).split('/');
    const body = rest.map((seg) => (seg === '**' ? '(?:/[^/]+)*' : `/${seg.replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}`)).join('');
    return new RegExp(`^${(first as string).replace(/\./g, '\\.')}${body}$`, 'i').test(repository);
  }
  const char = fc.constantFrom('a', 'b', 'A', '.', '-', '_', '1');
  const name = fc
    .array(char, { minLength: 1, maxLength: 4 })
    .map((c) => c.join(''))
    .filter((n) => n !== '.' && n !== '..');
  const segPattern = fc.oneof(
    { weight: 4, arbitrary: name },
    fc.constant('*'),
    fc.constant('**'),
    fc.tuple(name, name).map(([a, b]) => `${a}*${b}`),
    name.map((a) => `*${a}*`),
  );
  const pattern = fc
    .tuple(fc.constantFrom('', 'github:', 'gitlab:'), name, fc.array(segPattern, { minLength: 1, maxLength: 4 }))
    .map(([prefix, owner, segs]) => `${prefix}${owner}/${segs.join('/')}`)
    .filter((text) => parseRepositoryPattern(text).ok);
  const repository = fc.array(name, { minLength: 2, maxLength: 5 }).map((segs) => segs.join('/'));

  test('agree on random patterns and repositories (5,000 runs, both answers reached)', () => {
    const answers = { true: 0, false: 0 };
    // A repository near the pattern: its literal segments, with each wildcard filled in.
    const near = (text: string) =>
      fc.array(name, { minLength: 0, maxLength: 2 }).map((fill) =>
        text
          .replace(/^git(hub|lab):/, '')
          .replace(/\*\*/g, fill.join('/') || 'x')
          .replace(/\*/g, fill[0] ?? ''),
      );
    fc.assert(
      fc.property(
        pattern.chain((text) => fc.tuple(fc.constant(text), fc.constantFrom<Forge>('github', 'gitlab'), fc.oneof(repository, near(text)))),
        ([text, forge, repo]) => {
          const parsed = parseRepositoryPattern(text);
          if (!parsed.ok) return;
          const matched = patternMatches(parsed.pattern, forge, repo);
          answers[`${matched}`]++;
          expect(matched).toBe(reference(text, forge, repo));
        },
      ),
      { numRuns: 5_000 },
    );
    expect(answers.true).toBeGreaterThan(500);
    expect(answers.false).toBeGreaterThan(500);
  });

  test('a repository written out as a pattern matches itself, in any case, and a sibling does not (1,000 runs)', () => {
    fc.assert(
      fc.property(repository, (repo) => {
        expect(repositoryAllowed([repo], 'gitlab', repo)).toBe(true);
        expect(repositoryAllowed([repo.toUpperCase()], 'gitlab', repo.toLowerCase())).toBe(true);
        expect(repositoryAllowed([repo], 'gitlab', `${repo}x`)).toBe(false);
        expect(repositoryAllowed([repo], 'gitlab', `${repo}/x`)).toBe(false);
      }),
      { numRuns: 1_000 },
    );
  });
});
