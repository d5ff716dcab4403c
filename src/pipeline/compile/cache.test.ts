import { describe, expect, it } from 'vitest';
import { compileYaml, TWO_STEPS } from '../../../test/fixtures/pipelines/compile-input.js';

const NPM = `kind: pipeline
name: default
steps:
- name: deps
  image: node:22
  cache:
    key: npm-{{ checksum "package-lock.json" }}-main
    restore_keys: [npm-, node-]
    paths: [node_modules, /root/.npm]
  commands: [npm ci]
- name: publish
  image: plugins/s3
  settings: { bucket: b }
  cache: { key: dist, paths: [dist], policy: pull }
- name: test
  image: node:22
  commands: [npm test]
`;

describe('cache: compiling', () => {
  it('gives each step its cache, checksums kept for the runner, the default policy filled in', async () => {
    const { step, spec } = await compileYaml(NPM);
    expect(step('deps').cache).toEqual({
      key: 'npm-{{ checksum "package-lock.json" }}-main',
      restoreKeys: ['npm-', 'node-'],
      paths: ['node_modules', '/root/.npm'],
      policy: 'pull-push',
    });
    expect(step('publish').cache).toEqual({ key: 'dist', restoreKeys: [], paths: ['dist'], policy: 'pull' });
    // Steps without one, and the clone step, have no cache key at all.
    expect(step('test')).not.toHaveProperty('cache');
    expect(step('clone')).not.toHaveProperty('cache');
    expect(spec.steps.filter((s) => 'cache' in s).map((s) => s.name)).toEqual(['deps', 'publish']);
  });

  it('compiles for host pipelines too', async () => {
    for (const type of ['exec', 'ssh']) {
      const { step } = await compileYaml(`kind: pipeline
type: ${type}
server: { host: example.com }
steps:
- name: build
  commands: [make]
  cache: { key: 'make-{{ checksum "Makefile" }}', paths: [out], policy: push }
`);
      expect(step('build').cache).toEqual({
        key: 'make-{{ checksum "Makefile" }}',
        restoreKeys: [],
        paths: ['out'],
        policy: 'push',
      });
      expect(step('clone')).not.toHaveProperty('cache');
    }
  });

  it('leaves a Drone file without cache exactly as before: no step has the key', async () => {
    const { spec } = await compileYaml(TWO_STEPS);
    expect(spec.steps.map((s) => s.name)).toEqual(['clone', 'db', 'build', 'test']);
    for (const s of spec.steps) expect(Object.keys(s)).not.toContain('cache');
  });
});
