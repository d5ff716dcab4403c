import { describe, expect, it } from 'vitest';
import { lintSubstituted, lintText } from '../lint/lint.js';
import { substitutionLookup } from '../substitute.js';
import type { Pipeline } from '../types.js';
import { matrixAxes } from './axes.js';

const MATRIX = `kind: pipeline
type: docker
name: test
matrix:
  GO: ["1.21", "1.22"]
  DB: [mysql, postgres]
  include:
  - {GO: "1.23", DB: sqlite}
steps:
- name: test
  image: golang:\${GO}
  environment:
    DB_\${DB^^}: "yes"
  commands:
  - echo "go \${GO} on \${DB} for \${DRONE_BRANCH}, $\${HOME} \${GO/./_}"
---
kind: pipeline
type: docker
name: after
depends_on: [test]
steps:
- name: report
  image: alpine
  commands: [echo done]
`;

function pipelines(text: string, variables: Record<string, string> = {}) {
  const linted = lintSubstituted(text, substitutionLookup(variables), { trusted: false });
  const found = linted.manifest.documents.filter((d): d is Pipeline => d.kind === 'pipeline');
  return { linted, found, byName: new Map(found.map((p) => [p.name, p])) };
}

function messages(text: string): string[] {
  return lintText(text, { trusted: false }).diagnostics.map(
    (d) => `${d.line}:${d.column} ${d.severity} ${d.field}: ${d.message}`,
  );
}

describe('matrix:', () => {
  it('expands into a pipeline per combination, the axes’ product then include, named after the values', () => {
    const { linted, found } = pipelines(MATRIX, { DRONE_BRANCH: 'main' });
    expect(linted.diagnostics).toEqual([]);
    expect(found.map((p) => p.name)).toEqual([
      'test (GO=1.21, DB=mysql)',
      'test (GO=1.21, DB=postgres)',
      'test (GO=1.22, DB=mysql)',
      'test (GO=1.22, DB=postgres)',
      'test (GO=1.23, DB=sqlite)',
      'after',
    ]);
    expect(found[4]?.matrix).toEqual([
      ['GO', '1.23'],
      ['DB', 'sqlite'],
    ]);
  });

  it('substitutes the axes as build variables are (operations too), and leaves everything else as the build left it', () => {
    const { byName } = pipelines(MATRIX, { DRONE_BRANCH: 'main' });
    const step = byName.get('test (GO=1.22, DB=postgres)')?.steps[0];
    expect(step?.image).toBe('golang:1.22');
    expect(Object.keys(step?.environment ?? {})).toEqual(['DB_POSTGRES']);
    // The build's variable is the build's; $${HOME} is the shell's, written once as ${HOME}.
    expect(step?.commands).toEqual(['echo "go 1.22 on postgres for main, ${HOME} 1_22"']);
  });

  it('makes depends_on that names the matrix pipeline wait for every combination; one can be named alone', () => {
    const { byName } = pipelines(MATRIX);
    expect(byName.get('after')?.dependsOn).toHaveLength(5);
    const one = MATRIX.replace('depends_on: [test]', 'depends_on: ["test (GO=1.21, DB=mysql)"]');
    expect(pipelines(one).byName.get('after')?.dependsOn).toEqual(['test (GO=1.21, DB=mysql)']);
    expect(messages(one)).toEqual([]);
  });

  it('refuses more than 256 combinations, bad axes and empty lists, saying where', () => {
    const big = MATRIX.replace(
      '  DB: [mysql, postgres]',
      '  DB: [mysql, postgres]\n  A: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n  B: [1, 2, 3, 4, 5, 6, 7]',
    );
    expect(messages(big)).toContain(
      '5:3 error matrix: makes 281 combinations; expected at most 256 (split the pipeline, or list the combinations you need under include)',
    );
    expect(messages(MATRIX.replace('  DB: [mysql, postgres]', '  DB: []'))[0]).toMatch(
      /^6:7 error matrix\.DB: expected a non-empty list of values/,
    );
    expect(messages(MATRIX.replace('  DB: [mysql, postgres]', '  "D B": [x]'))[0]).toMatch(
      /^6:3 error matrix\.D B: "D B" cannot be an axis/,
    );
    expect(messages(MATRIX.replace(/ {2}include:\n.*\n/, '  include: yes\n'))[0]).toMatch(
      /^7:12 error matrix\.include: expected a list of combinations/,
    );
  });

  it('reports a problem every combination has once, at its place in the file', () => {
    const wrong = MATRIX.replace('  image: golang:${GO}', '  image: golang:${GO}\n  retry: lots');
    const found = messages(wrong).filter((m) => m.includes('retry'));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^12:10 error steps\[0\]\.retry: /);
  });

  it('keeps a matrix’s ${AXIS} through the build variables’ pass, and the structure check, in a file that uses both', () => {
    expect([...matrixAxes(MATRIX)].sort()).toEqual(['DB', 'GO']);
    expect(matrixAxes('kind: pipeline\nname: x\nsteps: []\n').size).toBe(0);
    // A branch name that would change the structure elsewhere is still refused.
    const flow = MATRIX.replace(
      '  image: golang:${GO}',
      '  image: golang:${GO}\n  labels: {a: ${DRONE_BRANCH}}',
    );
    expect(pipelines(flow, { DRONE_BRANCH: 'b, privileged: true' }).linted.diagnostics[0]?.message).toMatch(
      /change the structure/,
    );
  });

  it('never drops a combination over what a build variable brings in: an unreadable ${ is an error at its place', () => {
    const { linted, found } = pipelines(MATRIX, { DRONE_BRANCH: 'fix ${oops' });
    expect(linted.valid).toBe(false);
    expect(linted.diagnostics[0]).toMatchObject({ severity: 'error', line: 15 });
    expect(linted.diagnostics[0]?.message).toMatch(/in a matrix pipeline, where \$\{…\} names its axes/);
    // The pipelines that could be read are still there, the build errs rather than skips.
    expect(found.map((p) => p.name)).toContain('after');
  });

  it('refuses a matrix whose combinations would hold too many values (an attack on memory)', () => {
    const steps = Array.from(
      { length: 400 },
      (_, i) => `- name: s${i}\n  image: alpine\n  commands: [a, b, c, d, e, f, g, h, i, j]`,
    );
    const big = `kind: pipeline\nname: big\nmatrix:\n  A: [${Array.from({ length: 16 }, (_, i) => i).join(', ')}]\n  B: [${Array.from({ length: 16 }, (_, i) => i).join(', ')}]\nsteps:\n${steps.join('\n')}\n`;
    const linted = lintText(big, { trusted: false });
    expect(linted.valid).toBe(false);
    expect(linted.diagnostics.map((d) => d.message).join('\n')).toMatch(
      /256 combinations of a pipeline of \d+ values make more than 100000 values/,
    );
  });
});
