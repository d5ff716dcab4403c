import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUNNER_SETTINGS } from '../../pipeline/index.js';
import { wireDetails, type WireDetails } from '../client/wire/index.js';
import { PluginClient } from '../../plugins/plugin-client.js';
import { startTestPlugin, type TestPlugin } from '../../plugins/plugin-server.case.js';
import { RemoteEnvironPlugin } from '../../plugins/environ-plugin.js';
import { RemoteRegistryPlugin } from '../../plugins/registry-plugin.js';
import { RemoteSecretPlugin } from '../../plugins/secret-plugin.js';
import { prepareStage, type PrepareSettings } from './prepare.js';

const PIPELINE = `kind: pipeline
type: docker
name: build
steps:
- name: test
  image: local/busybox
  environment:
    A: { from_secret: from_server }
    B: { from_secret: from_runner }
  commands: [ "true" ]
`;

function details(
  fields: { config?: string; event?: string; sourceRepo?: string; trusted?: boolean } = {},
): WireDetails {
  return wireDetails.parse({
    build: {
      id: 1,
      number: 4,
      status: 'running',
      event: fields.event ?? 'push',
      source_repo: fields.sourceRepo ?? 'acme/site',
      params: null,
    },
    repository: {
      id: 2,
      namespace: 'acme',
      name: 'site',
      slug: 'acme/site',
      trusted: fields.trusted ?? false,
      timeout: 60,
      git_http_url: 'https://git.example.com/acme/site.git',
    },
    stage: { id: 3, number: 1, name: 'build', status: 'pending', machine: 'r1' },
    config: { data: Buffer.from(fields.config ?? PIPELINE).toString('base64') },
    secrets: [{ name: 'from_server', data: 'server-value' }],
    netrc: { machine: 'git.example.com', login: 'x', password: 'clone-password' },
    system: { proto: 'https', host: 'ci.example.com', version: '1.0.0' },
  });
}

const SETTINGS: PrepareSettings = {
  machine: 'r1',
  types: ['docker'],
  runner: DEFAULT_RUNNER_SETTINGS,
  netrcCloneOnly: false,
  secrets: { from_runner: 'runner-value', from_server: 'shadowed' },
  limits: undefined,
  labels: { 'io.svc.runner': 'r1' },
};

