import { describe, expect, it } from 'vitest';
import { globMatch, globToRegExp } from './glob.js';

describe('globMatch', () => {
  it.each([
    // `*` stays within a segment
    ['feature/*', 'feature/login', true],
    ['feature/*', 'feature/login/form', false],
    ['feature/*', 'feature/', true],
    ['*', 'main', true],
    ['*', 'release/1.0', false],
    ['*', '', true],
    // `**` spans segments, none included
    ['refs/heads/**', 'refs/heads/main', true],
    ['refs/heads/**', 'refs/heads/feature/a/b', true],
    ['refs/heads/**', 'refs/heads', true],
    ['refs/heads/**', 'refs/tags/v1', false],
    ['**/docs', 'docs', true],
    ['**/docs', 'a/b/docs', true],
    ['a/**/b', 'a/b', true],
    ['a/**/b', 'a/x/y/b', true],
    ['a/**/b', 'a/x/y/c', false],
    ['**', 'anything/at/all', true],
    // `**` inside a segment is a plain `*`
    ['feat**', 'feature', true],
    ['feat**', 'feature/x', false],
    // one character, classes, alternatives, escapes
    ['v?', 'v1', true],
    ['v?', 'v10', false],
    ['refs/pull/*/head', 'refs/pull/42/head', true],
    ['release-[0-9]', 'release-7', true],
    ['release-[0-9]', 'release-x', false],
    ['release-[!0-9]', 'release-x', true],
    ['release-[^0-9]', 'release-7', false],
    ['{main,develop}', 'develop', true],
    ['{main,develop}', 'feature', false],
    ['{release/*,hotfix-*}', 'release/2.0', true],
    ['\\*', '*', true],
    ['\\*', 'a', false],
    // everything else is literal, including regular-expression characters
    ['v1.0', 'v1x0', false],
    ['a+b', 'a+b', true],
    ['(x)', '(x)', true],
    ['refs/tags/v$', 'refs/tags/v$', true],
  ])('%j matches %j: %s', (pattern, value, expected) => {
    expect(globMatch(pattern, value)).toBe(expected);
  });

  it('treats an unclosed class or brace as literal text', () => {
    expect(globMatch('a[b', 'a[b')).toBe(true);
    expect(globMatch('a{b', 'a{b')).toBe(true);
  });

  it('matches nothing with a pattern that cannot be read', () => {
    expect(globToRegExp('[z-a]')).toBeUndefined();
    expect(globMatch('[z-a]', 'z')).toBe(false);
  });
});
