import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { DockerClient } from '../../src/engines/docker/index.js';

/**
 * A real git server for tests: bare repositories on the host, served over git's dumb HTTP protocol by
 * busybox httpd in a container on a network the test creates (containers cannot reach the host's
 * loopback). Steps reach it as `http://git-server/<repo>.git` once they join `network`.
 */
export interface GitServer {
  /** The network to join: `step.networks` or SVC_RUNNER_NETWORKS. */
  readonly network: string;
  cloneUrl(repo: string): string;
  /** Commits `files` on `branch` of `repo` (created on first use) and publishes it; returns the sha. */
  commit(repo: string, branch: string, files: Record<string, string>, message: string): string;
  /** Tags the head of `branch` and publishes the tag. */
  tag(repo: string, branch: string, name: string): void;
  /**
   * Commits a submodule at `path` of `repo`: `.gitmodules` names it `name` with `url`, the tree
   * points it at commit `sha` (of another repository of the server). Returns the new commit's sha.
   */
  submodule(
    repo: string,
    branch: string,
    sub: { name: string; path: string; url: string; sha: string },
  ): string;
  close(): Promise<void>;
}

const AUTHOR = {
  GIT_AUTHOR_NAME: 'Octo Cat',
  GIT_AUTHOR_EMAIL: 'octocat@example.com',
  GIT_COMMITTER_NAME: 'Octo Cat',
  GIT_COMMITTER_EMAIL: 'octocat@example.com',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...AUTHOR } }).trim();
}

/** Checks out `branch`, creating it from the current commit (or, in an empty repository, unborn). */
function switchTo(path: string, branch: string): void {
  let hasCommits = true;
  try {
    git(path, 'rev-parse', '--verify', '-q', 'HEAD');
  } catch {
    hasCommits = false;
  }
  if (!hasCommits) git(path, 'symbolic-ref', 'HEAD', `refs/heads/${branch}`);
  else if (git(path, 'branch', '--list', branch) !== '') git(path, 'checkout', '-q', branch);
  else git(path, 'checkout', '-q', '-b', branch);
}

/** Starts the server container; `labels` mark it (and its network) for the test's leftover checks. */
export async function startGitServer(
  docker: DockerClient,
  labels: Record<string, string> = {},
): Promise<GitServer> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-git-server-'));
  const www = join(dir, 'www');
  mkdirSync(www);
  const network = `svc-test-git-${randomUUID().slice(0, 8)}`;
  await docker.createNetwork({ Name: network, Labels: labels });
  const { Id: container } = await docker.createContainer({
    Image: 'local/busybox',
    Cmd: ['httpd', '-f', '-p', '80', '-h', '/www'],
    Labels: labels,
    HostConfig: { Binds: [`${www}:/www:ro`], NetworkMode: network },
    NetworkingConfig: { EndpointsConfig: { [network]: { Aliases: ['git-server'] } } },
  });
  await docker.startContainer(container);

  const work = (repo: string): string => {
    const path = join(dir, 'work', repo);
    if (!existsSync(path)) {
      mkdirSync(path, { recursive: true });
      git(path, 'init', '-q', '-b', 'main');
      execFileSync('git', ['init', '-q', '--bare', join(www, `${repo}.git`)]);
      git(path, 'remote', 'add', 'origin', join(www, `${repo}.git`));
    }
    return path;
  };
  const publish = (repo: string, ref: string): void => {
    git(work(repo), 'push', '-q', 'origin', ref);
    git(join(www, `${repo}.git`), 'update-server-info');
  };

  return {
    network,
    cloneUrl: (repo) => `http://git-server/${repo}.git`,
    commit(repo, branch, files, message) {
      const path = work(repo);
      switchTo(path, branch);
      for (const [file, content] of Object.entries(files)) {
        mkdirSync(dirname(join(path, file)), { recursive: true });
        writeFileSync(join(path, file), content);
      }
      git(path, 'add', '-A');
      git(path, 'commit', '-q', '--allow-empty', '-m', message);
      publish(repo, branch);
      return git(path, 'rev-parse', 'HEAD');
    },
    submodule(repo, branch, { name, path: subPath, url, sha }) {
      const path = work(repo);
      switchTo(path, branch);
      git(path, 'config', '-f', '.gitmodules', `submodule.${name}.path`, subPath);
      git(path, 'config', '-f', '.gitmodules', `submodule.${name}.url`, url);
      git(path, 'update-index', '--add', '--cacheinfo', `160000,${sha},${subPath}`);
      git(path, 'add', '.gitmodules');
      git(path, 'commit', '-q', '-m', `submodule ${name}`);
      publish(repo, branch);
      return git(path, 'rev-parse', 'HEAD');
    },
    tag(repo, branch, name) {
      const path = work(repo);
      git(path, 'tag', name, branch);
      publish(repo, `refs/tags/${name}`);
    },
    async close() {
      await docker.removeContainer(container, { force: true });
      await docker.removeNetwork(network);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
