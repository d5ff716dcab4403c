import { LineCounter, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { Diagnostics } from '../diagnostics.js';
import { buildTree, type TreeMap, type TreeNode } from './tree.js';

function tree(text: string): { tree: TreeNode | undefined; diagnostics: Diagnostics } {
  const lineCounter = new LineCounter();
  const [doc] = parseAllDocuments(text, { lineCounter, version: '1.1', uniqueKeys: false });
  const diagnostics = new Diagnostics();
  if (doc === undefined) throw new Error('no document');
  return { tree: buildTree(doc, lineCounter, diagnostics), diagnostics };
}

function entries(node: TreeNode | undefined): Record<string, TreeNode> {
  if (node?.kind !== 'map') throw new Error(`expected a map, found ${node?.kind}`);
  return Object.fromEntries(node.entries.map((entry) => [entry.key, entry.value]));
}

function texts(node: TreeNode | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(entries(node)).map(([key, value]) => [
      key,
      value.kind === 'scalar' ? value.text : value.kind,
    ]),
  );
}

describe('buildTree', () => {
  it('keeps scalars as written next to their YAML 1.1 values', () => {
    const { tree: node } = tree('a: 1.10\nb: yes\nc: "1.10"\nd: 010\ne: 2024-01-02\nf:\ng: ~\n');
    expect(texts(node)).toEqual({ a: '1.10', b: 'yes', c: '1.10', d: '010', e: '2024-01-02', f: '', g: '' });
    const values = entries(node);
    expect(values.a).toMatchObject({ value: 1.1 });
    expect(values.b).toMatchObject({ value: true });
    expect(values.d).toMatchObject({ value: 8 });
    expect(values.f).toMatchObject({ value: null });
  });

  it('keeps keys as written, even those YAML 1.1 reads as booleans', () => {
    expect(Object.keys(entries(tree('y: 1\non: 2\n"quoted key": 3\n').tree))).toEqual([
      'y',
      'on',
      'quoted key',
    ]);
  });

  it('records 1-based positions of keys and values', () => {
    const { tree: node } = tree('kind: pipeline\nsteps:\n  - name: a\n');
    const map = node as TreeMap;
    expect(map.entries[1]?.keyPosition).toEqual({ line: 2, column: 1 });
    const steps = map.entries[1]?.value;
    expect(steps?.kind === 'seq' ? steps.items[0]?.position : undefined).toEqual({ line: 3, column: 5 });
  });

  it('resolves aliases to their anchors', () => {
    const { tree: node } = tree('base: &b {image: alpine}\nstep: *b\n');
    expect(texts(entries(node).step)).toEqual({ image: 'alpine' });
  });

  it('applies merge keys: explicit keys win, then the first merged map', () => {
    const text = [
      'a: &a {image: alpine, pull: always, user: root}',
      'b: &b {image: golang, shell: bash}',
      'step:',
      '  name: build',
      '  <<: [*a, *b]',
      '  user: app',
    ].join('\n');
    const step = entries(tree(text).tree).step;
    expect(texts(step)).toEqual({
      name: 'build',
      image: 'alpine',
      pull: 'always',
      shell: 'bash',
      user: 'app',
    });
  });

  it('reports a duplicate key with the lines of both', () => {
    const { tree: node, diagnostics } = tree('name: a\nimage: x\nname: b\n');
    expect(texts(node)).toEqual({ name: 'a', image: 'x' });
    expect(diagnostics.list()).toEqual([
      {
        severity: 'error',
        line: 3,
        column: 1,
        field: 'name',
        message:
          'duplicate key: "name" is defined at line 1, column 1 and again at line 3, column 1; expected each key once per map',
      },
    ]);
  });

  it('does not count a key merged in and then set as a duplicate', () => {
    const { diagnostics } = tree('d: &d {image: a}\ns:\n  <<: *d\n  image: b\n');
    expect(diagnostics.list()).toEqual([]);
  });

  it('refuses a merge of something other than maps', () => {
    const { diagnostics } = tree('n: &n text\ns:\n  <<: *n\n');
    expect(diagnostics.list()).toEqual([
      expect.objectContaining({ severity: 'error', line: 3, column: 3, field: 's' }),
    ]);
    expect(diagnostics.list()[0]?.message).toContain('the merge key << takes maps');
  });

  it('refuses an alias inside its own anchor instead of looping', () => {
    const { diagnostics } = tree('a: &x\n  - *x\n');
    expect(diagnostics.list()[0]?.message).toContain('refers to a node that contains it');
  });

  it('refuses documents that aliases blow up past the limit', () => {
    const levels = ['l0: &l0 [x]'];
    for (let level = 1; level <= 6; level++) {
      levels.push(`l${level}: &l${level} [${Array.from({ length: 10 }, () => `*l${level - 1}`).join(', ')}]`);
    }
    const { tree: node, diagnostics } = tree(levels.join('\n'));
    expect(node).toBeUndefined();
    expect(diagnostics.list()[0]?.message).toContain('expands to more than 100000 values');
  });

  it('returns nothing for an empty document', () => {
    expect(tree('---\n# only a comment\n---\nkind: pipeline\n').tree).toBeUndefined();
  });
});
