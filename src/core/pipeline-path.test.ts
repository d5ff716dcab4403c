import { describe, expect, it } from 'vitest';
import { repoFilePathProblem } from './pipeline-path.js';

describe('repository file paths that svc puts into URLs and folders', () => {
  it('accepts plain relative paths', () => {
    for (const path of ['.drone.yml', 'ci/.drone.jsonnet', 'a b/ü.yml', '...yml'])
      expect(repoFilePathProblem(path), path).toBeUndefined();
  });

  it('refuses dot folders, absolute paths, empty folders, backslashes, control characters and long paths', () => {
    expect(repoFilePathProblem('../x')).toMatch(/"\." or "\.\." folder/);
    expect(repoFilePathProblem('ci/./x')).toMatch(/"\." or "\.\." folder/);
    expect(repoFilePathProblem('/x')).toMatch(/starts with "\/"/);
    expect(repoFilePathProblem('a//b')).toMatch(/empty folder name/);
    expect(repoFilePathProblem('a/')).toMatch(/empty folder name/);
    expect(repoFilePathProblem('a\\b')).toMatch(/contains "\\"/);
    expect(repoFilePathProblem('a\nb')).toBe('contains a control character');
    expect(repoFilePathProblem('x'.repeat(256))).toBe('is 256 characters long; expected at most 255');
    expect(repoFilePathProblem('')).toMatch(/^is empty/);
  });
});
