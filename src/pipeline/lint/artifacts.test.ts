import { describe, expect, it } from 'vitest';
import { lintText } from './lint.js';

/** The diagnostics of a file as `line:column severity field: message`. */
function lint(text: string): string[] {
  return lintText(text, { trusted: false }).diagnostics.map(
    (d) => `${d.line}:${d.column} ${d.severity} ${d.field}: ${d.message}`,
  );
}

describe('artifacts: names within a pipeline', () => {
  it('reports two steps whose artifacts have one name, written or taken from the step', () => {
    const text = `kind: pipeline
steps:
- name: linux
  image: golang
  artifacts: { name: binaries, paths: [dist/linux/**] }
- name: darwin
  image: golang
  artifacts: { name: binaries, paths: [dist/darwin/**] }
- name: docs
  image: golang
  artifacts: { paths: [site/**] }
- name: site
  image: golang
  artifacts: { name: docs, paths: [site/**] }
- name: other
  image: golang
  artifacts: { name: other-docs, paths: [site/**] }
`;
    expect(lint(text)).toEqual([
      '8:22 error steps[1].artifacts.name: artifact name "binaries" is already used by step "linux" at line 5, column 22; expected names unique within the pipeline (without name:, an artifact is called after its step), e.g. name: binaries-2',
      expect.stringMatching(
        /^14:22 error steps\[3\]\.artifacts\.name: artifact name "docs" is already used by step "docs" at line 11, column 3; /,
      ),
    ]);
  });

  it('allows one name in different pipelines', () => {
    const step = `steps:\n- name: s\n  image: golang\n  artifacts: { name: out, paths: [x] }\n`;
    expect(lint(`kind: pipeline\nname: a\n${step}---\nkind: pipeline\nname: b\n${step}`)).toEqual([]);
  });
});

describe('artifacts: from', () => {
  const BUILD = `kind: pipeline
name: build
steps:
- name: compile
  image: golang
  artifacts: { paths: [dist/**] }
---
kind: pipeline
name: lint
steps:
- { name: l, image: golang }
`;

  it('takes pipelines this one depends on, directly or through others', () => {
    const text = `${BUILD}---
kind: pipeline
name: test
depends_on: [build, lint]
artifacts: { from: [build, lint] }
steps:
- { name: t, image: golang }
---
kind: pipeline
name: deploy
depends_on: [test]
artifacts: { from: [test, build] }
steps:
- { name: d, image: golang }
`;
    expect(lint(text)).toEqual([]);
  });

  it('reports unknown pipelines, the pipeline itself, and pipelines it does not depend on', () => {
    const text = `${BUILD}---
kind: pipeline
name: test
depends_on: [lint]
artifacts:
  from: [biuld, test, build, secret, deploy]
steps:
- { name: t, image: golang }
---
kind: pipeline
name: deploy
depends_on: [test]
steps:
- { name: d, image: golang }
---
kind: secret
name: secret
get: { path: p, name: n }
`;
    expect(lint(text)).toEqual([
      '17:10 error artifacts.from[0]: unknown pipeline "biuld"; did you mean "build"?',
      '17:17 error artifacts.from[1]: is this pipeline itself, whose artifacts do not exist before its first step; expected a pipeline this one depends on',
      '17:23 error artifacts.from[2]: pipeline "build" is not in depends_on, so it may not have run yet when this pipeline starts; expected a pipeline this one depends on, e.g. depends_on: [lint, build]',
      '17:30 error artifacts.from[3]: unknown pipeline "secret"; expected a pipeline of this file: build, lint, test, deploy',
      '17:38 error artifacts.from[4]: pipeline "deploy" is not in depends_on, so it may not have run yet when this pipeline starts; expected a pipeline this one depends on, e.g. depends_on: [lint, deploy]',
    ]);
  });
});
