import { describe, expect, it } from 'vitest';
import { compileYaml, TWO_STEPS } from '../../../test/fixtures/pipelines/compile-input.js';

const TEST = `kind: pipeline
name: test
depends_on: [build]
artifacts:
  from: [build]
steps:
- name: compile
  image: golang
  commands: [make]
  artifacts:
    name: binaries
    paths: [./dist/**, build/app]
    expire_in: 7h30m
    when: always
    reports:
      junit: [reports/*.xml]
- name: publish
  image: plugins/s3
  settings: { bucket: b }
  artifacts: { reports: { junit: out.xml } }
- name: plain
  image: golang
  commands: [make test]
`;

describe('artifacts: compiling', () => {
  it('gives each step its artifacts, defaults filled in, and the spec the pipelines to fetch', async () => {
    const { step, spec } = await compileYaml(TEST);
    expect(step('compile').artifacts).toEqual({
      name: 'binaries',
      paths: ['dist/**', 'build/app'],
      expireIn: 7.5 * 3_600_000,
      always: true,
      reports: { junit: ['reports/*.xml'] },
    });
    expect(step('publish').artifacts).toEqual({
      name: 'publish',
      paths: [],
      expireIn: 0,
      always: false,
      reports: { junit: ['out.xml'] },
    });
    // Steps without artifacts, and the clone step, have no artifacts key at all.
    expect(step('plain')).not.toHaveProperty('artifacts');
    expect(step('clone')).not.toHaveProperty('artifacts');
    expect(spec.artifactsFrom).toEqual(['build']);
  });

  it('compiles for every pipeline type', async () => {
    for (const type of ['docker', 'kubernetes', 'vm', 'exec', 'ssh', 'macstadium']) {
      const { step, spec } = await compileYaml(`kind: pipeline
type: ${type}
server: { host: example.com }
artifacts: { from: [] }
steps:
- name: build
  image: golang
  commands: [make]
  artifacts: { paths: out/**, expire_in: 45m }
`);
      expect({ type, artifacts: step('build').artifacts }).toEqual({
        type,
        artifacts: {
          name: 'build',
          paths: ['out/**'],
          expireIn: 45 * 60_000,
          always: false,
          reports: { junit: [] },
        },
      });
      expect(step('clone')).not.toHaveProperty('artifacts');
      expect(spec).not.toHaveProperty('artifactsFrom');
    }
  });

  it('leaves a Drone file without artifacts exactly as before: no new keys', async () => {
    const { spec } = await compileYaml(TWO_STEPS);
    expect(spec.steps.map((s) => s.name)).toEqual(['clone', 'db', 'build', 'test']);
    expect(Object.keys(spec)).not.toContain('artifactsFrom');
    for (const s of spec.steps) expect(Object.keys(s)).not.toContain('artifacts');
  });
});
