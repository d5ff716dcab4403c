import type { Datasource } from '../../src/core/datasource.js';
import { connect } from '../../src/store/dialects/connect.js';

/** Records a migration the code does not know, as a newer svc would have: the database is now "too new". */
export async function markSchemaVersion(datasource: Datasource, version: number): Promise<void> {
  const { db } = await connect(datasource, () => undefined);
  try {
    await db
      .insertInto('migrations')
      .values({ version, name: 'from a newer svc', applied: Date.now() })
      .execute();
  } finally {
    await db.destroy();
  }
}
