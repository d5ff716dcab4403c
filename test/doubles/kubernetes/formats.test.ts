/*
 * The small formats the double reproduces, without a server: label and field selectors, image
 * references as the kubelet normalises them, `$(VAR)` expansion, Go quoting and FormatMap for
 * downwardAPI files, the atomic writer's layout, quantities, and the scheduler's effective requests.
 */
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expand } from './env.js';
import { credentialsFor, parseImage } from './images.js';
import { bytes, milliCpu } from './quantity.js';
import { matchesLabels, parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { Secret } from './types.js';
import { formatMap, goQuote, writeAtomically } from './volume-files.js';

describe('label selectors', () => {
  const labels = { app: 'web', tier: 'gold', build: '12' };
  it.each([
    ['', true],
    ['app=web', true],
    ['app==web,tier=gold', true],
    ['app!=web', false],
    ['missing!=x', true],
    ['tier in (gold, silver)', true],
    ['tier notin (gold)', false],
    ['app', true],
    ['!app', false],
    ['!missing', true],
    ['build>11,build<13', true],
    ['io.drone.name=web', false],
  ])('%j selects: %s', (selector, expected) => {
    expect(matchesLabels(parseLabelSelector(selector), labels)).toBe(expected);
  });

  it('rejects what does not parse, and field labels a resource does not index', () => {
    expect(() => parseLabelSelector('app=web,,=')).toThrow(/unable to parse requirement/);
    expect(() => parseFieldSelector('pods', 'spec.containers=x')).toThrow(
      'field label not supported: spec.containers',
    );
    expect(parseFieldSelector('pods', 'status.phase!=Running,metadata.name=a')).toEqual([
      { field: 'status.phase', equal: false, value: 'Running' },
      { field: 'metadata.name', equal: true, value: 'a' },
    ]);
  });
});

describe('image references', () => {
  it.each([
    ['alpine', 'docker.io/library/alpine:latest'],
    ['alpine:3', 'docker.io/library/alpine:3'],
    ['local/busybox', 'docker.io/local/busybox:latest'],
    ['index.docker.io/library/alpine:3', 'docker.io/library/alpine:3'],
    ['localhost:5000/a/b:c', 'localhost:5000/a/b:c'],
    ['ghcr.io/o/r@sha256:' + 'a'.repeat(64), 'ghcr.io/o/r@sha256:' + 'a'.repeat(64)],
  ])('%s is reported as %s', (image, normalized) => {
    expect(parseImage(image)).toMatchObject({ ok: true, normalized });
  });

  it('rejects invalid references with the distribution/reference reasons', () => {
    expect(parseImage('BUSYBOX')).toEqual({
      ok: false,
      reason: 'invalid reference format: repository name must be lowercase',
    });
    expect(parseImage('a b')).toEqual({ ok: false, reason: 'invalid reference format' });
  });

  it('finds the credentials of a registry in dockerconfigjson secrets', () => {
    const secret = (name: string, auths: object): Secret => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name },
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': Buffer.from(JSON.stringify({ auths })).toString('base64') },
    });
    const hub = secret('hub', {
      'https://index.docker.io/v1/': { auth: Buffer.from('me:pw:with:colons').toString('base64') },
    });
    const other = secret('other', { 'registry.example:5000': { username: 'u', password: 'p' } });
    expect(credentialsFor('docker.io', [hub, other])).toEqual([
      {
        secret: 'hub',
        auth: { username: 'me', password: 'pw:with:colons', serveraddress: 'https://index.docker.io/v1/' },
      },
    ]);
    expect(credentialsFor('registry.example:5000', [hub, other]).map((c) => c.secret)).toEqual(['other']);
  });
});

describe('$(VAR) expansion', () => {
  const vars = new Map([
    ['A', 'x'],
    ['EMPTY', ''],
  ]);
  it.each([
    ['$(A)', 'x'],
    ['$(A)-$(A)', 'x-x'],
    ['$$(A)', '$(A)'],
    ['$(MISSING)', '$(MISSING)'],
    ['$(EMPTY)!', '!'],
    ['$A $ $$', '$A $ $'],
    ['$(unclosed', '$(unclosed'],
    ['echo $(git rev-parse HEAD)', 'echo $(git rev-parse HEAD)'],
  ])('%j becomes %j', (input, output) => {
    expect(expand(input, vars)).toBe(output);
  });
});

describe('downwardAPI files', () => {
  it('quotes like Go and formats maps like the kubelet', () => {
    expect(goQuote('plain')).toBe('"plain"');
    expect(goQuote('say "hi"\\\n\t\x01é\u200b')).toBe('"say \\"hi\\"\\\\\\n\\t\\x01é\\u200b"');
    expect(formatMap({ b: '2', a: 'x "y"' })).toBe('a="x \\"y\\""\nb="2"');
  });

  let dir: string | undefined;
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('writes through a ..data symlink swapped atomically, removing the old payload', async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-k8s-atomic-'));
    await writeAtomically(dir, new Map([['annotations', { data: Buffer.from('a="1"'), mode: 0o644 }]]));
    const first = readlinkSync(join(dir, '..data'));
    await writeAtomically(
      dir,
      new Map([
        ['annotations', { data: Buffer.from('a="2"'), mode: 0o644 }],
        ['nested/labels', { data: Buffer.from('b="3"'), mode: 0o600 }],
      ]),
    );
    expect(readlinkSync(join(dir, 'annotations'))).toBe(join('..data', 'annotations'));
    expect(readFileSync(join(dir, 'annotations'), 'utf8')).toBe('a="2"');
    expect(readFileSync(join(dir, 'nested', 'labels'), 'utf8')).toBe('b="3"');
    expect(readlinkSync(join(dir, '..data'))).not.toBe(first);
    expect(readdirSync(dir).sort()).toEqual(
      ['..data', readlinkSync(join(dir, '..data')), 'annotations', 'nested'].sort(),
    );
  });
});

describe('quantities', () => {
  it('reads cpu as millicores and memory as bytes', () => {
    expect([milliCpu('100m'), milliCpu('0.5'), milliCpu(2), milliCpu('1e3')]).toEqual([
      100, 500, 2000, 1_000_000,
    ]);
    expect([bytes('128Mi'), bytes('1G'), bytes('1k'), bytes('1.5Ki')]).toEqual([134217728, 1e9, 1000, 1536]);
  });
});
