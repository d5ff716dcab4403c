import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileYaml as compile, TWO_STEPS } from '../../../test/fixtures/pipelines/compile-input.js';
import { DEFAULT_RUNNER_SETTINGS } from './input.js';

describe('compilePipeline: the clone step', () => {
  const netrc = { machine: 'github.com', login: 'octocat', password: 'ghp_secret' };

  it('clones with the clone image into the workspace, with the clone settings', async () => {
    const { step } = await compile(
      'kind: pipeline\nclone: {depth: 50, retries: 2, skip_verify: true, trace: true}\nsteps:\n- {name: a, image: x}\n',
    );
    expect(step('clone')).toMatchObject({
      image: 'svc/git',
      // svc's own image, published nowhere: never looked for on Docker Hub.
      pull: 'never',
      runPolicy: 'always',
      entrypoint: [],
      command: [],
      workingDir: '/drone/src',
      mounts: [],
    });
    expect(step('clone').envs).toMatchObject({
      DRONE_REMOTE_URL: 'https://github.com/octocat/hello-world.git',
      DRONE_COMMIT_SHA: 'abc123',
      DRONE_COMMIT_REF: 'refs/heads/main',
      PLUGIN_DEPTH: '50',
      PLUGIN_RETRIES: '2',
      PLUGIN_SKIP_VERIFY: 'true',
      GIT_SSL_NO_VERIFY: 'true',
      GIT_TRACE: 'true',
    });
    expect(step('a').envs.PLUGIN_DEPTH).toBeUndefined();
  });

  it('uses the runner clone image when set', async () => {
    const { step } = await compile(TWO_STEPS, {
      runner: { ...DEFAULT_RUNNER_SETTINGS, cloneImage: 'registry.local/git:2' },
    });
    expect(step('clone').image).toBe('registry.local/git:2');
    expect(step('clone').pull).toBe('if-not-exists');
  });

  it('gives clone credentials to every step, masked, unless they are for the clone step only', async () => {
    const shared = await compile(TWO_STEPS, { netrc });
    for (const name of ['clone', 'build']) {
      const step = shared.step(name);
      expect(step.envs.DRONE_NETRC_MACHINE).toBe('github.com');
      expect(step.secrets).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ env: 'DRONE_NETRC_USERNAME', data: 'octocat', mask: true }),
          expect.objectContaining({ env: 'DRONE_NETRC_PASSWORD', data: 'ghp_secret', mask: true }),
        ]),
      );
      expect(step.envs.DRONE_NETRC_PASSWORD).toBeUndefined();
    }
    const cloneOnly = await compile(TWO_STEPS, { netrc, netrcCloneOnly: true });
    expect(cloneOnly.step('clone').secrets.map((secret) => secret.env)).toContain('DRONE_NETRC_PASSWORD');
    expect(cloneOnly.step('build').secrets).toEqual([]);
    expect(cloneOnly.step('build').envs.DRONE_NETRC_MACHINE).toBeUndefined();
  });

  it('clones with git commands on host pipelines, which have no images', async () => {
    const { step } = await compile(
      'kind: pipeline\ntype: ssh\nserver: {host: h}\nclone: {depth: 1}\nsteps:\n- {name: a, commands: [make]}\n',
    );
    const clone = step('clone');
    expect(clone.image).toBe('');
    expect(clone.entrypoint).toEqual(['/bin/sh', '-c']);
    expect(clone.command[0]).toContain('git fetch --depth=1 origin "+refs/heads/$DRONE_COMMIT_BRANCH:"');
    expect(clone.command[0]).toContain('git checkout "$DRONE_COMMIT_SHA" -b "$DRONE_COMMIT_BRANCH"');
    expect(clone.command[0]).not.toContain('ghp_secret');
    expect(clone.command[0]).not.toContain('.netrc');
  });

  it('hands host clones their credentials through a git credential helper, never a file', async () => {
    const { step } = await compile(
      'kind: pipeline\ntype: ssh\nserver: {host: h}\nsteps:\n- {name: a, commands: [make]}\n',
      { netrc },
    );
    const clone = step('clone');
    // The script's own setup, up to the fetch, run by a real git in an empty folder.
    const setup = (clone.command[0] ?? '')
      .split('\n')
      .filter((line) => !line.includes('git fetch') && !line.includes('git checkout'));
    const dir = mkdtempSync(join(tmpdir(), 'svc-clone-helper-'));
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: dir, ...clone.envs };
    for (const secret of clone.secrets) env[secret.env] = secret.data;
    execFileSync('/bin/sh', ['-c', setup.join('\n')], { cwd: dir, env });
    const answer = execFileSync('git', ['credential', 'fill'], {
      cwd: dir,
      env,
      input: 'protocol=https\nhost=github.com\n\n',
      encoding: 'utf8',
    });
    expect(answer).toContain('username=octocat\npassword=ghp_secret');
    expect(readFileSync(join(dir, '.git', 'config'), 'utf8')).not.toContain('ghp_secret');
    expect(existsSync(join(dir, '.netrc'))).toBe(false);
  });

  it('gives an ssh stage its server, secrets resolved, and warns of a missing one', async () => {
    const { spec } = await compile(
      'kind: pipeline\ntype: ssh\nserver:\n  host: build.example.com:2222\n  user: ci\n  password: {from_secret: token}\nsteps:\n- {name: a, commands: [make]}\n',
    );
    expect(spec.host).toEqual({
      address: 'build.example.com:2222',
      user: 'ci',
      password: 's3cr3t-t0ken',
      privateKey: '',
    });
    const { spec: keyless, warnings } = await compile(
      'kind: pipeline\ntype: ssh\nserver:\n  host: h\n  user: ci\n  ssh_key: {from_secret: deploy_key}\nsteps:\n- {name: a, commands: [make]}\n',
    );
    expect(keyless.host?.privateKey).toBe('');
    expect(warnings).toContain('server.ssh_key: the secret "deploy_key" was not found, so it is empty');
    expect((await compile(TWO_STEPS)).spec.host).toBeUndefined();
  });
});
