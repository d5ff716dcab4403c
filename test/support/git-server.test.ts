import { describe, expect, it } from 'vitest';
import { StageExecutor } from '../../src/runner/executor.js';
import { MemoryReporter } from '../../src/runner/memory-reporter.js';
import { execSpec, execStep } from '../../src/runner/testing/spec.js';
import { DockerEngine } from '../../src/engines/docker/engine.js';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { startGitServer } from './git-server.js';

const { docker, skip } = await dockerForTests(['local/busybox', 'svc/git']);

describe.skipIf(skip)('the git server of the tests', () => {
  it('serves branches and tags to a clone step on its network', async () => {
    if (!docker) return;
    const server = await startGitServer(docker, { 'io.svc.owner': 'svc-test-git-server' });
    try {
      const first = server.commit('octo/app', 'main', { 'README.md': 'one\n' }, 'first');
      const feature = server.commit('octo/app', 'feature', { 'a.txt': 'a\n' }, 'on feature');
      server.tag('octo/app', 'main', 'v1');
      const clone = execStep('clone', {
        image: 'svc/git',
        pull: 'never',
        networks: [server.network],
        envs: {
          DRONE_REMOTE_URL: server.cloneUrl('octo/app'),
          DRONE_WORKSPACE: '/drone/src',
          DRONE_COMMIT_SHA: feature,
          DRONE_COMMIT_BRANCH: 'feature',
          DRONE_COMMIT_REF: 'refs/heads/feature',
        },
      });
      const check = execStep('check', {
        dependsOn: ['clone'],
        pull: 'never',
        entrypoint: ['/bin/sh', '-c'],
        command: ['cat README.md a.txt'],
        workingDir: '/drone/src',
      });
      const reporter = new MemoryReporter();
      const result = await new StageExecutor({
        engine: new DockerEngine({ docker, owner: 'svc-test-git-server' }),
      }).execute(execSpec([clone, check]), { reporter });
      expect(result.status, reporter.allLines().join('\n')).toBe('success');
      expect(reporter.lines('check')).toEqual(['one', 'a']);
      expect(first).not.toBe(feature);
    } finally {
      await server.close();
    }
  });
});
