import { sql, type Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import { createTable, type Migration } from './migration.js';

/**
 * `artifacts`: the artifacts' index (ArtifactStore), one row per uploaded zip; the zip itself is the
 * blob store's object `blob`, `junit` the JSON list of its JUnit report paths. A name (at most 255
 * characters) is unique within its stage (on MariaDB, whose collation pads with spaces, names that
 * differ only by trailing spaces are one name; the pipeline syntax is to refuse such names).
 *
 * No foreign keys, so no cascade: when a build is purged or its repository deleted, its artifacts'
 * rows stay, because they alone name the zips to delete. The server's janitor finds them
 * (`ofPurgedBuilds`: no row in `builds` has their build_id), deletes the blobs, then the rows; a
 * cascade would drop the names and leave the zips in the blob store forever.
 *
 * Indexes: (build_id, stage_id, name) lists a build's artifacts in order; (expires, id) finds the
 * expired oldest first, partial (expires > 0) where the database has partial indexes (MySQL and
 * MariaDB do not: there it holds every row). `ofPurgedBuilds` needs no index of its own: it walks
 * the primary key and looks each build_id up in builds' primary key, stopping at its limit (purged
 * builds are the oldest, so their artifacts come first; a pass that finds none reads the table once).
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await createTable(
    db,
    adapter,
    'artifacts',
    {
      repo_id: 'ref',
      build_id: 'ref',
      stage_id: 'ref',
      step_id: 'ref',
      name: 'key',
      files: 'int',
      size: 'bigint',
      zip_size: 'bigint',
      blob: 'text',
      junit: 'text',
      created: 'bigint',
      expires: 'bigint',
    },
    { withId: true },
  )
    .addUniqueConstraint('artifacts_stage_name_uq', ['stage_id', 'name'])
    .execute();
  await db.schema
    .createIndex('artifacts_build_ix')
    .on('artifacts')
    .columns(['build_id', 'stage_id', 'name'])
    .execute();
  let expiring = db.schema.createIndex('artifacts_expires_ix').on('artifacts').columns(['expires', 'id']);
  if (adapter.product !== 'MySQL') expiring = expiring.where(sql.ref('expires'), '>', sql.lit(0));
  await expiring.execute();
}

export const artifacts: Migration = { version: 17, name: 'artifact index', up };
