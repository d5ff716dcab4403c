import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StageExecutor } from '../../runner/executor.js';
import { MemoryReporter } from '../../runner/memory-reporter.js';
import { execSpec, execStep } from '../../runner/testing/spec.js';
import { DockerEngine } from './engine.js';
import { LABEL_OWNER } from './resources.js';
import { countMatching, dockerForTests } from './testing.case.js';

const { docker, skip } = await dockerForTests(['local/busybox', 'svc/git']);
const owner = `svc-test-${randomUUID().slice(0, 8)}`;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  }).trim();
}

/**
 * svc's clone image against a real git server: a bare repository on the host, served over git's
 * dumb HTTP protocol by busybox httpd in a container on a network the test creates, which the
 * clone step joins through `step.networks` (containers cannot reach the host's loopback).
 */
describe.skipIf(skip)('svc/git clone script (real Docker engine)', () => {
  const network = `svc-test-git-${randomUUID().slice(0, 8)}`;
  let dir = '';
  let serverId = '';
  let first = '';
  let second = '';

  beforeAll(async () => {
    if (!docker) return;
    dir = await mkdtemp(join(tmpdir(), 'svc-clone-test-'));
    const src = join(dir, 'src');
    execFileSync('git', ['init', '-q', '-b', 'main', src]);
    await writeFile(join(src, 'README.md'), 'first version\n');
    git(src, 'add', 'README.md');
    git(src, 'commit', '-q', '-m', 'first commit');
    first = git(src, 'rev-parse', 'HEAD');
    git(src, 'tag', 'v1');
    await writeFile(join(src, 'README.md'), 'second version\n');
    git(src, 'commit', '-q', '-am', 'second commit');
    second = git(src, 'rev-parse', 'HEAD');
    execFileSync('git', ['clone', '-q', '--bare', src, join(dir, 'www', 'repo.git')]);
    git(join(dir, 'www', 'repo.git'), 'update-server-info');

    await docker.createNetwork({ Name: network, Labels: { [LABEL_OWNER]: owner } });
    const server = await docker.createContainer({
      Image: 'local/busybox',
      Cmd: ['httpd', '-f', '-p', '80', '-h', '/www'],
      Labels: { [LABEL_OWNER]: owner },
      HostConfig: { Binds: [`${join(dir, 'www')}:/www:ro`], NetworkMode: network },
      NetworkingConfig: { EndpointsConfig: { [network]: { Aliases: ['git-server'] } } },
    });
    serverId = server.id;
    await server.start();
  });

  afterAll(async () => {
    if (!docker) return;
    if (serverId) await docker.getContainer(serverId).remove({ force: true });
    await docker.getNetwork(network).remove();
    await rm(dir, { recursive: true, force: true });
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
});
