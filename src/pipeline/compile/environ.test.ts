import { describe, expect, it } from 'vitest';
import {
  compileYaml as compile,
  pipelineOf as pipeline,
  testInput,
  TWO_STEPS,
} from '../../../test/fixtures/pipelines/compile-input.js';
import type { SecretDocument } from '../types.js';
import { DEFAULT_RUNNER_SETTINGS } from './input.js';

describe('compilePipeline: environment', () => {
  it('gives every step the DRONE_* variables plugins read, their SVC_* twins and the 0.8 CI_* names', async () => {
    const { step } = await compile(TWO_STEPS);
    const envs = step('build').envs;
    expect(envs).toMatchObject({
      CI: 'true',
      DRONE: 'true',
      SVC: 'true',
      DRONE_REPO: 'octocat/hello-world',
      DRONE_REPO_OWNER: 'octocat',
      DRONE_REPO_NAME: 'hello-world',
      DRONE_REPO_BRANCH: 'main',
      DRONE_REPO_LINK: 'https://github.com/octocat/hello-world',
      DRONE_REPO_PRIVATE: 'true',
      DRONE_REMOTE_URL: 'https://github.com/octocat/hello-world.git',
      DRONE_GIT_HTTP_URL: 'https://github.com/octocat/hello-world.git',
      DRONE_GIT_SSH_URL: 'git@github.com:octocat/hello-world.git',
      DRONE_BRANCH: 'main',
      DRONE_SOURCE_BRANCH: 'main',
      DRONE_TARGET_BRANCH: 'main',
      DRONE_COMMIT: 'abc123',
      DRONE_COMMIT_SHA: 'abc123',
      DRONE_COMMIT_BEFORE: '0000000',
      DRONE_COMMIT_REF: 'refs/heads/main',
      DRONE_COMMIT_BRANCH: 'main',
      DRONE_COMMIT_MESSAGE: 'Fix the build\n\nLonger text.',
      DRONE_COMMIT_AUTHOR: 'octocat',
      DRONE_COMMIT_AUTHOR_NAME: 'The Octocat',
      DRONE_COMMIT_AUTHOR_EMAIL: 'octocat@example.com',
      DRONE_BUILD_NUMBER: '42',
      DRONE_BUILD_EVENT: 'push',
      DRONE_BUILD_STATUS: 'success',
      DRONE_BUILD_CREATED: '1700000000',
      DRONE_BUILD_STARTED: '1700000001',
      DRONE_BUILD_FINISHED: '1700000003',
      DRONE_BUILD_LINK: 'https://ci.example.com/octocat/hello-world/42',
      DRONE_STAGE_NAME: 'ci',
      DRONE_STAGE_TYPE: 'docker',
      DRONE_STAGE_NUMBER: '1',
      DRONE_STAGE_MACHINE: 'runner-1',
      DRONE_STEP_NAME: 'build',
      DRONE_STEP_NUMBER: '3',
      DRONE_SYSTEM_HOST: 'ci.example.com',
      DRONE_SYSTEM_PROTO: 'https',
      DRONE_WORKSPACE: '/drone/src',
      SVC_REPO: 'octocat/hello-world',
      SVC_COMMIT_SHA: 'abc123',
      SVC_STEP_NAME: 'build',
      SVC_WORKSPACE: '/drone/src',
      CI_REPO: 'octocat/hello-world',
      CI_COMMIT_SHA: 'abc123',
      CI_BUILD_NUMBER: '42',
      CI_WORKSPACE: '/drone/src',
      GIT_AUTHOR_NAME: 'The Octocat',
      GIT_COMMITTER_EMAIL: 'octocat@example.com',
    });
    expect(envs.DRONE_TAG).toBeUndefined();
    expect(envs.DRONE_PULL_REQUEST).toBeUndefined();
    expect(envs.DRONE_NETRC_MACHINE).toBeUndefined();
  });

  it('adds DRONE_TAG and DRONE_SEMVER* for tags, DRONE_PULL_REQUEST for pull requests', async () => {
    const base = testInput(pipeline(TWO_STEPS)).build;
    const tag = await compile(TWO_STEPS, { build: { ...base, event: 'tag', ref: 'refs/tags/v1.2.3-rc.1' } });
    expect(tag.step('build').envs).toMatchObject({
      DRONE_TAG: 'v1.2.3-rc.1',
      SVC_TAG: 'v1.2.3-rc.1',
      CI_TAG: 'v1.2.3-rc.1',
      DRONE_SEMVER: '1.2.3-rc.1',
      DRONE_SEMVER_SHORT: '1.2.3',
      DRONE_SEMVER_MAJOR: '1',
      DRONE_SEMVER_PRERELEASE: 'rc.1',
    });
    const pull = await compile(TWO_STEPS, {
      build: {
        ...base,
        event: 'pull_request',
        ref: 'refs/pull/17/head',
        title: 'Add login',
        source: 'login',
      },
    });
    expect(pull.step('build').envs).toMatchObject({
      DRONE_PULL_REQUEST: '17',
      DRONE_PULL_REQUEST_TITLE: 'Add login',
      DRONE_SOURCE_BRANCH: 'login',
      DRONE_TARGET_BRANCH: 'main',
    });
  });

  it('layers variables: runner, build parameters, pipeline, built-in, step, settings', async () => {
    const { step } = await compile(
      `
kind: pipeline
environment:
  FROM_PIPELINE: pipeline
  SHARED: pipeline
  DRONE_BRANCH: cannot-override
steps:
- name: s
  image: x
  environment:
    SHARED: step
    DRONE_REPO: step-may-override
    FROM_STEP: 1.10
  settings:
    shared: setting
`,
      {
        runner: {
          ...DEFAULT_RUNNER_SETTINGS,
          environ: { FROM_RUNNER: 'runner', SHARED: 'runner', FROM_PARAMS: 'runner' },
        },
        build: {
          ...testInput(pipeline(TWO_STEPS)).build,
          params: { FROM_PARAMS: 'params', SHARED: 'params' },
        },
      },
    );
    expect(step('s').envs).toMatchObject({
      FROM_RUNNER: 'runner',
      FROM_PARAMS: 'params',
      FROM_PIPELINE: 'pipeline',
      SHARED: 'step',
      DRONE_BRANCH: 'main',
      DRONE_REPO: 'step-may-override',
      FROM_STEP: '1.10',
      PLUGIN_SHARED: 'setting',
    });
  });

  it('hands secrets over as masked values, never as plain variables', async () => {
    const { step, warnings } = await compile(`
kind: pipeline
environment:
  TOKEN: {from_secret: token}
steps:
- name: s
  image: x
  environment:
    PASSWORD: {from_secret: docker_password}
`);
    const s = step('s');
    expect(s.secrets).toEqual(
      expect.arrayContaining([
        { name: 'token', env: 'TOKEN', data: 's3cr3t-t0ken', mask: true },
        { name: 'docker_password', env: 'PASSWORD', data: 'hunter2', mask: true },
      ]),
    );
    expect(s.envs.TOKEN).toBeUndefined();
    expect(s.envs.PASSWORD).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('leaves a missing secret empty, as Drone does, and says so', async () => {
    const { step, warnings } = await compile(
      'kind: pipeline\nsteps:\n- name: s\n  image: x\n  environment:\n    KEY: {from_secret: nowhere}\n',
    );
    expect(step('s').envs.KEY).toBe('');
    expect(step('s').secrets).toEqual([]);
    expect(warnings).toEqual([
      'secret "nowhere" was not found, so KEY is empty in step "s"; expected a secret of that name that this build may use (pull requests from forks get no secrets)',
    ]);
  });

  it('asks for each secret once, passing its kind: secret document when the file has one', async () => {
    const requests: unknown[] = [];
    const external: SecretDocument = {
      kind: 'secret',
      name: 'vault',
      position: { line: 1, column: 1 },
      get: { path: 'secret/data/ci', name: 'token', key: '' },
      data: '',
    };
    const { step } = await compile(
      'kind: pipeline\nsteps:\n- name: s\n  image: x\n  environment:\n    A: {from_secret: vault}\n    B: {from_secret: vault}\n',
      {
        secretDocuments: [external],
        secrets: async (request) => {
          requests.push(request);
          return Promise.resolve('from-vault');
        },
      },
    );
    expect(requests).toEqual([{ name: 'vault', external }]);
    expect(step('s').secrets.map((secret) => [secret.env, secret.data])).toEqual([
      ['A', 'from-vault'],
      ['B', 'from-vault'],
    ]);
  });
});
