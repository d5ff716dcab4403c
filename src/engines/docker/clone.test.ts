import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StageExecutor } from '../../runner/executor.js';
import { MemoryReporter } from '../../runner/memory-reporter.js';
import { execSpec, execStep } from '../../runner/testing/spec.js';
import { DockerEngine } from './engine.js';
import { LABEL_OWNER } from './resources.js';
import { startGitServer, type GitServer } from '../../../test/support/git-server.js';
import { countMatching, dockerForTests } from './testing.case.js';

const { docker, skip } = await dockerForTests(['local/busybox', 'svc/git']);
const owner = `svc-test-${randomUUID().slice(0, 8)}`;

/**
 * svc's clone image against a real git server (test/support/git-server.ts): the clone step joins
 * the server's network through `step.networks` (containers cannot reach the host's loopback).
 */
describe.skipIf(skip)('svc/git clone script (real Docker engine)', () => {
  let server: GitServer | undefined;
  let network = '';
  let first = '';
  let second = '';

  beforeAll(async () => {
    if (!docker) return;
    server = await startGitServer(docker, { [LABEL_OWNER]: owner });
    network = server.network;
    first = server.commit('repo', 'main', { 'README.md': 'first version\n' }, 'first commit');
    server.tag('repo', 'main', 'v1');
    second = server.commit('repo', 'main', { 'README.md': 'second version\n' }, 'second commit');
  });

  afterAll(async () => {
    if (!docker) return;
    await server?.close();
    expect(await countMatching(docker, { label: [`${LABEL_OWNER}=${owner}`] })).toEqual({
      containers: 0,
      networks: 0,
      volumes: 0,
    });
  });

  it('clones a commit of a branch, and a tag, into the workspace', async () => {
    if (!docker) return;
    const clone = (name: string, workspace: string, envs: Record<string, string>) =>
      execStep(name, {
        image: 'svc/git',
        pull: 'never',
        networks: [network],
        envs: { DRONE_REMOTE_URL: 'http://git-server/repo.git', DRONE_WORKSPACE: workspace, ...envs },
      });
    const spec = execSpec([
      {
        ...clone('clone', '/drone/src', {
          DRONE_COMMIT_SHA: first,
          DRONE_COMMIT_BRANCH: 'main',
          DRONE_COMMIT_REF: 'refs/heads/main',
          DRONE_NETRC_MACHINE: 'git-server',
          DRONE_NETRC_USERNAME: 'ci',
        }),
        secrets: [{ name: 'netrc', env: 'DRONE_NETRC_PASSWORD', data: 'netrc-pa55word', mask: true }],
      },
      clone('clone-tag', '/drone/tag', { DRONE_COMMIT_REF: 'refs/tags/v1', DRONE_COMMIT_SHA: first }),
      execStep('check', {
        dependsOn: ['clone', 'clone-tag'],
        pull: 'never',
        entrypoint: ['/bin/sh', '-c'],
        command: ['cat /drone/src/README.md /drone/tag/README.md; cat /drone/src/.git/HEAD'],
        workingDir: '/drone/src',
      }),
    ]);
    const reporter = new MemoryReporter();
    const engine = new DockerEngine({ docker, owner });
    const result = await new StageExecutor({ engine }).execute(spec, { reporter });

    expect(result.status, reporter.allLines().join('\n')).toBe('success');
    const cloneLines = reporter.lines('clone');
    expect(cloneLines).toContain('svc-clone: wrote credentials for git-server to /root/.netrc');
    expect(cloneLines).toContain('+ git fetch --no-tags origin +refs/heads/main:refs/remotes/origin/main');
    // The build's commit, not the branch head (the second commit). `toContain`, not the last line:
    // git's progress goes to stderr, and lines of two pipes have no guaranteed order.
    expect(cloneLines).toContain(`${first} first commit`);
    expect(cloneLines.join('\n')).not.toContain(second);
    expect(reporter.lines('clone-tag')).toContain(`${first} first commit`);
    expect(reporter.lines('check')).toEqual(['first version', 'first version', 'ref: refs/heads/main']);
    expect(reporter.allLines().join('\n')).not.toContain('netrc-pa55word');
  });

  it('fetches submodules from the URLs PLUGIN_SUBMODULE_OVERRIDE gives instead of those in .gitmodules', async () => {
    if (!docker || !server) return;
    const lib = server.commit('lib', 'main', { 'lib.txt': 'from the library\n' }, 'library');
    // .gitmodules points at a repository that does not exist: only the override makes the clone work.
    const app = server.submodule('repo', 'main', {
      name: 'lib',
      path: 'vendor/lib',
      url: 'http://git-server/moved-away.git',
      sha: lib,
    });
    const spec = execSpec([
      execStep('clone', {
        image: 'svc/git',
        pull: 'never',
        networks: [network],
        envs: {
          DRONE_REMOTE_URL: 'http://git-server/repo.git',
          DRONE_WORKSPACE: '/drone/src',
          DRONE_COMMIT_SHA: app,
          DRONE_COMMIT_BRANCH: 'main',
          PLUGIN_RECURSIVE: 'true',
          PLUGIN_SUBMODULE_OVERRIDE: ' {"lib": "http://git-server/lib.git", "other": "http://x/y.git"}\n',
        },
      }),
      execStep('check', {
        dependsOn: ['clone'],
        pull: 'never',
        entrypoint: ['/bin/sh', '-c'],
        command: ['cat vendor/lib/lib.txt'],
        workingDir: '/drone/src',
      }),
      execStep('bad-override', {
        // Ignored, so that its failure does not skip `check`.
        errPolicy: 'ignore',
        image: 'svc/git',
        pull: 'never',
        networks: [network],
        envs: {
          DRONE_REMOTE_URL: 'http://git-server/repo.git',
          DRONE_WORKSPACE: '/drone/bad',
          DRONE_COMMIT_SHA: app,
          DRONE_COMMIT_BRANCH: 'main',
          PLUGIN_SUBMODULE_OVERRIDE: '["lib"]',
        },
      }),
    ]);
    const reporter = new MemoryReporter();
    const engine = new DockerEngine({ docker, owner });
    const result = await new StageExecutor({ engine }).execute(spec, { reporter });

    expect(reporter.lines('clone')).toContain('+ git config submodule.lib.url http://git-server/lib.git');
    expect(reporter.lines('check')).toEqual(['from the library']);
    expect(reporter.lines('bad-override')).toContain(
      'svc-clone: PLUGIN_SUBMODULE_OVERRIDE must be a JSON object of submodule names to URLs, got: ["lib"]',
    );
    expect(result.steps.find((s) => s.name === 'bad-override')?.status).toBe('failure');
  });
});
