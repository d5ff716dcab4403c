import { describe, expect, it } from 'vitest';
import { compileYaml as compile, stepOf, TWO_STEPS } from '../../../test/fixtures/pipelines/compile-input.js';
import { SKIP_EXIT_CODE } from './compile.js';
import { posixScript } from './script.js';

describe('compilePipeline: the spec', () => {
  it('lists the clone step, the services and the steps in file order, with unique ids', async () => {
    const { spec } = await compile(TWO_STEPS);
    expect(spec.runId).toBe('run1');
    expect(spec.labels).toEqual({ 'svc.run': 'run1' });
    expect(spec.platform).toEqual({ os: 'linux', arch: 'amd64' });
    expect(spec.steps.map((step) => [step.id, step.name, step.detach])).toEqual([
      ['run1-step-1', 'clone', false],
      ['run1-step-2', 'db', true],
      ['run1-step-3', 'build', false],
      ['run1-step-4', 'test', false],
    ]);
    expect(spec.steps.map((step) => step.envs.DRONE_STEP_NUMBER)).toEqual(['1', '2', '3', '4']);
    expect(stepOf(spec, 'test').labels).toEqual({ 'svc.step.name': 'test', 'svc.step.number': '4' });
  });

  it('documents exit code 78 as the early, successful end of a pipeline', () => {
    expect(SKIP_EXIT_CODE).toBe(78);
  });
});

describe('compilePipeline: order of steps', () => {
  it('runs steps one after the other when no step uses depends_on', async () => {
    const { spec } = await compile(TWO_STEPS);
    expect(spec.steps.map((step) => [step.name, step.dependsOn])).toEqual([
      ['clone', []],
      ['db', ['clone']],
      ['build', ['db']],
      ['test', ['build']],
    ]);
  });

  it('follows depends_on once any step uses it; steps without it start after the clone', async () => {
    const { spec } = await compile(`
kind: pipeline
services:
- name: db
  image: postgres
steps:
- name: a
  image: alpine
- name: b
  image: alpine
- name: c
  image: alpine
  depends_on: [a, b]
`);
    expect(spec.steps.map((step) => [step.name, step.dependsOn])).toEqual([
      ['clone', []],
      ['db', ['clone']],
      ['a', ['clone']],
      ['b', ['clone']],
      ['c', ['a', 'b']],
    ]);
  });

  it('has no clone step when cloning is disabled, serial or not', async () => {
    const serial = await compile(
      'kind: pipeline\nclone: {disable: true}\nsteps:\n- {name: a, image: x}\n- {name: b, image: x}\n',
    );
    expect(serial.spec.steps.map((step) => [step.name, step.dependsOn])).toEqual([
      ['a', []],
      ['b', ['a']],
    ]);
    const graph = await compile(
      'kind: pipeline\nclone: {disable: true}\nsteps:\n- {name: a, image: x}\n- {name: b, image: x, depends_on: [a]}\n',
    );
    expect(graph.spec.steps.map((step) => [step.name, step.dependsOn])).toEqual([
      ['a', []],
      ['b', ['a']],
    ]);
  });
});

describe('compilePipeline: run and failure policies', () => {
  it.each([
    ['', 'on-success'],
    ['when: {status: [success]}', 'on-success'],
    ['when: {status: [failure]}', 'on-failure'],
    ['when: {status: [success, failure]}', 'always'],
    ['when: {branch: [main]}', 'on-success'],
    ['when: {branch: [develop]}', 'never'],
    ['when: {event: {exclude: [push]}}', 'never'],
    ['when: {branch: [develop], status: [failure]}', 'never'],
  ])('%j runs %s', async (when, policy) => {
    const { step } = await compile(`kind: pipeline\nsteps:\n- name: s\n  image: alpine\n  ${when}\n`);
    expect(step('s').runPolicy).toBe(policy);
  });

  it('keeps the pipeline going past a step with failure: ignore', async () => {
    const { step } = await compile(
      'kind: pipeline\nsteps:\n- {name: a, image: x, failure: ignore}\n- {name: b, image: x}\n',
    );
    expect([step('a').errPolicy, step('b').errPolicy]).toEqual(['ignore', 'fail']);
  });

  it.each(['fast', 'fast-fail', 'fail-fast'])(
    'reads failure: %s as the fail-fast policy, without a warning',
    async (text) => {
      const { step, warnings } = await compile(
        `kind: pipeline\nsteps:\n- {name: a, image: x, failure: ${text}}\n`,
      );
      expect(step('a').errPolicy).toBe('fast');
      expect(warnings).toEqual([]);
    },
  );
});

describe('compilePipeline: commands and plugins', () => {
  it('runs commands as a shell script in place of the entrypoint', async () => {
    const { step } = await compile(TWO_STEPS);
    expect(step('build')).toMatchObject({
      entrypoint: ['/bin/sh', '-c'],
      command: [posixScript(['go build'])],
    });
  });

  it('uses the step shell, and the entrypoint and command of steps without commands', async () => {
    const { step } = await compile(`
kind: pipeline
steps:
- {name: bash, image: x, shell: /bin/bash, commands: [echo hi]}
- {name: own, image: x, entrypoint: [/app], command: [--flag]}
- {name: plugin, image: plugins/slack}
`);
    expect(step('bash').entrypoint).toEqual(['/bin/bash', '-c']);
    expect(step('own')).toMatchObject({ entrypoint: ['/app'], command: ['--flag'] });
    expect(step('plugin')).toMatchObject({ entrypoint: [], command: [] });
  });

  it('hands settings to plugins as PLUGIN_* variables, secrets masked', async () => {
    const { step } = await compile(`
kind: pipeline
steps:
- name: publish
  image: plugins/docker
  settings:
    repo: octocat/hello
    tags: [latest, 1.0]
    build-args: {A: b}
    password: {from_secret: docker_password}
`);
    const publish = step('publish');
    expect(publish.envs).toMatchObject({
      PLUGIN_REPO: 'octocat/hello',
      PLUGIN_TAGS: 'latest,1',
      PLUGIN_BUILD_ARGS: '{"A":"b"}',
    });
    expect(publish.envs.PLUGIN_PASSWORD).toBeUndefined();
    expect(publish.secrets).toContainEqual({
      name: 'docker_password',
      env: 'PLUGIN_PASSWORD',
      data: 'hunter2',
      mask: true,
    });
  });
});
