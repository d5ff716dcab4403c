/* The database the HTTP fuzzing targets run on: SQLite unless SVC_FUZZ_DATABASE names another. */
import { testDialects, type TestDialect } from '../../support/databases.js';

/**
 * `SVC_FUZZ_DATABASE=PostgreSQL` (or `MariaDB`) runs the HTTP targets on that server, from the
 * datasources .ci/services.sh exports: values SQLite takes (a 64-bit number in a 32-bit column) may
 * be errors there, so the long run is worth repeating on each.
 */
export function fuzzDialect(): TestDialect {
  const name = process.env.SVC_FUZZ_DATABASE ?? 'SQLite';
  const dialect = testDialects().find((d) => d.name === name);
  if (dialect === undefined || dialect.skip)
    throw new Error(
      `SVC_FUZZ_DATABASE=${name}: no such database here (SQLite, MariaDB, PostgreSQL with .ci/services.sh)`,
    );
  return dialect;
}
