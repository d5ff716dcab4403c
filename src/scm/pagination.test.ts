import { describe, expect, it } from 'vitest';
import { nextLink } from './pagination.js';

describe('nextLink', () => {
  it('finds rel="next" among the relations GitHub sends', () => {
    const header =
      '<https://api.github.com/user/repos?per_page=100&page=1>; rel="prev", ' +
      '<https://api.github.com/user/repos?per_page=100&page=3>; rel="next", ' +
      '<https://api.github.com/user/repos?per_page=100&page=5>; rel="last"';
    expect(nextLink(header)).toBe('https://api.github.com/user/repos?per_page=100&page=3');
  });

  it('accepts unquoted and multi-valued relations', () => {
    expect(nextLink('</a?page=2>; rel=next')).toBe('/a?page=2');
    expect(nextLink('</a?page=2>; title="x"; rel="prev next"')).toBe('/a?page=2');
  });

  it('ends on the last page and without a header', () => {
    expect(
      nextLink(
        '<https://api.github.com/x?page=1>; rel="first", <https://api.github.com/x?page=1>; rel="prev"',
      ),
    ).toBe(undefined);
    expect(nextLink(undefined)).toBeUndefined();
  });
});
