import { afterEach, describe, expect, it } from 'vitest';
import { isDone } from '../../src/core/status.js';
import type { Store } from '../../src/core/store.js';
import type { NullScript } from '../../src/engines/null/engine.js';
import type { WireDetails } from '../../src/runner/client/wire/index.js';
import { encryptSecret } from '../../src/server/signing/secret-box.js';
import { newSecret } from '../../src/store/cases/fixtures.case.js';
import { useServers } from './support/fresh.js';
import { json, queueBuild } from './support/harness.js';
import { eventually, startRunner, type TestRunner } from './support/runner.js';

const KEY = 'a-repository-key-of-32-bytes-abc';
const OTHER_KEY = 'another-repositorys-32-byte-key!';

/** A pipeline whose step takes `token` from a `kind: secret` document with an encrypted value. */
function pipelineWith(encrypted: string): string {
  return `kind: pipeline
type: docker
name: build
clone:
  disable: true
steps:
- name: show
  image: local/busybox
  environment:
    TOKEN: { from_secret: token }
  commands: [ "echo $TOKEN" ]
---
kind: secret
name: token
data: ${encrypted}
`;
}

/** The step prints its TOKEN variable, as `echo $TOKEN` would. */
const printToken: NullScript = (step, output) => {
  const token = step.secrets.find((secret) => secret.env === 'TOKEN');
  output(`token is ${token?.data ?? '(none)'} and masked: ${String(token?.mask)}`);
  return Promise.resolve({ exitCode: 0, oomKilled: false });
};

async function doneBuild(store: Store, buildId: number) {
  return eventually(async () => {
    const build = await store.builds.find(buildId);
    return build !== undefined && isDone(build.status) ? build : undefined;
  }, 15_000);
}

describe('encrypted values in kind: secret documents', () => {
  const server = useServers();
  const runners: TestRunner[] = [];
  afterEach(async () => {
    for (const runner of runners.splice(0)) await runner.stop();
  });

  it('reach the step that names them, masked in its log', async () => {
    const s = await server();
    const { build, stages } = await queueBuild(s.store, [{ name: 'build' }], {
      repo: { signingKey: KEY },
      build: { config: pipelineWith(encryptSecret('s3cr3t-from-the-file', KEY)) },
    });
    s.queue.wake();
    runners.push(startRunner(s.url, { steps: { show: printToken } }));
    expect((await doneBuild(s.store, build.id)).status).toBe('success');
    const [step] = await s.store.steps.list(stages[0]!.id);
    const log = await s.store.logs.find(step!.id);
    expect(log?.map((line) => line.out)).toEqual(['token is ******** and masked: true']);
    expect(JSON.stringify(log)).not.toContain('s3cr3t');
  });

  it('fail the stage, naming the secret, when the value was encrypted for another repository', async () => {
    const s = await server();
    const { build, stages } = await queueBuild(s.store, [{ name: 'build' }], {
      repo: { signingKey: KEY },
      build: { config: pipelineWith(encryptSecret('not for this repository', OTHER_KEY)) },
    });
    s.queue.wake();
    const runner = startRunner(s.url, { steps: { show: printToken } });
    runners.push(runner);
    expect((await doneBuild(s.store, build.id)).status).toBe('error');
    const stage = await s.store.stages.find(stages[0]!.id);
    expect(stage?.error).toBe(
      'secret "token": its encrypted data cannot be decrypted: it was not encrypted with this repository’s key (encrypted for another repository, or altered)',
    );
    expect(runner.engine.started()).toEqual([]);
  });
});

describe('stage details with encrypted values', () => {
  const server = useServers();

  async function details(s: Awaited<ReturnType<typeof server>>, stageId: number): Promise<WireDetails> {
    await s.call('POST', `/rpc/v2/stage/${stageId}?machine=runner-1`);
    return json<WireDetails>(await s.call('GET', `/rpc/v2/stage/${stageId}`));
  }

  it('carry the decrypted value over a stored secret of the same name, and name the undecryptable ones', async () => {
    const s = await server();
    const config = `${pipelineWith(encryptSecret('from-the-file', KEY))}---
kind: secret
name: broken
data: ${encryptSecret('x', KEY).replace(/^.{4}/, 'AAAA')}
`;
    const { repo, stages } = await queueBuild(s.store, [{ name: 'build' }], {
      repo: { signingKey: KEY },
      build: { config, event: 'pull_request' },
    });
    await s.store.secrets.create(
      newSecret({ kind: 'repo', repoId: repo.id }, { name: 'token', data: 'stored', pullRequest: true }),
    );
    const d = await details(s, stages[0]!.id);
    expect(d.secrets.filter((secret) => secret.name === 'token').map((secret) => secret.data)).toEqual([
      'from-the-file',
    ]);
    expect(d.secret_errors).toEqual([
      {
        name: 'broken',
        message:
          'secret "broken": its encrypted data cannot be decrypted: it was not encrypted with this repository’s key (encrypted for another repository, or altered)',
      },
    ]);
    expect(JSON.stringify(d)).not.toContain(KEY);
  });

  // A deleted fork's pull request has no source repository: empty must not read as "ours".
  it.each([
    ['from a fork', 'mallory/fork'],
    ['whose fork was deleted (no source repository)', ''],
  ])('give a pull request %s no decrypted value', async (_case, sourceRepo) => {
    const s = await server();
    const { stages } = await queueBuild(s.store, [{ name: 'build' }], {
      repo: { signingKey: KEY },
      build: { config: pipelineWith(encryptSecret('from-the-file', KEY)), event: 'pull_request', sourceRepo },
    });
    const d = await details(s, stages[0]!.id);
    expect(d.secrets).toEqual([]);
    expect(d.secret_errors).toEqual([]);
  });
});
