import { sql, type Kysely, type Selectable } from 'kysely';
import type { Artifact, ArtifactStore, NewArtifact } from '../../core/artifact.js';
import { NotFoundError } from '../../core/errors.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { ArtifactRow, Tables } from '../tables.js';
import { groups } from './read-batch.js';
import { changed, insertId, parseList, toJson } from './rows.js';

function toArtifact(row: Selectable<ArtifactRow>): Artifact {
  return {
    id: Number(row.id),
    repoId: Number(row.repo_id),
    buildId: Number(row.build_id),
    stageId: Number(row.stage_id),
    stepId: Number(row.step_id),
    name: row.name,
    files: Number(row.files),
    size: Number(row.size),
    zipSize: Number(row.zip_size),
    blob: row.blob,
    junit: parseList(row.junit, `artifact ${row.id}`),
    created: Number(row.created),
    expires: Number(row.expires),
  };
}

/**
 * The `artifacts` table (no foreign keys: migration 017 says why). `create` is select, delete and
 * insert in one transaction, as the caches' put, with the stage's row locked: the creates of a stage,
 * of every server, follow one another, so each answers as replaced exactly the artifact it deleted,
 * and no two creates of a name race to insert it. The lock is also the check that the stage exists.
 */
export class SqlArtifactStore implements ArtifactStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  async create(artifact: NewArtifact): Promise<{ artifact: Artifact; replaced: Artifact | undefined }> {
    const values = {
      repo_id: artifact.repoId,
      build_id: artifact.buildId,
      stage_id: artifact.stageId,
      step_id: artifact.stepId,
      name: artifact.name,
      files: artifact.files,
      size: artifact.size,
      zip_size: artifact.zipSize,
      blob: artifact.blob,
      junit: toJson(artifact.junit),
      created: artifact.created,
      expires: artifact.expires,
    };
    // SQLite has no row locks, and needs none: svc keeps it to one server, whose writes it serializes.
    const rowLocks = this.#adapter.product !== 'SQLite';
    // Read committed (MySQL's default is repeatable read): the select after the lock must see what
    // the create this one waited for committed.
    const transaction = rowLocks
      ? this.#db.transaction().setIsolationLevel('read committed')
      : this.#db.transaction();
    return transaction.execute(async (trx) => {
      // The creates of a stage wait here for the one under way, so that each replaces the last.
      let stage = trx.selectFrom('stages').select('id').where('id', '=', artifact.stageId);
      if (rowLocks) stage = stage.forUpdate();
      if ((await stage.executeTakeFirst()) === undefined)
        throw new NotFoundError(`stage ${artifact.stageId}`);
      const old = await trx
        .selectFrom('artifacts')
        .selectAll()
        .where('stage_id', '=', artifact.stageId)
        .where('name', '=', artifact.name)
        .executeTakeFirst();
      let replaced: Artifact | undefined;
      if (old !== undefined) {
        const deleted = await trx.deleteFrom('artifacts').where('id', '=', old.id).executeTakeFirst();
        // Otherwise a delete removed it since the select.
        if (changed(deleted) === 1) replaced = toArtifact(old);
      }
      const id = await insertId(this.#adapter, trx.insertInto('artifacts').values(values));
      return { artifact: { ...artifact, junit: [...artifact.junit], id }, replaced };
    });
  }

  async find(id: number): Promise<Artifact | undefined> {
    const row = await this.#db.selectFrom('artifacts').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toArtifact(row);
  }

  async findName(stageId: number, name: string): Promise<Artifact | undefined> {
    const row = await this.#db
      .selectFrom('artifacts')
      .selectAll()
      .where('stage_id', '=', stageId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row && toArtifact(row);
  }

  async list(buildId: number): Promise<Artifact[]> {
    const rows = await this.#db
      .selectFrom('artifacts')
      .selectAll()
      .where('build_id', '=', buildId)
      .orderBy('stage_id')
      .orderBy('name')
      .execute();
    return rows.map(toArtifact);
  }

  /** `expires > 0` is a literal, not a parameter: the partial index's condition must be seen to hold. */
  async expiredBefore(now: number, limit: number): Promise<Artifact[]> {
    const rows = await this.#db
      .selectFrom('artifacts')
      .selectAll()
      .where(sql.ref('expires'), '>', sql.lit(0))
      .where('expires', '<', now)
      .orderBy('expires')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toArtifact);
  }

  /**
   * An anti-join as LEFT JOIN … IS NULL: each artifact's build looked up by the primary key, in id
   * order, until `limit` are found, on every dialect. (MariaDB plans NOT EXISTS by reading the whole
   * of builds first, on every call.)
   */
  async ofPurgedBuilds(limit: number): Promise<Artifact[]> {
    const rows = await this.#db
      .selectFrom('artifacts')
      .leftJoin('builds', 'builds.id', 'artifacts.build_id')
      .selectAll('artifacts')
      .where('builds.id', 'is', null)
      .orderBy('artifacts.id')
      .limit(limit)
      .execute();
    return rows.map(toArtifact);
  }

  async delete(ids: readonly number[]): Promise<void> {
    for (const group of groups(ids)) {
      await this.#db.deleteFrom('artifacts').where('id', 'in', group).execute();
    }
  }
}
