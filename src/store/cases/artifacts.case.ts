import { afterAll, describe, expect, it } from 'vitest';
import type { Artifact, NewArtifact } from '../../core/artifact.js';
import { NotFoundError } from '../../core/errors.js';
import type { Stage } from '../../core/stage.js';
import type { Status } from '../../core/status.js';
import type { Store } from '../../core/store.js';
import { newBuild, newRepo, newStage, unique, useOpenedStore, type OpenFreshStore } from './fixtures.case.js';

const T = 1_700_000_000_000;
const DAY = 86_400_000;

/** A stored build and its one-step stages. */
interface Built {
  repoId: number;
  buildId: number;
  stages: Stage[];
}

function newArtifact(built: Built, stage = 0, overrides: Partial<NewArtifact> = {}): NewArtifact {
  const stageId = built.stages[stage]?.id ?? 0;
  return {
    repoId: built.repoId,
    buildId: built.buildId,
    stageId,
    stepId: stageId * 10,
    name: unique('dist-'),
    files: 12,
    size: 5_000_000_000,
    zipSize: 1_000_000,
    blob: unique('artifacts/blob-'),
    junit: [],
    created: T,
    expires: T + DAY,
    ...overrides,
  };
}

const ids = (artifacts: Artifact[]) => artifacts.map((a) => a.id);

