import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushHook, triggerFixture, type TriggerFixture } from './testing.case.js';
import { Trigger } from './trigger.js';

/** A file whose pipelines run by what a push changes (`trigger: paths`, a step's `when: paths`). */
const FILE = `kind: pipeline
name: test
trigger:
  paths:
    exclude: ["docs/**", "*.md"]
steps:
- name: unit
  image: alpine
  commands: [make test]
---
kind: pipeline
name: docs
trigger:
  paths: [docs/**]
steps:
- name: site
  image: alpine
  commands: [make site]
`;

/** Issue 35: path filters on the server, with the GitHub double's compare. */
describe('Trigger: paths conditions', () => {
  let fixture: TriggerFixture;
  let trigger: Trigger;
  let base = '';

  beforeAll(async () => {
    fixture = await triggerFixture();
    trigger = new Trigger(fixture.deps);
    base = fixture.github.commit('octocat/app', 'main', { '.drone.yml': FILE, 'src/a.go': 'a' });
  });
  afterAll(() => fixture.close());

  it('runs only the pipelines whose paths match the push’s changed files, and keeps them with the build', async () => {
    const after = fixture.github.commit('octocat/app', 'main', { 'docs/guide.md': 'words' });
    const result = await trigger.trigger(fixture.repo, pushHook(after, { before: base }));
    if (result.kind !== 'created') throw new Error(`no build: ${result.reason}`);
    expect(result.stages.map((stage) => stage.name)).toEqual(['docs']);
    expect(result.build.changedFiles).toEqual({ files: ['docs/guide.md'], skipped: ['test'] });
    const stored = await fixture.store.builds.findNumber(fixture.repo.id, result.build.number);
    expect(stored?.changedFiles).toEqual({ files: ['docs/guide.md'], skipped: ['test'] });
  });

  it('says why when no pipeline matches the changes, and creates no build', async () => {
    const before = fixture.github.commit('octocat/app', 'main', { 'README.md': 'one' });
    const after = fixture.github.commit('octocat/app', 'main', { 'README.md': 'two' });
    const result = await trigger.trigger(fixture.repo, pushHook(after, { before }));
    expect(result).toMatchObject({ kind: 'skipped' });
    expect(result.kind === 'skipped' ? result.reason : '').toMatch(
      /the paths conditions of test, docs match none of the 1 changed files \(README\.md\)$/,
    );
  });

  it('runs everything, and says why, when the changed files cannot be known', async () => {
    const after = fixture.github.commit('octocat/app', 'main', { 'docs/more.md': 'x' });
    // A new branch (no earlier commit), and a forced push whose earlier commit is gone.
    for (const before of ['0'.repeat(40), 'f'.repeat(40)]) {
      const result = await trigger.trigger(fixture.repo, pushHook(after, { before }));
      if (result.kind !== 'created') throw new Error(`no build: ${result.reason}`);
      expect(result.stages.map((stage) => stage.name).sort()).toEqual(['docs', 'test']);
      expect(result.build.changedFiles?.files).toBeUndefined();
      expect(result.build.changedFiles?.unknown).toMatch(
        before.startsWith('0') ? /created the branch/ : /cannot compare ffffffffffff/,
      );
    }
    const tag = await trigger.trigger(
      fixture.repo,
      pushHook(after, { event: 'tag', ref: 'refs/tags/v1', before: '' }),
    );
    if (tag.kind !== 'created') throw new Error(`no build: ${tag.reason}`);
    expect(tag.build.changedFiles).toEqual({
      unknown: 'a tag build has no changed files to compare',
      skipped: [],
    });
  });
});
