import { describe, expect, it } from 'vitest';
import { lintText } from '../lint/lint.js';
import { parseManifest } from '../parse.js';
import type { Pipeline } from '../types.js';
import { matchConditions, matchPaths, type MatchFacts } from './conditions.js';

const condition = (include: string[], exclude: string[] = []) => ({ include, exclude });

describe('matchPaths (the drone-convert-pathschanged plugin’s reading)', () => {
  const changed = ['docs/guide.md', 'README.md', 'src/app/main.go'];

  it('holds when some changed file matches an include and no exclude', () => {
    expect(matchPaths(condition(['src/**']), changed)).toBe(true);
    expect(matchPaths(condition(['**/*.md']), changed)).toBe(true);
    expect(matchPaths(condition(['web/**']), changed)).toBe(false);
    expect(matchPaths(condition(['src/**'], ['src/app/*.go']), changed)).toBe(false);
  });

  it('with excludes alone, holds when some changed file is not excluded', () => {
    expect(matchPaths(condition([], ['docs/**', '*.md']), changed)).toBe(true);
    expect(matchPaths(condition([], ['docs/**', '*.md']), ['docs/a.md', 'README.md'])).toBe(false);
  });

  it('holds without patterns, and when the changed files are not known; a known empty list holds none', () => {
    expect(matchPaths(condition([]), [])).toBe(true);
    expect(matchPaths(condition(['src/**']), undefined)).toBe(true);
    expect(matchPaths(condition(['src/**']), [])).toBe(false);
  });

  it('is part of a trigger’s or a step’s conditions', () => {
    const pipeline = parseManifest(`kind: pipeline
name: default
trigger:
  branch: [main]
  paths:
    include: [src/**]
    exclude: ["**/*_test.go"]
steps:
- name: docs
  image: alpine
  commands: [make docs]
  when:
    path: [docs/**]
`).manifest.documents[0] as Pipeline;
    const facts = (files?: string[]): MatchFacts => ({
      branch: 'main',
      event: 'push',
      ref: 'refs/heads/main',
      repo: 'o/r',
      instance: 'ci',
      target: '',
      cron: '',
      action: '',
      ...(files === undefined ? {} : { changedFiles: files }),
    });
    expect(matchConditions(pipeline.trigger, facts(['src/a.go']))).toBe(true);
    expect(matchConditions(pipeline.trigger, facts(['src/a_test.go']))).toBe(false);
    expect(matchConditions(pipeline.trigger, facts())).toBe(true);
    // Woodpecker's `path:` is read as `paths:`.
    expect(pipeline.steps[0]?.when.paths).toEqual(condition(['docs/**']));
    expect(matchConditions(pipeline.steps[0]?.when ?? pipeline.trigger, facts(['src/a.go']))).toBe(false);
  });

  it('refuses path and paths in one section', () => {
    const text = 'kind: pipeline\nname: default\ntrigger:\n  paths: [a/**]\n  path: [b/**]\nsteps: []\n';
    expect(
      lintText(text, { trusted: false }).diagnostics.map((d) => `${d.line}:${d.column} ${d.message}`),
    ).toContain('5:3 is Woodpecker’s spelling of paths, which this section has too; expected one of them');
  });
});
