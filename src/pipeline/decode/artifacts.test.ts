import { describe, expect, it } from 'vitest';
import { lintText } from '../lint/lint.js';
import { parseManifest } from '../parse.js';
import type { Pipeline } from '../types.js';

const BUILD = `kind: pipeline
name: build
steps:
- name: compile
  image: golang
  commands: [make]
  artifacts:
    name: binaries
    paths: [dist/**, build/app]
    expire_in: 12h
    when: always
    reports:
      junit: [reports/*.xml]
- name: test
  image: golang
  commands: [make test]
`;

function pipelineOf(text: string, index = 0): Pipeline {
  return parseManifest(text).manifest.documents[index] as Pipeline;
}

/** The diagnostics of a file as `line:column severity field: message`. */
function lint(text: string): string[] {
  return lintText(text, { trusted: false }).diagnostics.map(
    (d) => `${d.line}:${d.column} ${d.severity} ${d.field}: ${d.message}`,
  );
}

/** A docker pipeline with one step whose `artifacts:` is `artifacts` (indented under the step). */
function oneStep(artifacts: string, step = 'compile'): string {
  return `kind: pipeline\nsteps:\n- name: ${step}\n  image: golang\n  commands: [make]\n  artifacts: ${artifacts}\n`;
}

describe('artifacts: reading', () => {
  it('reads name, paths, expire_in, when and reports, and nothing for a step without artifacts', () => {
    const pipeline = pipelineOf(BUILD);
    expect(pipeline.steps[0]?.artifacts).toEqual({
      name: 'binaries',
      paths: ['dist/**', 'build/app'],
      expireIn: 12 * 3_600_000,
      always: true,
      reports: { junit: ['reports/*.xml'] },
      position: { line: 7, column: 3 },
      namePosition: { line: 8, column: 11 },
    });
    expect(pipeline.steps[1]?.artifacts).toBeUndefined();
    expect(pipeline.artifactsFrom).toEqual([]);
    expect(lint(BUILD)).toEqual([]);
  });

  it("defaults: the step's name, no expiry (0), only after success, no reports; one string is a list", () => {
    const text = oneStep('{ paths: dist/app }', 'compile-linux_1.2');
    expect(lint(text)).toEqual([]);
    expect(pipelineOf(text).steps[0]?.artifacts).toEqual({
      name: 'compile-linux_1.2',
      paths: ['dist/app'],
      expireIn: 0,
      always: false,
      reports: { junit: [] },
      position: { line: 6, column: 3 },
      namePosition: { line: 6, column: 3 },
    });
  });

  it('takes Go-style durations up to 365 days, on_success, reports without paths, and drops a leading ./', () => {
    const cases: [string, number][] = [
      ['30m', 30 * 60_000],
      ['1h30m', 90 * 60_000],
      ['8760h', 365 * 24 * 3_600_000],
      ['90s', 90_000],
    ];
    for (const [text, ms] of cases) {
      const found = pipelineOf(oneStep(`{ paths: [a], expire_in: ${text} }`)).steps[0]?.artifacts;
      expect({ text, ms: found?.expireIn }).toEqual({ text, ms });
    }
    const text = oneStep(
      `{ when: on_success, reports: { junit: ["./reports/**/*.xml", "a/[!x]*.{xml,XML}", 'b/\\[x'] } }`,
    );
    expect(lint(text)).toEqual([]);
    expect(pipelineOf(text).steps[0]?.artifacts).toMatchObject({
      paths: [],
      always: false,
      reports: { junit: ['reports/**/*.xml', 'a/[!x]*.{xml,XML}', 'b/\\[x'] },
    });
  });

  it('is allowed in every pipeline type and on plugin steps', () => {
    for (const type of ['docker', 'kubernetes', 'vm', 'exec', 'ssh', 'macstadium']) {
      const text = `kind: pipeline\ntype: ${type}\n${type === 'ssh' ? 'server: { host: h }\n' : ''}steps:\n- name: s\n  image: plugins/s3\n  commands: [true]\n  artifacts: { paths: [out/**] }\n`;
      const found = lint(text).filter((line) => line.includes('artifacts'));
      expect({ type, found }).toEqual({ type, found: [] });
      expect(pipelineOf(text).steps[0]?.artifacts?.name).toBe('s');
    }
    const plugin = `kind: pipeline\nsteps:\n- name: publish\n  image: plugins/s3\n  settings: { bucket: b }\n  artifacts: { paths: [dist/**] }\n`;
    expect(lint(plugin)).toEqual([]);
  });

  it('reads artifacts: from: of a pipeline, and notes where each name is', () => {
    const text = `${BUILD}---
kind: pipeline
name: test
depends_on: [build]
artifacts:
  from: [build]
steps:
- name: t
  image: golang
  commands: [make test]
---
kind: pipeline
name: single
depends_on: [build]
artifacts: { from: build }
steps:
- name: t
  image: golang
`;
    expect(lint(text)).toEqual([]);
    expect(pipelineOf(text, 1).artifactsFrom).toEqual(['build']);
    expect(pipelineOf(text, 1).locations['artifacts.from[0]']).toEqual({ line: 22, column: 10 });
    expect(pipelineOf(text, 2).artifactsFrom).toEqual(['build']);
  });
});

