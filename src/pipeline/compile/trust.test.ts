import { describe, expect, it } from 'vitest';
import {
  compileYaml as compile,
  pipelineOf as pipeline,
  testInput,
} from '../../../test/fixtures/pipelines/compile-input.js';
import { compilePipeline } from './compile.js';
import { DEFAULT_RUNNER_SETTINGS } from './input.js';

describe('compilePipeline: trust, privileges and limits', () => {
  const PRIVILEGED = 'kind: pipeline\nsteps:\n- {name: a, image: docker:dind, privileged: true}\n';

  it('refuses what untrusted repositories may not use, saying where', async () => {
    const result = await compilePipeline(testInput(pipeline(PRIVILEGED)));
    expect(result).toEqual({
      ok: false,
      errors: [
        expect.stringMatching(
          /^line 3, column 33: steps\[0\]\.privileged: not allowed in an untrusted repository/,
        ),
      ],
    });
    const trusted = await compile(PRIVILEGED);
    expect(trusted.step('a').privileged).toBe(true);
  });

  it('runs the runner privileged images privileged as plugins only, also for untrusted repositories', async () => {
    const runner = { ...DEFAULT_RUNNER_SETTINGS, privilegedImages: ['plugins/docker'] };
    const { step } = await compile(
      `
kind: pipeline
steps:
- {name: plugin, image: "plugins/docker:20"}
- {name: qualified, image: docker.io/plugins/docker}
- {name: commands, image: plugins/docker, commands: [sh]}
- {name: other, image: plugins/slack}
`,
      { runner, trusted: false },
    );
    expect(['plugin', 'qualified', 'commands', 'other'].map((name) => step(name).privileged)).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it('caps step limits at the runner limits and turns resources into Docker limits', async () => {
    const limits = {
      ...DEFAULT_RUNNER_SETTINGS.limits,
      memLimit: 2 * 1024 ** 3,
      cpuQuota: 200000,
      cpuSet: ['1'],
    };
    const { step } = await compile(
      `
kind: pipeline
steps:
- {name: small, image: x, mem_limit: 1g, cpu_set: "0"}
- {name: large, image: x, mem_limit: 8g}
- {name: none, image: x}
- name: resources
  image: x
  resources: {limits: {cpu: 500, memory: 512MiB}, requests: {cpu: 250}}
`,
      { runner: { ...DEFAULT_RUNNER_SETTINGS, limits } },
    );
    expect(step('small')).toMatchObject({ memLimit: 1024 ** 3, cpuQuota: 200000, cpuSet: ['1'] });
    expect(step('large').memLimit).toBe(2 * 1024 ** 3);
    expect(step('none')).toMatchObject({ memLimit: 2 * 1024 ** 3, cpuPeriod: 0, cpuShares: 0 });
    expect(step('resources')).toMatchObject({
      memLimit: 512 * 1024 ** 2,
      cpuPeriod: 100000,
      cpuQuota: 50000,
      cpuShares: 256,
    });
  });

  it('logs in to registries with the credentials of image_pull_secrets', async () => {
    const { step, warnings } = await compile(`
kind: pipeline
image_pull_secrets: [dockerconfig, nowhere]
steps:
- {name: hub, image: octocat/private:1}
- {name: other, image: ghcr.io/octocat/app}
`);
    expect(step('hub').auth).toEqual({
      address: 'docker.io',
      username: 'octocat',
      password: 'dockerhub-pass',
    });
    expect(step('other').auth).toBeUndefined();
    expect(warnings).toEqual([
      'image pull secret "nowhere" was not found; private images are pulled without credentials',
    ]);
  });
});
