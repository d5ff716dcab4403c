/*
 * Caches on the SSH engine against a real sshd, as tar streams over the stage's connection: a
 * step's paths (in the workspace, which lives in the stage's folder on the host, and elsewhere on
 * the host) saved after it succeeds and restored into the next stage's step before it starts, the
 * key following a checksummed file; a failing step saves nothing; a malicious archive in the store
 * is refused before anything lands outside. The counterpart of the Docker engine's cache.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createZstdCompress } from 'node:zlib';
import * as tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSshd, sshdForTests, type TestSshd } from '../../../test/support/sshd.js';
import type { AroundStep, ExecCache, ExecSpec, ExecStep } from '../../core/engine.js';
import { LocalCacheTransport } from '../../runner/cache/local-transport.js';
import { StageExecutor } from '../../runner/executor.js';
import { MemoryReporter } from '../../runner/memory-reporter.js';
import { execSpec, execStep } from '../../runner/testing/spec.js';
import { SshEngine } from './engine.js';
import { HostKeys } from './host-keys.js';

const { skip } = sshdForTests();

/** Outside the workspace, where the ssh test account may write; removed at the end. */
const TOOL = `/tmp/svc-ssh-cache-${randomUUID().slice(0, 8)}/tool`;

const CACHE: ExecCache = {
  key: 'deps-{{ checksum "lock" }}',
  restoreKeys: ['deps-'],
  paths: ['deps', TOOL],
  policy: 'pull-push',
};

function sh(name: string, script: string, fields: Partial<ExecStep> = {}): ExecStep {
  return execStep(name, {
    image: '',
    entrypoint: ['/bin/sh', '-c'],
    command: [script],
    workingDir: '/drone/src',
    ...fields,
  });
}

/** One stage: `lock` written with `lock`, then the cached step runs `script`. */
function stage(lock: string, script: string, cache: ExecCache = CACHE): ExecSpec {
  return execSpec([
    sh('prepare', `echo ${lock} > lock`),
    sh('deps', script, { dependsOn: ['prepare'], cache }),
  ]);
}

