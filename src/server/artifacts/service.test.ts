import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createZstdDecompress } from 'node:zlib';
import * as tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../core/store.js';
import { testDialects } from '../../../test/support/databases.js';
import { DiskBlobStore } from '../../store/blobs/disk-blobs.js';
import { newBuild, newRepo, newStage } from '../../store/cases/fixtures.case.js';
import { openStore } from '../../store/index.js';
import { ArtifactService, type ArtifactSource } from './service.js';

/** A tar of workspace paths, as a runner uploads it. */
function upload(files: Record<string, string>, links: Record<string, string> = {}): Readable {
  const pack = tar.pack();
  for (const [name, content] of Object.entries(files)) pack.entry({ name, mode: 0o644 }, content);
  for (const [name, target] of Object.entries(links)) pack.entry({ name, type: 'symlink', linkname: target });
  pack.finalize();
  return Readable.from(pack);
}

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

describe('ArtifactService on SQLite and the server’s disk', () => {
  let store: Store;
  let drop: (() => Promise<void>) | undefined;
  let blobs: DiskBlobStore;
  let artifacts: ArtifactService;
  let source: ArtifactSource;
  let now = 1_000_000;

  beforeAll(async () => {
    const sqlite = testDialects()[0];
    if (sqlite === undefined) throw new Error('no SQLite');
    const database = await sqlite.create();
    store = await openStore({ datasource: database.datasource });
    drop = async () => {
      await store.close();
      await database.drop();
    };
    const repo = await store.repos.create(newRepo());
    const { build, stages } = await store.builds.create(newBuild(repo.id, { status: 'success' }), [
      newStage(1, 2),
    ]);
    const stage = stages[0];
    if (stage === undefined) throw new Error('no stage');
    const steps = await store.steps.list(stage.id);
    source = { repoId: repo.id, buildId: build.id, stageId: stage.id, stepId: steps[0]?.id ?? 0 };
    blobs = new DiskBlobStore(mkdtempSync(join(tmpdir(), 'svc-artifacts-')));
    artifacts = new ArtifactService({
      store: store.artifacts,
      blobs,
      limits: { maxSize: 10_000, maxAge: 60_000 },
      now: () => now,
    });
  });
  afterAll(async () => drop?.());

  it('keeps an upload as a zip: listed, its files open, downloadable as zip and tar.zst', async () => {
    const made = await artifacts.upload(
      source,
      { name: 'out', expireIn: 0, junit: ['reports/*.xml'] },
      upload(
        { 'dist/app.js': 'console.log(1)\n', 'reports/unit.xml': '<testsuite/>\n' },
        { 'dist/link': 'app.js' },
      ),
    );
    expect(made).toMatchObject({ name: 'out', files: 3, junit: ['reports/unit.xml'], expires: now + 60_000 });
    expect((await artifacts.list(source.buildId)).map((a) => a.name)).toEqual(['out']);
    const entries = await artifacts.entries(made);
    expect(entries.map((e) => [e.name, e.isSymlink]).sort()).toEqual([
      ['dist/app.js', false],
      ['dist/link', true],
      ['reports/unit.xml', false],
    ]);
    expect(await text((await artifacts.open(made, 'dist/app.js')).body)).toBe('console.log(1)\n');
    await expect(artifacts.open(made, 'dist/none.js')).rejects.toThrow(/not found/);
    // The stored zip is one unzip reads.
    const file = join(mkdtempSync(join(tmpdir(), 'svc-artifact-zip-')), 'out.zip');
    const chunks: Buffer[] = [];
    for await (const chunk of await artifacts.zip(made)) chunks.push(chunk as Buffer);
    writeFileSync(file, Buffer.concat(chunks));
    expect(execFileSync('unzip', ['-t', file], { encoding: 'utf8' })).toMatch(/No errors detected/);
    // tar.zst, entries prefixed as `artifacts: from:` asks.
    const extract = tar.extract();
    artifacts.tarZst([made], 'w/').pipe(createZstdDecompress()).pipe(extract);
    const names: string[] = [];
    for await (const entry of extract) {
      names.push(
        `${entry.header.name}${entry.header.type === 'symlink' ? ` -> ${entry.header.linkname}` : ''}`,
      );
      entry.resume();
    }
    expect(names.sort()).toEqual(['w/dist/app.js', 'w/dist/link -> app.js', 'w/reports/unit.xml']);
  });

  it('replaces a stage’s artifact of the same name, deleting the old zip', async () => {
    const first = (await artifacts.list(source.buildId))[0];
    const again = await artifacts.upload(
      source,
      { name: 'out', expireIn: 5_000, junit: [] },
      upload({ 'a.txt': 'a' }),
    );
    expect(await blobs.get(first?.blob ?? '')).toBeUndefined();
    expect((await artifacts.list(source.buildId)).map((a) => [a.id, a.files, a.expires])).toEqual([
      [again.id, 1, now + 5_000],
    ]);
  });

  it('refuses unsafe entries and uploads over the size limit, storing nothing of them', async () => {
    await expect(
      artifacts.upload(source, { name: 'evil', expireIn: 0, junit: [] }, upload({ '../../etc/passwd': 'x' })),
    ).rejects.toThrow(/refused/);
    await expect(
      artifacts.upload(
        source,
        { name: 'big', expireIn: 0, junit: [] },
        upload({ 'big.bin': 'x'.repeat(20_000) }),
      ),
    ).rejects.toThrow(/SVC_ARTIFACT_MAX_SIZE/);
    await expect(
      artifacts.upload(source, { name: 'no name!', expireIn: 0, junit: [] }, upload({})),
    ).rejects.toThrow(/name:/);
    expect((await artifacts.list(source.buildId)).map((a) => a.name)).toEqual(['out']);
    const stored = [];
    for await (const blob of blobs.list('artifacts')) stored.push(blob.key);
    expect(stored).toHaveLength(1);
  });

  it('removes expired artifacts and those of purged builds, with their zips', async () => {
    now += 6_000;
    expect(await artifacts.sweep()).toBe(1);
    expect(await artifacts.list(source.buildId)).toEqual([]);
    await artifacts.upload(source, { name: 'kept', expireIn: 0, junit: [] }, upload({ 'k.txt': 'k' }));
    expect(await artifacts.sweep()).toBe(0);
    const build = await store.builds.find(source.buildId);
    await store.builds.purge(source.repoId, (build?.number ?? 0) + 1);
    expect(await artifacts.sweep()).toBe(1);
    const stored = [];
    for await (const blob of blobs.list('artifacts')) stored.push(blob.key);
    expect(stored).toEqual([]);
  });

  it('removes the zips no artifact names once a day old, and keeps those it names', async () => {
    const { build, stages } = await store.builds.create(newBuild(source.repoId, { status: 'success' }), [
      newStage(1, 1),
    ]);
    const stage = stages[0];
    if (stage === undefined) throw new Error('no stage');
    const steps = await store.steps.list(stage.id);
    const fresh = { repoId: source.repoId, buildId: build.id, stageId: stage.id, stepId: steps[0]?.id ?? 0 };
    const artifact = await artifacts.upload(
      fresh,
      { name: 'named', expireIn: 0, junit: [] },
      upload({ 'n.txt': 'n' }),
    );
    // A server killed between storing the zip and indexing it.
    const leftover = `artifacts/${fresh.repoId}/${fresh.buildId}/${'0'.repeat(32)}`;
    await blobs.put(leftover, Readable.from([Buffer.from('never indexed')]));
    const day = 24 * 60 * 60_000;
    expect(await artifacts.removeOrphans(Date.now() + day / 2)).toBe(0);
    expect(await artifacts.removeOrphans(Date.now() + 2 * day)).toBe(1);
    const stored = [];
    for await (const blob of blobs.list('artifacts')) stored.push(blob.key);
    expect(stored).toEqual([artifact.blob]);
  });
});