describe('artifacts: errors', () => {
  it('reports artifacts that are not a map, and neither paths nor reports.junit', () => {
    const text = `kind: pipeline
steps:
- name: a
  image: golang
  artifacts: [dist]
- name: b
  image: golang
  artifacts:
    when: always
- name: c
  image: golang
  artifacts: { paths: [], reports: { junit: [] } }
- name: d
  image: golang
  artifacts: { reports: [x.xml] }
`;
    expect(lint(text)).toEqual([
      '5:14 error steps[0].artifacts: expected a map with the files to upload, e.g. {paths: [dist/**, build/app]}, found a list',
      '9:5 error steps[1].artifacts.paths: is required unless reports.junit is given: expected the files to upload, globs relative to the workspace, e.g. paths: [dist/**, build/app]',
      expect.stringMatching(/^12:23 error steps\[2\]\.artifacts\.paths: is required unless reports\.junit/),
      '15:25 error steps[3].artifacts.reports: expected a map of test reports, e.g. {junit: [reports/*.xml]}, found a list',
    ]);
    expect(pipelineOf(text).steps.map((step) => step.artifacts)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('reports bad globs: not strings, empty, absolute, .., ~, unclosed [ or {, listed twice', () => {
    const text = `kind: pipeline
steps:
- name: a
  image: golang
  artifacts:
    paths:
    - dist/**
    - ""
    - /etc/passwd
    - C:/x
    - a/../../b
    - ~/x
    - "dist/*.[ch"
    - "dist/*.{js,map"
    - ./dist/**
    - { dir: x }
    - .
    - "{a,b}{a,b}{a,b}{a,b}{a,b}/x"
    reports:
      junit: [../r.xml, "r/[a-"]
`;
    expect(lint(text)).toEqual([
      '8:7 error steps[0].artifacts.paths[1]: is empty; expected a glob of files in the workspace, e.g. dist/**',
      '9:7 error steps[0].artifacts.paths[2]: "/etc/passwd" is absolute; artifacts are taken from the workspace, so expected a glob relative to it, e.g. dist/**',
      expect.stringMatching(/^10:7 error steps\[0\]\.artifacts\.paths\[3\]: "C:\/x" is absolute/),
      '11:7 error steps[0].artifacts.paths[4]: "a/../../b" has a .. segment; artifacts are taken from the workspace, so expected a glob inside it, e.g. dist/**',
      '12:7 error steps[0].artifacts.paths[5]: "~/x": ~ is not expanded; artifacts are taken from the workspace, so expected a glob relative to it, e.g. dist/**',
      '13:7 error steps[0].artifacts.paths[6]: "dist/*.[ch" has a [ without a closing ]; expected a complete character class, e.g. build/*.[ch] (write \\[ for a [ in a name)',
      '14:7 error steps[0].artifacts.paths[7]: "dist/*.{js,map" has a { without a closing }; expected complete alternatives, e.g. dist/*.{js,map} (write \\{ for a { in a name)',
      '15:7 error steps[0].artifacts.paths[8]: "./dist/**" is listed already (as "dist/**"); expected each glob once',
      '16:7 error steps[0].artifacts.paths[9]: expected a string, found a map; a value containing ": " must be quoted, e.g. - \'echo "a: b"\'',
      '17:7 error steps[0].artifacts.paths[10]: "." is the workspace itself; expected a glob of its files, e.g. ** for all of them or dist/**',
      '18:7 error steps[0].artifacts.paths[11]: "{a,b}{a,b}{a,b}{a,b}{a,b}/x" is too complex; expected at most 200 characters and 4 {…} groups, e.g. dist/*.{js,map}',
      expect.stringMatching(
        /^20:15 error steps\[0\]\.artifacts\.reports\.junit\[0\]: "\.\.\/r\.xml" has a \.\. segment/,
      ),
      expect.stringMatching(
        /^20:25 error steps\[0\]\.artifacts\.reports\.junit\[1\]: "r\/\[a-" has a \[ without a closing \]/,
      ),
    ]);
    expect(pipelineOf(text).steps[0]?.artifacts).toBeUndefined();
  });

  it('warns about a glob that ends in /: it matches no file', () => {
    const text = oneStep('{ paths: [dist/, "a/[/]"] }');
    expect(lint(text)).toEqual([
      '6:24 warning steps[0].artifacts.paths[0]: "dist/" ends in /, so it matches no file; expected a glob of the files, e.g. dist/** for every file below dist/',
    ]);
    expect(pipelineOf(text).steps[0]?.artifacts?.paths).toEqual(['dist/', 'a/[/]']);
  });

  it("reports names that are not artifact names, written or taken from the step's name", () => {
    const long = 'a'.repeat(101);
    const text = `kind: pipeline
steps:
- name: a
  image: golang
  artifacts: { name: -dist, paths: [x] }
- name: b
  image: golang
  artifacts: { name: ${long}, paths: [x] }
- name: Lint code
  image: golang
  artifacts: { paths: [x] }
- name: d
  image: golang
  artifacts: { name: [x], paths: [x] }
- name: e
  image: golang
  artifacts: { name: "bin/linux", paths: [x] }
`;
    expect(lint(text)).toEqual([
      '5:22 error steps[0].artifacts.name: "-dist" is not an artifact name; expected letters, digits, ., _ and -, starting with a letter or a digit, at most 100 characters, e.g. name: dist',
      expect.stringMatching(
        /^8:22 error steps\[1\]\.artifacts\.name: "a{101}" is not an artifact name; .*, e\.g\. name: a{100}$/,
      ),
      '11:3 error steps[2].artifacts.name: is required here: the step\'s name "Lint code" is not an artifact name; expected letters, digits, ., _ and -, starting with a letter or a digit, at most 100 characters, e.g. name: Lint-code',
      '14:22 error steps[3].artifacts.name: expected an artifact name, e.g. name: binaries, found a list',
      expect.stringMatching(
        /^17:22 error steps\[4\]\.artifacts\.name: "bin\/linux" is not an artifact name; .*, e\.g\. name: bin-linux$/,
      ),
    ]);
    expect(pipelineOf(text).steps.every((step) => step.artifacts === undefined)).toBe(true);
  });

  it('reports expire_in that is not a duration, zero or over 365 days, and an unknown when', () => {
    const text = `kind: pipeline
steps:
- name: a
  image: golang
  artifacts: { paths: [x], expire_in: 7d }
- name: b
  image: golang
  artifacts: { paths: [x], expire_in: 3600 }
- name: c
  image: golang
  artifacts: { paths: [x], expire_in: 0s }
- name: d
  image: golang
  artifacts: { paths: [x], expire_in: 8761h }
- name: e
  image: golang
  artifacts: { paths: [x], when: on_failure }
- name: f
  image: golang
  artifacts: { paths: [x], when: { status: [failure] } }
`;
    expect(lint(text)).toEqual([
      '5:39 error steps[0].artifacts.expire_in: "7d" is not a duration; expected a duration: numbers with the units h, m, s or ms, e.g. 30m, 12h or 1h30m (days are not a unit: 7 days is 168h)',
      expect.stringMatching(/^8:39 error steps\[1\]\.artifacts\.expire_in: "3600" is not a duration; /),
      "11:39 error steps[2].artifacts.expire_in: is zero; expected a duration over 0, e.g. 12h, or no expire_in for the server's default",
      '14:39 error steps[3].artifacts.expire_in: "8761h" is longer than 365 days; expected at most 8760h, or no expire_in for the server\'s default',
      '17:34 error steps[4].artifacts.when: unknown value "on_failure"; expected always (upload also when the step failed) or on_success (only after the step succeeded; the default)',
      '20:34 error steps[5].artifacts.when: expected always (upload also when the step failed) or on_success (only after the step succeeded; the default), found a map',
    ]);
    expect(pipelineOf(text).steps.every((step) => step.artifacts === undefined)).toBe(true);
  });

  it('warns about unknown fields, and says where from: and the step fields belong', () => {
    const text = `kind: pipeline
name: build
artifacts:
  from: []
  paths: [x]
steps:
- name: a
  image: golang
  artifacts:
    path: [x]
    paths: [x]
    from: [build]
    reports: { junit: [r.xml], cobertura: [c.xml] }
`;
    expect(lint(text)).toEqual([
      "5:3 warning artifacts.paths: applies to the artifacts of a step (under the step) only and is ignored in a pipeline's artifacts",
      '10:5 warning steps[0].artifacts: unknown field "path" is ignored; did you mean "paths"?',
      "12:5 warning steps[0].artifacts.from: applies to the artifacts section of a pipeline (next to steps:) only and is ignored in a step's artifacts",
      `13:32 warning steps[0].artifacts.reports: unknown field "cobertura" is ignored; the artifacts' reports accepts: junit (see "Artifacts" in docs/pipelines.md)`,
    ]);
    expect(pipelineOf(text).steps[0]?.artifacts?.paths).toEqual(['x']);
  });

  it('reports artifacts on a service or a detached step, and still checks them', () => {
    const text = `kind: pipeline
services:
- name: db
  image: postgres
  artifacts: { paths: [x] }
steps:
- name: a
  image: golang
  detach: true
  artifacts:
    paths: [/x]
`;
    expect(lint(text)).toEqual([
      '5:3 error services[0].artifacts: a service runs in the background for the whole pipeline, with no end after which to upload artifacts; expected artifacts on the step that makes the files',
      '10:3 error steps[0].artifacts: a detached step (detach: true) has no end after which to upload artifacts; expected artifacts on a step without detach',
      expect.stringMatching(/^11:13 error steps\[0\]\.artifacts\.paths\[0\]: "\/x" is absolute/),
    ]);
    const pipeline = pipelineOf(text);
    expect([pipeline.services[0]?.artifacts, pipeline.steps[0]?.artifacts]).toEqual([undefined, undefined]);
  });

  it('reports a pipeline artifacts section that is not a map, without from, or with bad names', () => {
    const text = `kind: pipeline
name: a
artifacts: [build]
steps:
- { name: s, image: golang }
---
kind: pipeline
name: b
artifacts: { }
steps:
- { name: s, image: golang }
---
kind: pipeline
name: c
artifacts:
  from: [a, "", a, { x: y }]
steps:
- { name: s, image: golang }
`;
    expect(lint(text)).toEqual([
      '3:12 error artifacts: expected a map with the pipelines whose artifacts this one takes, e.g. {from: [build]}, found a list',
      '9:12 error artifacts.from: is required: expected the pipelines of this file whose artifacts are put into the workspace before the first step, e.g. from: [build]',
      '16:13 error artifacts.from[1]: is empty; expected the name of a pipeline, e.g. from: [build]',
      '16:17 error artifacts.from[2]: "a" is listed already; expected each pipeline once',
      '16:20 error artifacts.from[3]: expected a string, found a map; a value containing ": " must be quoted, e.g. - \'echo "a: b"\'',
    ]);
    expect([0, 1, 2].map((index) => pipelineOf(text, index).artifactsFrom)).toEqual([[], [], []]);
  });
});
