/*
 * A build's artifacts through HTTP: the list by stage and step, one artifact's files, the whole
 * artifact as a zip (checked by Info-ZIP's unzip) and as tar.zst, one file at a time — text and
 * images inline, HTML, SVG, scripts and binaries as downloads, every file sandboxed — and the
 * repository's read rule: strangers and anonymous callers get nothing of a private repository,
 * everyone reads a public one's.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { zstdDecompressSync } from 'node:zlib';
import * as tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Artifact } from '../../src/core/artifact.js';
import { stageSource, upload, type TarEntry } from './artifacts-support.js';
import { call, enable, loginAs, tokenOf } from './client.js';
import { startHarness, type Harness } from './harness.js';
import { BUILD_AND_TEST } from './pipelines.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const ODD = 'docs/read me ü #1.txt';
const BINARIES: TarEntry[] = [
  { path: 'dist', folder: true },
  { path: 'dist/app', content: Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]), mode: 0o755 },
  { path: 'dist/app.sha256', content: 'abc123  app\n' },
  { path: 'dist/current', link: 'app' },
  { path: ODD, content: 'hello, artifacts\n' },
  { path: 'report/index.html', content: '<script>alert(1)</script>' },
  { path: 'report/chart.svg', content: '<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>' },
  { path: 'report/app.js', content: 'alert(1)' },
  { path: 'report/logo.png', content: PNG },
  { path: 'build.log', content: Buffer.from('ok\n\0binary\n') },
  { path: 'notes.weird', content: 'plain words' },
];
const BASE = '/api/repos/octocat/hello/builds';

describe('build artifacts', () => {
  let h: Harness;
  const tokens: Record<string, string> = {};
  let binaries: Artifact;
  let reports: Artifact;
  let older: Artifact;
  let site: Artifact;
  const folder = mkdtempSync(join(tmpdir(), 'svc-artifacts-test-'));

  /** A raw GET as `who` (anonymous without), its body as bytes. */
  async function get(path: string, who?: string): Promise<{ response: Response; body: Buffer }> {
    const token = who === undefined ? undefined : tokens[who];
    const response = await fetch(`${h.url}${path}`, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });
    return { response, body: Buffer.from(await response.arrayBuffer()) };
  }
  const file = (path: string, id = binaries.id) =>
    `${BASE}/2/artifacts/${id}/files/${path.split('/').map(encodeURIComponent).join('/')}`;

  beforeAll(async () => {
    h = await startHarness();
    for (const login of ['octocat', 'reader', 'outsider']) h.github.addUser({ login });
    for (const name of ['hello', 'open'])
      h.github.addRepo({ owner: 'octocat', name, private: name === 'hello', readers: ['reader'] });
    for (const login of ['octocat', 'reader', 'outsider']) {
      const session = await loginAs(h, login);
      tokens[login] = await tokenOf(h, session);
      if (login === 'octocat')
        for (const name of ['hello', 'open']) await enable(h, session, `octocat/${name}`);
      else expect((await call(h, '/api/user/repos', { token: tokens[login] })).status).toBe(200);
    }
    for (const [slug, pushes] of [
      ['octocat/hello', 2],
      ['octocat/open', 1],
    ] as const) {
      for (let i = 1; i <= pushes; i++) {
        h.github.commit(slug, 'main', { '.drone.yml': BUILD_AND_TEST, 'n.txt': String(i) }, `commit ${i}`);
        expect(await h.github.push(slug, 'main', `${h.url}/hook`)).toBe(200);
      }
    }
    binaries = await upload(h, await stageSource(h, 'octocat/hello', 2, 1), 'binaries', BINARIES);
    reports = await upload(
      h,
      await stageSource(h, 'octocat/hello', 2, 2, { number: 1, name: 'unit' }),
      'reports',
      [{ path: 'junit/unit.xml', content: '<testsuite name="unit"/>' }],
      { junit: ['junit/*.xml'] },
    );
    older = await upload(h, await stageSource(h, 'octocat/hello', 1, 1), 'old', [
      { path: 'old.txt', content: 'old' },
    ]);
    site = await upload(h, await stageSource(h, 'octocat/open', 1, 1), 'site', [
      { path: 'index.txt', content: 'public words' },
    ]);
  });
  afterAll(async () => {
    await h.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('lists a build’s artifacts by stage, with their step, sizes and times in epoch seconds', async () => {
    const listed = await call(h, `${BASE}/2/artifacts`, { token: tokens.octocat });
    expect(listed.status, listed.text).toBe(200);
    const created = Math.floor(binaries.created / 1000);
    expect(listed.json).toEqual([
      {
        id: binaries.id,
        stage: { number: 1, name: 'build' },
        step: { number: 1, name: 'compile' },
        name: 'binaries',
        files: BINARIES.length,
        size: binaries.size,
        zip_size: binaries.zipSize,
        created,
        expires: Math.floor(binaries.expires / 1000),
        junit: [],
      },
      expect.objectContaining({
        id: reports.id,
        stage: { number: 2, name: 'test' },
        step: { number: 1, name: 'unit' },
        name: 'reports',
        junit: ['junit/unit.xml'],
      }),
    ]);
    // The harness keeps an artifact 30 days when its step says nothing.
    expect(Math.floor(binaries.expires / 1000) - created).toBe(30 * 86_400);
    expect((await call(h, `${BASE}/1/artifacts`, { token: tokens.octocat })).json).toEqual([
      expect.objectContaining({ id: older.id, name: 'old' }),
    ]);
  });

  it('gives one artifact with its files, folders and links, paths without a trailing /', async () => {
    const found = await call(h, `${BASE}/2/artifacts/${binaries.id}`, { token: tokens.octocat });
    expect(found.status, found.text).toBe(200);
    const json = found.json as { name: string; entries: Record<string, unknown>[] };
    expect(json.name).toBe('binaries');
    const byPath = new Map(json.entries.map((e) => [e.path, e]));
    expect(byPath.get('dist')).toEqual({ path: 'dist', size: 0, mode: 0o755, type: 'directory' });
    expect(byPath.get('dist/app')).toEqual({ path: 'dist/app', size: 7, mode: 0o755, type: 'file' });
    expect(byPath.get('dist/current')).toMatchObject({ type: 'symlink', size: 3 });
    expect(byPath.get(ODD)).toEqual({ path: ODD, size: 17, mode: 0o644, type: 'file' });
    expect([...byPath.keys()].sort()).toEqual(BINARIES.map((e) => e.path).sort());
  });

  it('downloads the whole artifact as the zip it stored, which unzip accepts', async () => {
    const { response, body } = await get(`${BASE}/2/artifacts/${binaries.id}/download`, 'octocat');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(response.headers.get('content-length')).toBe(String(binaries.zipSize));
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="hello-2-binaries.zip"; filename*=UTF-8''hello-2-binaries.zip`,
    );
    expect(body.length).toBe(binaries.zipSize);
    const zip = join(folder, 'binaries.zip');
    writeFileSync(zip, body);
    expect(execFileSync('unzip', ['-t', zip]).toString()).toContain('No errors detected');
    const listing = execFileSync('unzip', ['-Z1', zip]).toString().trim().split('\n');
    expect(listing).toEqual(expect.arrayContaining(['dist/', 'dist/app', 'dist/current', ODD]));
    const out = join(folder, 'unzipped');
    execFileSync('unzip', ['-q', zip, '-d', out]);
    expect(execFileSync('cat', [join(out, ODD)]).toString()).toBe('hello, artifacts\n');
  });

  it('downloads the whole artifact as a tar compressed with zstd', async () => {
    const { response, body } = await get(
      `${BASE}/2/artifacts/${binaries.id}/download?format=tar.zst`,
      'octocat',
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zstd');
    expect(response.headers.get('content-disposition')).toContain('filename="hello-2-binaries.tar.zst"');
    const entries = new Map<string, { type: string; linkname: string; mode: number; content: string }>();
    const extract = tar.extract();
    const done = new Promise<void>((resolve, reject) => {
      extract.on('entry', (header, stream, next) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: unknown) => {
          chunks.push(chunk as Buffer);
        });
        stream.on('end', () => {
          entries.set(header.name, {
            type: header.type ?? '',
            linkname: header.linkname ?? '',
            mode: header.mode ?? 0,
            content: Buffer.concat(chunks).toString(),
          });
          next();
        });
      });
      extract.on('finish', resolve);
      extract.on('error', reject);
    });
    Readable.from([zstdDecompressSync(body)]).pipe(extract);
    await done;
    expect(entries.get(ODD)).toMatchObject({ type: 'file', content: 'hello, artifacts\n' });
    expect(entries.get('dist/app')).toMatchObject({ type: 'file', mode: 0o755 });
    expect(entries.get('dist/current')).toMatchObject({ type: 'symlink', linkname: 'app' });
    expect(entries.get('dist')).toMatchObject({ type: 'directory' });
    const bad = await call(h, `${BASE}/2/artifacts/${binaries.id}/download?format=rar`, {
      token: tokens.octocat,
    });
    expect(bad.status).toBe(400);
  });

  it('opens a text file inline as text/plain, sandboxed, its path URL-decoded', async () => {
    const { response, body } = await get(file(ODD), 'octocat');
    expect(response.status).toBe(200);
    expect(body.toString()).toBe('hello, artifacts\n');
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'content-type': 'text/plain; charset=utf-8',
      'content-length': '17',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "sandbox; default-src 'none'",
      'content-disposition': `inline; filename="read me _ _1.txt"; filename*=UTF-8''read%20me%20%C3%BC%20%231.txt`,
    });
    const head = await fetch(`${h.url}${file(ODD)}`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${tokens.octocat}` },
    });
    expect([head.status, head.headers.get('content-length'), await head.text()]).toEqual([200, '17', '']);
    const sums = await get(file('dist/app.sha256'), 'octocat');
    expect(sums.response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  });

  it('sends HTML, SVG, scripts, binaries and unknown kinds as downloads, sandboxed', async () => {
    for (const path of [
      'report/index.html',
      'report/chart.svg',
      'report/app.js',
      'dist/app',
      'notes.weird',
    ]) {
      const { response, body } = await get(file(path), 'octocat');
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toBe('application/octet-stream');
      const base = path.slice(path.lastIndexOf('/') + 1);
      expect(response.headers.get('content-disposition'), path).toBe(
        `attachment; filename="${base}"; filename*=UTF-8''${base}`,
      );
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
      expect(body.length).toBe(Number(response.headers.get('content-length')));
    }
    // A .log with a NUL in it is not text.
    const log = await get(file('build.log'), 'octocat');
    expect(log.response.headers.get('content-type')).toBe('application/octet-stream');
    expect(log.body).toEqual(Buffer.from('ok\n\0binary\n'));
  });

  it('opens a PNG inline as an image, and a symbolic link as its target', async () => {
    const png = await get(file('report/logo.png'), 'octocat');
    expect(png.response.headers.get('content-type')).toBe('image/png');
    expect(png.response.headers.get('content-disposition')).toMatch(/^inline; /);
    expect(png.response.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
    expect(png.body).toEqual(PNG);
    const link = await get(file('dist/current'), 'octocat');
    expect(link.response.status).toBe(200);
    expect(link.response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(link.body.toString()).toBe('app');
  });

  it('answers 404 for a path it does not have, a folder, and an artifact of another build', async () => {
    for (const path of ['nope.txt', 'dist', 'dist/', 'DIST/APP', 'docs/read%20me']) {
      const answer = await call(h, `${BASE}/2/artifacts/${binaries.id}/files/${path}`, {
        token: tokens.octocat,
      });
      expect(answer.status, path).toBe(404);
      expect(answer.json).toMatchObject({ code: 'NOT_FOUND' });
    }
    for (const suffix of ['', '/download', '/download?format=tar.zst', '/files/old.txt']) {
      const answer = await call(h, `${BASE}/2/artifacts/${older.id}${suffix}`, { token: tokens.octocat });
      expect(answer.status, suffix).toBe(404);
      expect(answer.json).toMatchObject({ code: 'NOT_FOUND', message: `artifact ${older.id} not found` });
    }
    expect((await call(h, `${BASE}/9/artifacts`, { token: tokens.octocat })).status).toBe(404);
    expect((await call(h, `${BASE}/2/artifacts/abc`, { token: tokens.octocat })).status).toBe(400);
  });

  it('keeps a private repository’s artifacts from strangers (404) and anonymous callers (401)', async () => {
    for (const path of [
      `${BASE}/2/artifacts`,
      `${BASE}/2/artifacts/${binaries.id}`,
      `${BASE}/2/artifacts/${binaries.id}/download`,
      file(ODD),
    ]) {
      for (const [who, status] of [
        ['outsider', 404],
        [undefined, 401],
      ] as const) {
        const { response, body } = await get(path, who);
        expect(response.status, `${path} as ${who ?? 'anonymous'}`).toBe(status);
        expect(body.toString()).not.toContain('hello, artifacts');
      }
      expect((await get(path, 'reader')).response.status, `${path} as reader`).toBe(200);
    }
  });

  it('lets anyone read a public repository’s artifacts', async () => {
    const base = '/api/repos/octocat/open/builds/1/artifacts';
    const listed = await call(h, base);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json).toEqual([expect.objectContaining({ id: site.id, name: 'site' })]);
    const { response, body } = await get(`${base}/${site.id}/files/index.txt`);
    expect(response.status).toBe(200);
    expect(body.toString()).toBe('public words');
    expect((await get(`${base}/${site.id}/download`, 'outsider')).response.status).toBe(200);
    // An id of the private repository's build is not found through the public one.
    expect((await call(h, `${base}/${binaries.id}`)).status).toBe(404);
  });
});

describe('a server that keeps no artifacts', () => {
  let h: Harness;
  let token = '';
  beforeAll(async () => {
    h = await startHarness({ noArtifacts: true });
    h.github.addUser({ login: 'octocat' });
    h.github.addRepo({ owner: 'octocat', name: 'hello' });
    const session = await loginAs(h, 'octocat');
    await enable(h, session, 'octocat/hello');
    h.github.commit('octocat/hello', 'main', { '.drone.yml': BUILD_AND_TEST }, 'first');
    expect(await h.github.push('octocat/hello', 'main', `${h.url}/hook`)).toBe(200);
    token = await tokenOf(h, session);
  });
  afterAll(() => h.close());

  it('answers the artifact routes 404, saying so', async () => {
    for (const suffix of ['', '/1', '/1/download', '/1/files/a.txt']) {
      const answer = await call(h, `${BASE}/1/artifacts${suffix}`, { token });
      expect(answer.status, suffix).toBe(404);
      expect(answer.json).toMatchObject({ code: 'NOT_FOUND', message: 'this server keeps no artifacts' });
    }
  });
});
