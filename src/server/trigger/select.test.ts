import { describe, expect, it } from 'vitest';
import { matchFacts, parseManifest, type Pipeline } from '../../pipeline/index.js';
import { selectPipelines } from './select.js';

function pipelines(...docs: { name: string; dependsOn?: string[]; branch?: string }[]): Pipeline[] {
  const text = docs
    .map((doc) =>
      [
        'kind: pipeline',
        `name: ${doc.name}`,
        doc.dependsOn === undefined ? '' : `depends_on: [${doc.dependsOn.join(', ')}]`,
        doc.branch === undefined ? '' : `trigger:\n  branch: [${doc.branch}]`,
        'steps:\n- name: s\n  image: alpine\n  commands: [true]',
      ].join('\n'),
    )
    .join('\n---\n');
  return parseManifest(text).manifest.documents.filter((d): d is Pipeline => d.kind === 'pipeline');
}

const onMain = matchFacts(
  { slug: 'o/r' },
  { target: 'main', event: 'push', ref: 'refs/heads/main', deployTo: '', cron: '', action: '' },
  'ci',
);

const chosen = (list: Pipeline[]) => selectPipelines(list, onMain).map((s) => [s.pipeline.name, s.dependsOn]);

describe('selectPipelines', () => {
  it('keeps the pipelines whose trigger matches, in file order', () => {
    expect(chosen(pipelines({ name: 'a' }, { name: 'b', branch: 'release' }, { name: 'c' }))).toEqual([
      ['a', []],
      ['c', []],
    ]);
  });

  it('rewires a dependency on a pipeline left out to that pipeline’s own dependencies, as Drone does', () => {
    const list = pipelines(
      { name: 'a' },
      { name: 'b', dependsOn: ['a'], branch: 'release' },
      { name: 'c', dependsOn: ['b'] },
    );
    expect(chosen(list)).toEqual([
      ['a', []],
      ['c', ['a']],
    ]);
  });

  it('lets a pipeline start at once when every ancestor was left out', () => {
    const list = pipelines(
      { name: 'a', branch: 'release' },
      { name: 'b', dependsOn: ['a'], branch: 'release' },
      { name: 'c', dependsOn: ['b'] },
    );
    expect(chosen(list)).toEqual([['c', []]]);
  });

  it('names a dependency reached along several paths once', () => {
    const list = pipelines(
      { name: 'a' },
      { name: 'b', dependsOn: ['a'], branch: 'release' },
      { name: 'c', dependsOn: ['a'], branch: 'release' },
      { name: 'd', dependsOn: ['b', 'c', 'a'] },
    );
    expect(chosen(list)).toEqual([
      ['a', []],
      ['d', ['a']],
    ]);
  });
});
