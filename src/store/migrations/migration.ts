import type { CreateTableBuilder, Kysely } from 'kysely';
import type { DataType, DialectAdapter } from '../dialects/adapter.js';

/**
 * One step of the schema. Migrations are written once with Kysely's schema builder and the
 * adapter's column types, so the same code runs on every dialect; a released one never changes.
 * `db` is typed without tables: a migration sees the schema as it was, not as the code is now.
 */
export interface Migration {
  /** Position in the history: 1, 2, 3, … with no gaps. */
  readonly version: number;
  /** A few words for the log and the migrations table. */
  readonly name: string;
  up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void>;
}

/** Column kinds of the schema; every column is NOT NULL unless its kind says `nullable`. */
export type ColumnKind = 'key' | 'text' | 'int' | 'bigint' | 'flag' | 'ref' | 'nullable ref' | 'blob';

/**
 * CREATE TABLE with the adapter's table options and the given columns, in order, preceded by an
 * auto-incrementing primary key `id` when `withId` is set.
 */
export function createTable(
  db: Kysely<unknown>,
  adapter: DialectAdapter,
  name: string,
  columns: Record<string, ColumnKind>,
  { withId }: { withId: boolean },
): CreateTableBuilder<string, string> {
  let table: CreateTableBuilder<string, string> = db.schema.createTable(name);
  if (adapter.tableOptions !== undefined) table = table.modifyEnd(adapter.tableOptions);
  if (withId) table = table.addColumn('id', adapter.types.id, (c) => adapter.autoIncrementId(c));
  for (const [column, kind] of Object.entries(columns)) {
    table = table.addColumn(column, dataType(adapter, kind), (c) =>
      kind === 'nullable ref' ? c : c.notNull(),
    );
  }
  return table;
}

function dataType(adapter: DialectAdapter, kind: ColumnKind): DataType {
  switch (kind) {
    case 'key':
      return adapter.types.key;
    case 'text':
      return adapter.types.text;
    case 'int':
    case 'flag':
      return 'integer';
    case 'bigint':
      return 'bigint';
    case 'ref':
    case 'nullable ref':
      return adapter.types.ref;
    case 'blob':
      return adapter.types.blob;
  }
}