/** ArtifactStore: create (add or replace), find, findName, list, expiredBefore, ofPurgedBuilds, delete. */
export function artifactsContract(open: OpenFreshStore): void {
  describe('artifacts', () => {
    const opened = useOpenedStore(open);
    const store = () => opened().store;
    const others: Store[] = [];
    afterAll(async () => {
      for (const other of others) await other.close();
    });
    const build = async (
      options: { repoId?: number; stages?: number; status?: Status } = {},
    ): Promise<Built> => {
      const repoId = options.repoId ?? (await store().repos.create(newRepo())).id;
      const stages = Array.from({ length: options.stages ?? 2 }, (_, i) => newStage(i + 1, 1));
      const created = await store().builds.create(
        newBuild(repoId, { status: options.status ?? 'success' }),
        stages,
      );
      return { repoId, buildId: created.build.id, stages: created.stages };
    };
    const create = async (input: NewArtifact) => (await store().artifacts.create(input)).artifact;

    it('adds an artifact and finds it by id, and by stage and name', async () => {
      const built = await build();
      const junit = [
        'reports/ünï ✓.xml',
        'a "quoted", \\back\\slash.xml',
        "it's\nnew\tline.xml",
        '[]{}%_*?.xml',
        '',
      ];
      const input = newArtifact(built, 0, { name: 'coverage', junit });
      const { artifact, replaced } = await store().artifacts.create(input);
      expect(artifact).toEqual({ ...input, id: expect.any(Number) as number });
      expect(replaced).toBeUndefined();
      expect(await store().artifacts.find(artifact.id)).toEqual(artifact);
      expect(await store().artifacts.findName(input.stageId, 'coverage')).toEqual(artifact);
      expect((await store().artifacts.find(artifact.id))?.junit).toEqual(junit);
      expect(await store().artifacts.find(987_654)).toBeUndefined();
      expect(await store().artifacts.findName(input.stageId, 'Coverage')).toBeUndefined();
      expect(await store().artifacts.findName(built.stages[1]?.id ?? 0, 'coverage')).toBeUndefined();
    });

    it('lists a build’s artifacts by stage, then by name', async () => {
      const built = await build();
      const other = await build({ repoId: built.repoId });
      const second = [
        await create(newArtifact(built, 1, { name: 'b' })),
        await create(newArtifact(built, 1, { name: 'a' })),
      ];
      const first = [
        await create(newArtifact(built, 0, { name: 'c' })),
        await create(newArtifact(built, 0, { name: 'a' })),
      ];
      await create(newArtifact(other, 0, { name: 'a' }));
      expect(await store().artifacts.list(built.buildId)).toEqual([first[1], first[0], second[1], second[0]]);
      expect(await store().artifacts.list((await build()).buildId)).toEqual([]);
    });

    it('replaces the artifact of the same stage and name, answering the one replaced, and keeps one row', async () => {
      const built = await build();
      const first = await create(
        newArtifact(built, 0, { name: 'dist', blob: 'artifacts/a', junit: ['a.xml'] }),
      );
      const next = newArtifact(built, 0, {
        name: 'dist',
        blob: 'artifacts/b',
        size: 7,
        created: T + 1,
        expires: 0,
      });
      const { artifact, replaced } = await store().artifacts.create(next);
      expect(replaced).toEqual(first);
      expect(artifact).toEqual({ ...next, id: expect.any(Number) as number });
      expect(artifact.id).not.toBe(first.id);
      expect(await store().artifacts.find(first.id)).toBeUndefined();
      expect(await store().artifacts.findName(next.stageId, 'dist')).toEqual(artifact);
      expect(await store().artifacts.list(built.buildId)).toEqual([artifact]);
    });

    it('keeps the same name of two stages apart', async () => {
      const built = await build();
      const first = await create(newArtifact(built, 0, { name: 'dist' }));
      const second = await store().artifacts.create(newArtifact(built, 1, { name: 'dist' }));
      expect(second.replaced).toBeUndefined();
      expect(await store().artifacts.findName(first.stageId, 'dist')).toEqual(first);
      expect(await store().artifacts.findName(second.artifact.stageId, 'dist')).toEqual(second.artifact);
      expect(await store().artifacts.list(built.buildId)).toEqual([first, second.artifact]);
    });

    it('refuses an artifact of a stage that does not exist', async () => {
      const built = await build();
      const missing = newArtifact(built, 0, { stageId: 987_654 });
      await expect(store().artifacts.create(missing)).rejects.toBeInstanceOf(NotFoundError);
      expect(await store().artifacts.findName(987_654, missing.name)).toBeUndefined();
      expect(await store().artifacts.list(built.buildId)).toEqual([]);
    });

    it('answers the expired artifacts, soonest expired first, at most a limit, never those kept with their build', async () => {
      // Times far below every other test's, which share the database.
      const built = await build();
      const put = async (expires: number) => create(newArtifact(built, expires % 2, { expires }));
      const c = await put(30);
      const a = await put(10);
      const b = await put(20);
      const tie = await put(20);
      await put(40);
      const kept = await put(0);
      expect(await store().artifacts.expiredBefore(40, 10)).toEqual([a, b, tie, c]);
      expect(await store().artifacts.expiredBefore(40, 2)).toEqual([a, b]);
      expect(await store().artifacts.expiredBefore(10, 10)).toEqual([]);
      expect(ids(await store().artifacts.expiredBefore(Number.MAX_SAFE_INTEGER, 1_000))).not.toContain(
        kept.id,
      );
    });

    it('keeps the artifacts of purged builds until deleted, and answers them oldest first, at most a limit', async () => {
      const done = await build();
      const running = await build({ repoId: done.repoId, status: 'running' });
      const mine = [
        await create(newArtifact(done, 1)),
        await create(newArtifact(done, 0)),
        await create(newArtifact(running, 0)),
      ];
      const purgedOf = async (limit: number) =>
        (await store().artifacts.ofPurgedBuilds(limit)).filter((a) => ids(mine).includes(a.id));
      expect(await purgedOf(1_000)).toEqual([]);
      // As the API's purge does (server/api/builds/purge.ts): the done builds below a number.
      expect((await store().builds.purge(done.repoId, 100)).builds).toBe(1);
      expect(await store().builds.find(done.buildId)).toBeUndefined();
      expect(await store().artifacts.find(mine[0]?.id ?? 0)).toEqual(mine[0]);
      expect(await store().artifacts.list(done.buildId)).toEqual([mine[1], mine[0]]);
      expect(await purgedOf(1_000)).toEqual([mine[0], mine[1]]);
      const all = await store().artifacts.ofPurgedBuilds(1_000);
      expect(ids(all)).toEqual([...ids(all)].sort((x, y) => x - y));
      expect(await store().artifacts.ofPurgedBuilds(1)).toEqual(all.slice(0, 1));
      // The janitor deletes the blobs, then the rows.
      await store().artifacts.delete(ids(await purgedOf(1_000)));
      expect(await purgedOf(1_000)).toEqual([]);
      expect(await store().artifacts.list(running.buildId)).toEqual([mine[2]]);
    });

    it('keeps the artifacts of a deleted build, and of a deleted repository’s builds, until deleted', async () => {
      const deleted = await build();
      const first = await build({ stages: 1 });
      const second = await build({ repoId: first.repoId, status: 'running' });
      const kept = await build({ stages: 1 });
      const mine = [
        await create(newArtifact(deleted, 0)),
        await create(newArtifact(first, 0)),
        await create(newArtifact(second, 1)),
        await create(newArtifact(kept, 0)),
      ];
      await store().builds.delete(deleted.buildId);
      await store().repos.delete(first.repoId);
      expect(await store().stages.find(second.stages[1]?.id ?? 0)).toBeUndefined();
      for (const artifact of mine) expect(await store().artifacts.find(artifact.id)).toEqual(artifact);
      const purged = (await store().artifacts.ofPurgedBuilds(1_000)).filter((a) => ids(mine).includes(a.id));
      expect(purged).toEqual(mine.slice(0, 3));
      await expect(store().artifacts.create(newArtifact(second, 0))).rejects.toBeInstanceOf(NotFoundError);
    });

    it('deletes artifacts by id, ignoring ids it does not have', async () => {
      const built = await build();
      const artifacts = [
        await create(newArtifact(built, 0, { name: 'a' })),
        await create(newArtifact(built, 0, { name: 'b' })),
        await create(newArtifact(built, 0, { name: 'c' })),
      ];
      await store().artifacts.delete([]);
      await store().artifacts.delete([artifacts[0]?.id ?? 0, artifacts[2]?.id ?? 0, 987_654]);
      expect(await store().artifacts.list(built.buildId)).toEqual([artifacts[1]]);
      expect(await store().artifacts.find(artifacts[0]?.id ?? 0)).toBeUndefined();
    });

    it('keeps one artifact when servers create the same name at once, each replaced artifact answered once', async () => {
      const second = (await opened().another?.()) ?? store();
      if (second !== store()) others.push(second);
      const built = await build();
      const first = await create(newArtifact(built, 0, { name: 'race' }));
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 === 0 ? store() : second).artifacts.create(
            newArtifact(built, 0, { name: 'race', created: T + i }),
          ),
        ),
      );
      const kept = await store().artifacts.list(built.buildId);
      expect(kept).toHaveLength(1);
      const replaced = results.flatMap((r) => (r.replaced === undefined ? [] : [r.replaced.blob]));
      const saved = [first, ...results.map((r) => r.artifact)].map((a) => a.blob);
      expect([...replaced, kept[0]?.blob].sort()).toEqual(saved.sort());
    });
  });
}
