/*
 * Caches on the Kubernetes engine, against the API double running pods on the real Docker engine:
 * the step's paths — in the workspace volume, and an absolute one that becomes a volume of its own —
 * saved by one stage's pod through its files container (exec, tar) and restored into the next
 * stage's pod before the step starts, with the owner, mode and symbolic links the step made.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createZstdCompress } from 'node:zlib';
import * as tar from 'tar-stream';
import { describe, expect, it } from 'vitest';
import type { ExecCache, ExecSpec } from '../../core/engine.js';
import { LocalCacheTransport } from '../../runner/cache/local-transport.js';
import { busyboxShell, execSpec } from '../../runner/testing/spec.js';
import { dockerForTests } from '../docker/testing.case.js';
import { kubeStages, useKubeStages } from './files.case.js';

const { skip } = await dockerForTests(['local/busybox', 'svc/placeholder', 'svc/git']);

const CACHE: ExecCache = {
  key: 'deps-{{ checksum "lock" }}',
  restoreKeys: ['deps-'],
  paths: ['deps', '/opt/tool-cache'],
  policy: 'pull-push',
};

/** One stage: `lock` written, then the cached step runs `script`. */
function stage(lock: string, script: string, cache: ExecCache = CACHE): ExecSpec {
  return execSpec([
    busyboxShell('prepare', `echo ${lock} > lock`),
    busyboxShell('deps', script, { dependsOn: ['prepare'], cache }),
  ]);
}

describe.skipIf(skip)('caches on the Kubernetes engine', () => {
  const caches = new LocalCacheTransport(mkdtempSync(join(tmpdir(), 'svc-kube-cache-')));
  const stages = useKubeStages();

  it('saves the paths after success and restores them into the next stage’s pod before the step starts', async () => {
    const fill =
      'test -e deps/a && echo warm || echo cold; mkdir -p deps/sub /opt/tool-cache; echo a > deps/a; ' +
      'echo b > deps/sub/b; chmod 751 deps/a; chown 1000:1000 deps/a; ln -sf a deps/link; echo t > /opt/tool-cache/t';
    const first = await stages().run(stage('v1', fill), { caches });
    const lines = first.lines('deps');
    expect(first.result.status, [first.result.error, ...lines].join('\n')).toBe('success');
    expect(lines[0]).toMatch(/^cache: nothing saved under "deps-[0-9a-f]{64}" or its restore keys$/);
    expect(lines).toContain('cold');
    expect(lines.at(-1)).toMatch(
      /^cache: saved "deps-[0-9a-f]{64}" \(deps, \/opt\/tool-cache\), [\d.]+ MB in [\d.]+ s$/,
    );

    const check = 'cat deps/a deps/sub/b /opt/tool-cache/t; readlink deps/link; stat -c "%a %u" deps/a';
    const second = await stages().run(stage('v1', check), { caches });
    const again = second.lines('deps');
    expect(second.result.status, [second.result.error, ...again].join('\n')).toBe('success');
    expect(again[0]).toMatch(/^cache: restored "deps-[0-9a-f]{64}", [\d.]+ MB in [\d.]+ s$/);
    // Owners come back as the step left them (the files container extracts as root).
    expect(again.slice(1, 6)).toEqual(['a', 'b', 't', 'a', '751 1000']);
    expect(again.at(-1)).toMatch(/was restored as it is; not saved again$/);

    const third = await stages().run(stage('v2', 'cat deps/a'), { caches });
    expect(third.lines('deps')[0]).toMatch(/^cache: restored "deps-[0-9a-f]{64}" \(a restore key matched\)/);
    expect(third.lines('deps')[1]).toBe('a');
  }, 180_000);

  it('saves nothing for a failing step, and says so when a path is missing', async () => {
    const failing = await stages().run(
      stage('v3', 'mkdir deps; echo x > deps/x; exit 1', { ...CACHE, restoreKeys: [] }),
      { caches },
    );
    expect(failing.result.status).toBe('failure');
    expect(failing.lines('deps').at(-1)).toBe('cache: not saved: the step failed');
    const partial = await stages().run(
      stage('v4', 'mkdir -p deps; echo y > deps/y', { ...CACHE, restoreKeys: [] }),
      { caches },
    );
    expect(partial.lines('deps').at(-1)).toMatch(
      /^cache: saved "deps-[0-9a-f]{64}" \(deps\), [\d.]+ MB in [\d.]+ s; not found: \/opt\/tool-cache$/,
    );
  }, 120_000);

  it('refuses a malicious archive in the store: the put fails, nothing lands outside the step’s paths', async () => {
    const evil = new LocalCacheTransport(mkdtempSync(join(tmpdir(), 'svc-kube-evil-')));
    const pack = tar.pack();
    pack.entry({ name: 'w/deps/ok', type: 'file', mode: 0o644 }, 'fine');
    pack.entry({ name: 'w/deps/escape', type: 'symlink', linkname: '/etc' });
    pack.entry({ name: 'w/deps/escape/passwd', type: 'file', mode: 0o644 }, 'root::0:0::/:/bin/sh');
    pack.finalize();
    await evil.save('poisoned', Readable.from(pack).pipe(createZstdCompress()));
    const spec = execSpec([
      busyboxShell('deps', "grep -q '::/:/bin/sh' /etc/passwd && echo poisoned || echo clean", {
        cache: { key: 'poisoned', restoreKeys: [], paths: ['deps'], policy: 'pull' },
      }),
    ]);
    const { result, lines } = await stages().run(spec, { caches: evil });
    expect(result.status, lines('deps').join('\n')).toBe('success');
    expect(lines('deps')[0]).toMatch(
      /^cache: restoring failed: the cache archive's entry "w\/deps\/escape" points out of deps/,
    );
    // The connection is cut at the refusal: whether entries before it were extracted is a race.
    expect(lines('deps').slice(1)).toEqual(['clean']);
  }, 60_000);
});

describe.skipIf(skip)('caches on the Kubernetes engine, when the files container cannot run', () => {
  it('says why in the step’s log, and runs the step without its cache', async () => {
    const broken = await kubeStages({ filesImage: 'svc/no-such-image:1', startTimeout: 3000 });
    try {
      const caches = new LocalCacheTransport(mkdtempSync(join(tmpdir(), 'svc-kube-nofiles-')));
      await caches.save('fixed', Readable.from([Buffer.alloc(0)]).pipe(createZstdCompress()));
      const spec = execSpec([
        busyboxShell('deps', 'mkdir -p deps && echo ran', {
          cache: { key: 'fixed', restoreKeys: [], paths: ['deps'], policy: 'pull-push' },
        }),
      ]);
      const { result, lines } = await broken.run(spec, { caches });
      expect(result.status, lines('deps').join('\n')).toBe('success');
      expect(lines('deps')[0]).toMatch(
        /^cache: restoring failed: the pod's files container \(svc\/no-such-image:1\) did not start within 3 s: (ErrImagePull|ImagePullBackOff)/,
      );
      expect(lines('deps')).toContain('ran');
      expect(lines('deps').at(-1)).toMatch(/^cache: saving failed: the pod's files container/);
      expect(broken.cluster.internalErrors()).toEqual([]);
    } finally {
      await broken.cluster.close();
    }
  }, 60_000);
});
