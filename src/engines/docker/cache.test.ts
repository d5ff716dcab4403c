/*
 * Caches on the real Docker engine, through the Engine API's archive endpoints: a step's paths
 * (in the workspace volume and elsewhere in its container) saved after it succeeds and restored
 * into the next run's step before it starts, the key following a checksummed file; a failing step
 * saves nothing; a malicious archive in the store is refused before anything lands outside.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import * as tar from 'tar-stream';
import { createZstdCompress } from 'node:zlib';
import type { ExecCache, ExecSpec } from '../../core/engine.js';
import { LocalCacheTransport } from '../../runner/cache/local-transport.js';
import { StageExecutor } from '../../runner/executor.js';
import { MemoryReporter } from '../../runner/memory-reporter.js';
import { busyboxShell, execSpec } from '../../runner/testing/spec.js';
import { DockerEngine } from './engine.js';
import { LABEL_OWNER } from './resources.js';
import { countMatching, dockerForTests } from './testing.case.js';

const { docker, skip } = await dockerForTests(['local/busybox']);
const owner = `svc-test-${randomUUID().slice(0, 8)}`;

const CACHE: ExecCache = {
  key: 'deps-{{ checksum "lock" }}',
  restoreKeys: ['deps-'],
  paths: ['deps', '/opt/tool-cache'],
  policy: 'pull-push',
};

const sh = busyboxShell;

/** One stage: `lock` written with `lock`, then the cached step runs `script`. */
function stage(lock: string, script: string, cache: ExecCache = CACHE): ExecSpec {
  return execSpec([
    sh('prepare', `echo ${lock} > lock`),
    sh('deps', script, { dependsOn: ['prepare'], cache }),
  ]);
}

describe.skipIf(skip)('caches on the Docker engine', () => {
  const folder = mkdtempSync(join(tmpdir(), 'svc-docker-cache-'));
  const caches = new LocalCacheTransport(folder);
  const run = async (spec: ExecSpec) => {
    if (docker === undefined) throw new Error('no Docker engine');
    const reporter = new MemoryReporter();
    const executor = new StageExecutor({ engine: new DockerEngine({ docker, owner }) });
    const result = await executor.execute(spec, { reporter, caches });
    return { result, lines: reporter.lines('deps') };
  };

  afterEach(async () => {
    if (docker === undefined) return;
    expect(await countMatching(docker, { label: [`${LABEL_OWNER}=${owner}`] })).toEqual({
      containers: 0,
      networks: 0,
      volumes: 0,
    });
  });

  it('saves the paths after success and restores them into the next run before the step starts', async () => {
    const fill =
      'test -e deps/a && echo warm || echo cold; mkdir -p deps/sub /opt/tool-cache; echo a > deps/a; ' +
      'echo b > deps/sub/b; chmod 755 deps/a; ln -sf a deps/link; echo t > /opt/tool-cache/t';
    const first = await run(stage('v1', fill));
    expect(first.result.status, first.lines.join('\n')).toBe('success');
    expect(first.lines[0]).toMatch(/^cache: nothing saved under "deps-[0-9a-f]{64}" or its restore keys$/);
    expect(first.lines).toContain('cold');
    expect(first.lines.at(-1)).toMatch(
      /^cache: saved "deps-[0-9a-f]{64}" \(deps, \/opt\/tool-cache\), [\d.]+ MB in [\d.]+ s$/,
    );

    const check = 'cat deps/a deps/sub/b /opt/tool-cache/t; readlink deps/link; stat -c %a deps/a';
    const second = await run(stage('v1', check));
    expect(second.result.status, second.lines.join('\n')).toBe('success');
    expect(second.lines[0]).toMatch(/^cache: restored "deps-[0-9a-f]{64}", [\d.]+ MB in [\d.]+ s$/);
    expect(second.lines.slice(1, 6)).toEqual(['a', 'b', 't', 'a', '755']);
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

  it('says so and runs the step when the checksummed file is missing', async () => {
    const spec = execSpec([sh('deps', 'echo ran', { cache: CACHE })]);
    const { result, lines } = await run(spec);
    expect(result.status).toBe('success');
    expect(lines).toEqual(['cache: not used: checksum "lock": no such file in the workspace', 'ran']);
  }, 60_000);

  it('refuses a malicious archive in the store: nothing lands outside the step’s paths', async () => {
    const evil = new LocalCacheTransport(mkdtempSync(join(tmpdir(), 'svc-docker-evil-')));
    const pack = tar.pack();
    pack.entry({ name: 'w/deps/ok', type: 'file', mode: 0o644 }, 'fine');
    pack.entry({ name: 'w/deps/escape', type: 'symlink', linkname: '/etc' });
    pack.entry({ name: 'w/deps/escape/passwd', type: 'file', mode: 0o644 }, 'root::0:0::/:/bin/sh');
    pack.finalize();
    await evil.save('poisoned', Readable.from(pack).pipe(createZstdCompress()));
    if (docker === undefined) throw new Error('no Docker engine');
    const reporter = new MemoryReporter();
    const executor = new StageExecutor({ engine: new DockerEngine({ docker, owner }) });
    const spec = execSpec([
      sh(
        'deps',
        "grep -q '::/:/bin/sh' /etc/passwd && echo poisoned || echo clean; ls /drone/src/deps 2>/dev/null || true",
        {
          cache: { key: 'poisoned', restoreKeys: [], paths: ['deps'], policy: 'pull' },
        },
      ),
    ]);
    const result = await executor.execute(spec, { reporter, caches: evil });
    const lines = reporter.lines('deps');
    expect(result.status).toBe('success');
    expect(lines[0]).toMatch(
      /^cache: restoring failed: the cache archive's entry "w\/deps\/escape" points out of deps/,
    );
    // Nothing is outside the step's path. What came before the refused entry may be in it, or not
    // (the restore sends the archive on in pieces of 256 KiB, and the refusal stops the rest).
    expect(lines[1]).toBe('clean');
    expect(lines.slice(2).every((line) => line === 'ok')).toBe(true);
  }, 60_000);
});
