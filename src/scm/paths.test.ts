import { describe, expect, it } from 'vitest';
import { filePath } from './paths.js';

describe('file paths in provider URLs', () => {
  it('never builds a provider URL with a dot segment, escaped or not', () => {
    expect(filePath('ci/.drone.yml')).toBe('ci/.drone.yml');
    expect(filePath('a b/c#d')).toBe('a%20b/c%23d');
    expect(() => filePath('ci/../../user')).toThrow(/has a "\." or "\.\." folder/);
    expect(() => filePath('..')).toThrow(/has a "\." or "\.\." folder/);
    // What a URL parser does with a dot segment, escaped or not: the request would leave the repository.
    expect(new URL('https://api.example/repos/o/r/contents/ci/%2e%2e/%2e%2e/%2e%2e/user').pathname).toBe(
      '/repos/o/user',
    );
  });
});