describe.skipIf(skip)('caches on the SSH engine', () => {
  let sshd: TestSshd;
  const folder = mkdtempSync(join(tmpdir(), 'svc-ssh-cache-'));
  const caches = new LocalCacheTransport(folder);
  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(async () => {
    await sshd?.stop();
    rmSync(join(TOOL, '..'), { recursive: true, force: true });
  });

  const engine = () =>
    new SshEngine({
      target: () => ({
        host: sshd.host,
        port: sshd.port,
        user: sshd.passwordUser.user,
        privateKey: sshd.clientKey,
      }),
      hostKeys: new HostKeys({}),
    });
  const run = async (spec: ExecSpec, store = caches) => {
    const reporter = new MemoryReporter();
    const result = await new StageExecutor({ engine: engine() }).execute(spec, { reporter, caches: store });
    // The first line of a stage is the trusted host key's notice.
    const lines = reporter.lines('deps').filter((line) => !line.startsWith('ssh: '));
    return { result, lines, stageFolder: `/tmp/svc-${spec.runId}` };
  };

  it('saves the paths after success and restores them into the next stage before the step starts', async () => {
    const fill =
      `test -e deps/a && echo warm || echo cold; mkdir -p deps/sub ${TOOL}; echo a > deps/a; ` +
      'echo b > deps/sub/b; chmod 775 deps/a; ln -sf a deps/link; ln -sf "$PWD/deps/a" deps/absolute; ' +
      `ln -f deps/a deps/hard; echo t > ${TOOL}/t`;
    const first = await run(stage('v1', fill));
    expect(first.result.status, first.lines.join('\n')).toBe('success');
    expect(first.lines[0]).toMatch(/^cache: nothing saved under "deps-[0-9a-f]{64}" or its restore keys$/);
    expect(first.lines).toContain('cold');
    expect(first.lines.at(-1)).toMatch(
      new RegExp(`^cache: saved "deps-[0-9a-f]{64}" \\(deps, ${TOOL}\\), [\\d.]+ MB in [\\d.]+ s$`),
    );
    // The stage's folder is gone; the absolute path stays where it is on the host.
    expect(existsSync(first.stageFolder)).toBe(false);
    rmSync(join(TOOL, '..'), { recursive: true, force: true });

    // Another stage, another folder: the workspace's paths land in it, the absolute ones where they were.
    const check =
      `cat deps/a deps/sub/b ${TOOL}/t; readlink deps/link; stat -c %a deps/a; stat -c %h deps/a; ` +
      '[ "$(readlink deps/absolute)" = "$PWD/deps/a" ] && echo absolute link in this stage; ' +
      `stat -c %U deps/a ${TOOL}/t`;
    const second = await run(stage('v1', check));
    expect(second.result.status, second.lines.join('\n')).toBe('success');
    expect(second.lines[0]).toMatch(/^cache: restored "deps-[0-9a-f]{64}", [\d.]+ MB in [\d.]+ s$/);
    const user = sshd.passwordUser.user;
    expect(second.lines.slice(1, 10)).toEqual([
      'a',
      'b',
      't',
      'a',
      '775',
      '2',
      'absolute link in this stage',
      user,
      user,
    ]);
    expect(second.lines.at(-1)).toMatch(/was restored as it is; not saved again$/);

    // A changed lock file makes a new key: the old entry comes back through the restore key.
    const third = await run(stage('v2', 'cat deps/a'));
    expect(third.lines[0]).toMatch(/^cache: restored "deps-[0-9a-f]{64}" \(a restore key matched\)/);
    expect(third.lines[1]).toBe('a');
    expect(third.lines.at(-1)).toMatch(/^cache: saved /);
  }, 120_000);

  it('saves nothing for a failing step, and keeps nothing when the policy is pull', async () => {
    const failing = await run(
      stage('v3', 'mkdir deps; echo x > deps/x; exit 1', { ...CACHE, restoreKeys: [] }),
    );
    expect(failing.result.status).toBe('failure');
    expect(failing.lines.at(-1)).toBe('cache: not saved: the step failed');
    const pull = await run(
      stage('v4', 'mkdir -p deps; echo y > deps/y', { ...CACHE, restoreKeys: [], policy: 'pull' }),
    );
    expect(pull.result.status).toBe('success');
    expect(pull.lines.some((line) => line.startsWith('cache: saved'))).toBe(false);
  }, 60_000);

  it('says why a path the host’s tar cannot read is not saved, and keeps no entry', async () => {
    const cache = { ...CACHE, key: 'unreadable', restoreKeys: [] };
    const { result, lines } = await run(stage('v5', 'mkdir deps; echo x > deps/x; chmod 000 deps/x', cache));
    expect(result.status).toBe('success');
    expect(lines.at(-1)).toMatch(
      /^cache: saving failed: tar of \/drone\/src\/deps on svc-ssh-test@127\.0\.0\.1:\d+ failed: tar: deps\/x: Cannot open: Permission denied; /,
    );
    expect(await caches.restore('unreadable', [])).toBeUndefined();
  }, 60_000);

  it('says so and runs the step when the checksummed file is missing', async () => {
    const { result, lines } = await run(execSpec([sh('deps', 'echo ran', { cache: CACHE })]));
    expect(result.status).toBe('success');
    expect(lines).toEqual(['cache: not used: checksum "lock": no such file in the workspace', 'ran']);
  }, 60_000);

  it('refuses a malicious archive in the store: nothing lands outside the step’s paths', async () => {
    // A folder the ssh account could write to, which the archive's link points at.
    const outside = mkdtempSync(join(tmpdir(), 'svc-ssh-outside-'));
    chmodSync(outside, 0o777);
    const evil = new LocalCacheTransport(mkdtempSync(join(tmpdir(), 'svc-ssh-evil-')));
    const pack = tar.pack();
    pack.entry({ name: 'w/deps/ok', type: 'file', mode: 0o644 }, 'fine');
    pack.entry({ name: 'w/deps/escape', type: 'symlink', linkname: outside });
    pack.entry({ name: 'w/deps/escape/owned', type: 'file', mode: 0o644 }, 'owned');
    pack.finalize();
    await evil.save('poisoned', Readable.from(pack).pipe(createZstdCompress()));
    const spec = execSpec([
      sh(
        'deps',
        `test -e ${outside}/owned && echo poisoned || echo clean; test -e deps/escape || echo no link`,
        {
          cache: { key: 'poisoned', restoreKeys: [], paths: ['deps'], policy: 'pull' },
        },
      ),
    ]);
    try {
      const { result, lines } = await run(spec, evil);
      expect(result.status).toBe('success');
      expect(lines[0]).toMatch(
        /^cache: restoring failed: the cache archive's entry "w\/deps\/escape" points out of deps/,
      );
      expect(lines.slice(1)).toEqual(['clean', 'no link']);
      expect(existsSync(join(outside, 'owned'))).toBe(false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  }, 60_000);

  it('says on a Windows host that the step’s cache is not used, and leaves its files alone', async () => {
    const ssh = engine();
    const step = sh('deps', 'echo ran', { cache: CACHE });
    const spec = execSpec([step], { platform: { os: 'windows', arch: 'amd64' } });
    const touched: string[] = [];
    const around: AroundStep = {
      before: () => Promise.resolve(void touched.push('before')),
      after: () => Promise.resolve(void touched.push('after')),
    };
    const lines: string[] = [];
    await ssh.setup(spec);
    try {
      // No PowerShell on this test host: the step itself cannot run; what matters is what came first.
      await ssh.run(spec, step, (line) => lines.push(line), undefined, around).catch(() => undefined);
    } finally {
      await ssh.destroy(spec);
    }
    expect(lines.filter((line) => !line.startsWith('ssh: '))).toEqual([
      'cache: not used: a Windows host cannot move a step’s files yet',
    ]);
    expect(touched).toEqual([]);
  }, 60_000);
});