describe('prepareStage', () => {
  it('compiles the stage’s pipeline with the build’s secrets first, then the runner’s', async () => {
    const prepared = await prepareStage(details(), SETTINGS, 1_000);
    if (!prepared.ok) throw new Error(prepared.error);
    const step = prepared.spec.steps.find((s) => s.name === 'test');
    expect(step?.secrets.map((s) => [s.env, s.data])).toEqual(
      expect.arrayContaining([
        ['A', 'server-value'],
        ['B', 'runner-value'],
      ]),
    );
    expect(prepared.spec.steps[0]?.name).toBe('clone');
    expect(prepared.spec.labels).toMatchObject({
      'io.svc.runner': 'r1',
      'io.svc.stage': '3',
      'io.svc.repo': 'acme/site',
    });
    expect(step?.envs.DRONE_STAGE_MACHINE).toBe('r1');
  });

  it('runs a step’s when: paths against the changed files the server sent, and every one when it sent none', async () => {
    const config = `kind: pipeline
type: docker
name: build
steps:
- name: go
  image: local/busybox
  when: {paths: [src/**]}
  commands: [ "true" ]
- name: docs
  image: local/busybox
  when: {paths: [docs/**]}
  commands: [ "true" ]
`;
    const sent = details({ config });
    const withFiles = { ...sent, build: { ...sent.build, changed_files: ['docs/a.md'] } };
    const policies = async (d: WireDetails) => {
      const prepared = await prepareStage(d, SETTINGS, 1_000);
      if (!prepared.ok) throw new Error(prepared.error);
      return Object.fromEntries(prepared.spec.steps.map((s) => [s.name, s.runPolicy]));
    };
    expect(await policies(withFiles)).toMatchObject({ go: 'never', docs: 'on-success' });
    expect(await policies(sent)).toMatchObject({ go: 'on-success', docs: 'on-success' });
  });

  it('gives builds of forks none of the runner’s secrets', async () => {
    const prepared = await prepareStage(
      details({ sourceRepo: 'mallory/site', event: 'pull_request' }),
      SETTINGS,
      1_000,
    );
    if (!prepared.ok) throw new Error(prepared.error);
    expect(JSON.stringify(prepared.spec)).not.toContain('runner-value');
    expect(JSON.stringify(prepared.spec)).toContain('server-value');
  });

  it('gives the clone credentials to the clone step alone in builds of forks', async () => {
    const stepsWith = (spec: { steps: { name: string; secrets: { data: string }[] }[] }) =>
      spec.steps.filter((s) => s.secrets.some((x) => x.data === 'clone-password')).map((s) => s.name);
    const own = await prepareStage(
      details({ sourceRepo: 'acme/site', event: 'pull_request' }),
      SETTINGS,
      1_000,
    );
    if (!own.ok) throw new Error(own.error);
    expect(stepsWith(own.spec)).toEqual(['clone', 'test']);
    for (const sourceRepo of ['mallory/site', '']) {
      const fork = await prepareStage(details({ sourceRepo, event: 'pull_request' }), SETTINGS, 1_000);
      if (!fork.ok) throw new Error(fork.error);
      expect(stepsWith(fork.spec), sourceRepo).toEqual(['clone']);
    }
  });

  it('gives a pull request whose fork was deleted (no source repository) none of them either', async () => {
    const gone = await prepareStage(details({ sourceRepo: '', event: 'pull_request' }), SETTINGS, 1_000);
    if (!gone.ok) throw new Error(gone.error);
    expect(JSON.stringify(gone.spec)).not.toContain('runner-value');
    // Other events come from the repository itself, whatever the stored source says.
    const push = await prepareStage(details({ sourceRepo: '', event: 'push' }), SETTINGS, 1_000);
    if (!push.ok) throw new Error(push.error);
    expect(JSON.stringify(push.spec)).toContain('runner-value');
  });

  it('refuses builds outside the runner’s limits with Drone’s message', async () => {
    const limited = { ...SETTINGS, limits: { events: ['tag'], repos: [], trusted: false } };
    expect(await prepareStage(details(), limited, 1_000)).toEqual({
      ok: false,
      error:
        'insufficient permission to run the pipeline: this runner does not run push builds of acme/site (untrusted)',
    });
  });

  it('reports lint errors with their line and column, a missing pipeline, and another type', async () => {
    const broken = await prepareStage(
      details({ config: 'kind: pipeline\nname: build\nsteps:\n- name: x\n' }),
      SETTINGS,
      1,
    );
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.error).toMatch(/^line \d+, column \d+: /);
    const other = await prepareStage(
      details({ config: PIPELINE.replace('name: build', 'name: deploy') }),
      SETTINGS,
      1,
    );
    expect(other).toEqual({
      ok: false,
      error: 'the pipeline file has no pipeline named "build" (it has: deploy)',
    });
    const ssh =
      'kind: pipeline\ntype: ssh\nname: build\nserver:\n  host: example.com\n  user: u\n  password: p\nsteps:\n- name: x\n  commands: [ "true" ]\n';
    const typed = await prepareStage(details({ config: ssh }), SETTINGS, 1);
    expect(typed).toEqual({
      ok: false,
      error: 'pipeline "build" is of type ssh; this runner runs docker pipelines',
    });
  });

  it('runs a type: vm pipeline as macstadium on the VM runner, and refuses one with images', async () => {
    const vm = { ...SETTINGS, types: ['macstadium', 'vm'], aliases: { vm: 'macstadium' as const } };
    const commands = 'kind: pipeline\ntype: vm\nname: build\nsteps:\n- name: x\n  commands: [ "sw_vers" ]\n';
    const prepared = await prepareStage(details({ config: commands }), vm, 1);
    if (!prepared.ok) throw new Error(prepared.error);
    // Host steps: the clone with git commands, the step as a script, no images.
    expect(prepared.spec.steps.map((step) => [step.name, step.image, step.entrypoint])).toEqual([
      ['clone', '', ['/bin/sh', '-c']],
      ['x', '', ['/bin/sh', '-c']],
    ]);
    const imaged = commands.replace('- name: x\n', '- name: x\n  image: alpine\n');
    expect(await prepareStage(details({ config: imaged }), vm, 1)).toEqual({
      ok: false,
      error:
        'step "x" has an image, but this runner runs type: vm pipelines as macstadium: commands on the machine, without containers',
    });
  });

  it('refuses what only trusted repositories may use, unless the repository is trusted', async () => {
    const privileged = PIPELINE.replace(
      '  commands: [ "true" ]',
      '  privileged: true\n  commands: [ "true" ]',
    );
    expect((await prepareStage(details({ config: privileged }), SETTINGS, 1)).ok).toBe(false);
    expect((await prepareStage(details({ config: privileged, trusted: true }), SETTINGS, 1)).ok).toBe(true);
  });

  describe('with a secret plugin (kind: secret documents)', () => {
    const TOKEN = 'plugin-token';
    const EXTERNAL = `${PIPELINE.replace('B: { from_secret: from_runner }', 'B: { from_secret: vault_secret }')}---
kind: secret
name: vault_secret
get:
  path: secret/data/deploy
  name: password
`;
    let plugin: TestPlugin;
    const withPlugin = (path: string): PrepareSettings => ({
      ...SETTINGS,
      secretPlugin: new RemoteSecretPlugin(
        new PluginClient('secret', { endpoint: plugin.url(path), secret: TOKEN, skipVerify: false }),
      ),
    });
    const valueOf = (prepared: Awaited<ReturnType<typeof prepareStage>>, env: string) => {
      if (!prepared.ok) throw new Error(prepared.error);
      return prepared.spec.steps.find((s) => s.name === 'test')?.secrets.find((s) => s.env === env)?.data;
    };

    beforeAll(async () => {
      plugin = await startTestPlugin(TOKEN, (call) => {
        if (call.path === '/missing') return { status: 404 };
        if (call.path === '/broken') return { status: 500, body: 'vault sealed' };
        return {
          status: 200,
          body: JSON.stringify({ name: 'password', data: 'from-vault', pull_request: call.path === '/pr' }),
        };
      });
    });
    afterAll(() => plugin.close());

    it('asks the plugin for the document’s path and name, signed with the token, and masks the value', async () => {
      const prepared = await prepareStage(details({ config: EXTERNAL }), withPlugin('/'), 1_000);
      expect(valueOf(prepared, 'B')).toBe('from-vault');
      const step = prepared.ok ? prepared.spec.steps.find((s) => s.name === 'test') : undefined;
      expect(step?.secrets.find((s) => s.env === 'B')?.mask).toBe(true);
      const call = plugin.calls.at(-1);
      expect(call?.verified).toBe(true);
      expect(call?.headers['content-type']).toBe('application/vnd.drone.secret.v1+json');
      expect(call?.body).toMatchObject({
        path: 'secret/data/deploy',
        name: 'password',
        repo: { slug: 'acme/site' },
        build: { number: 4 },
      });
    });

    it('gives pull requests only the secrets the plugin marks for them', async () => {
      const pr = details({ config: EXTERNAL, event: 'pull_request' });
      expect(valueOf(await prepareStage(pr, withPlugin('/'), 1_000), 'B')).toBeUndefined();
      expect(valueOf(await prepareStage(pr, withPlugin('/pr'), 1_000), 'B')).toBe('from-vault');
    });

    it('finds nothing without a plugin or on 404, and fails the stage when the plugin fails', async () => {
      expect(
        valueOf(await prepareStage(details({ config: EXTERNAL }), SETTINGS, 1_000), 'B'),
      ).toBeUndefined();
      expect(
        valueOf(await prepareStage(details({ config: EXTERNAL }), withPlugin('/missing'), 1_000), 'B'),
      ).toBeUndefined();
      expect(await prepareStage(details({ config: EXTERNAL }), withPlugin('/broken'), 1_000)).toEqual({
        ok: false,
        error: 'the secret plugin refused secret secret/data/deploy password: 500 vault sealed',
      });
    });
  });

  describe('with a registry plugin', () => {
    const TOKEN = 'registry-token';
    const PRIVATE = PIPELINE.replace('image: local/busybox', 'image: registry.example.com/team/tool:1');
    let plugin: TestPlugin;
    const withPlugin = (path: string): PrepareSettings => ({
      ...SETTINGS,
      registryPlugin: new RemoteRegistryPlugin(
        new PluginClient('registry', { endpoint: plugin.url(path), secret: TOKEN, skipVerify: false }),
      ),
    });

    beforeAll(async () => {
      plugin = await startTestPlugin(TOKEN, (call) =>
        call.path === '/down'
          ? { status: 503, body: 'try later' }
          : {
              status: 200,
              body: JSON.stringify([
                { address: 'https://registry.example.com', username: 'robot', password: 'r0b0t' },
                { address: 'docker.io', username: 'hub', password: 'hub-pass' },
              ]),
            },
      );
    });
    afterAll(() => plugin.close());

    it('pulls each step’s image with the credentials the plugin gives for its registry', async () => {
      const prepared = await prepareStage(details({ config: PRIVATE }), withPlugin('/'), 1_000);
      if (!prepared.ok) throw new Error(prepared.error);
      const step = prepared.spec.steps.find((s) => s.name === 'test');
      expect(step?.auth).toEqual({ address: 'registry.example.com', username: 'robot', password: 'r0b0t' });
      const call = plugin.calls.at(-1);
      expect(call?.verified).toBe(true);
      expect(call?.headers['content-type']).toBe('application/vnd.drone.registry.v1+json');
      expect(call?.body).toMatchObject({ repo: { slug: 'acme/site' }, build: { number: 4 } });
    });

    it('fails the stage with the plugin’s message when the plugin fails', async () => {
      expect(await prepareStage(details({ config: PRIVATE }), withPlugin('/down'), 1_000)).toEqual({
        ok: false,
        error: 'the registry plugin refused: 503 try later',
      });
    });
  });

  describe('with an environment plugin', () => {
    const TOKEN = 'environ-token';
    const WITH_ENV = PIPELINE.replace('  environment:\n', '  environment:\n    REGION: from-the-file\n');
    let plugin: TestPlugin;
    const withPlugin = (path: string): PrepareSettings => ({
      ...SETTINGS,
      runner: { ...SETTINGS.runner, environ: { REGION: 'from-the-runner', TEAM: 'from-the-runner' } },
      environPlugin: new RemoteEnvironPlugin(
        new PluginClient('environment', { endpoint: plugin.url(path), secret: TOKEN, skipVerify: false }),
      ),
    });

    beforeAll(async () => {
      plugin = await startTestPlugin(TOKEN, (call) => {
        if (call.path === '/old') return { status: 200, body: JSON.stringify({ LEGACY: 'yes' }) };
        if (call.path === '/down') return { status: 500, body: 'boom' };
        return {
          status: 200,
          body: JSON.stringify([
            { name: 'TEAM', data: 'from-the-plugin', mask: false },
            { name: 'REGION', data: 'from-the-plugin', mask: false },
            { name: 'API_KEY', data: 'k3y-from-plugin', mask: true },
          ]),
        };
      });
    });
    afterAll(() => plugin.close());

    it('gives every step the plugin’s variables over the runner’s and under the file’s, masked ones as secrets', async () => {
      const prepared = await prepareStage(details({ config: WITH_ENV }), withPlugin('/'), 1_000);
      if (!prepared.ok) throw new Error(prepared.error);
      const step = prepared.spec.steps.find((s) => s.name === 'test');
      expect(step?.envs).toMatchObject({ TEAM: 'from-the-plugin', REGION: 'from-the-file' });
      expect(step?.envs.API_KEY).toBeUndefined();
      expect(step?.secrets.find((s) => s.env === 'API_KEY')).toMatchObject({
        data: 'k3y-from-plugin',
        mask: true,
      });
      expect(plugin.calls.at(-1)?.verified).toBe(true);
      expect(plugin.calls.at(-1)?.headers['content-type']).toBe('application/vnd.drone.environ.v1+json');
    });

    it('reads the older answer of names to values, and fails the stage when the plugin fails', async () => {
      const prepared = await prepareStage(details(), withPlugin('/old'), 1_000);
      if (!prepared.ok) throw new Error(prepared.error);
      expect(prepared.spec.steps.find((s) => s.name === 'test')?.envs.LEGACY).toBe('yes');
      expect(await prepareStage(details(), withPlugin('/down'), 1_000)).toEqual({
        ok: false,
        error: 'the environment plugin refused: 500 boom',
      });
    });
  });
});
