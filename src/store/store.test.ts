import { describe } from 'vitest';
import { openStore } from './index.js';
import { storeContract } from './store.case.js';
import { testDialects } from '../../test/support/databases.js';

for (const dialect of testDialects()) {
  describe.skipIf(dialect.skip)(`store on ${dialect.name}`, () => {
    storeContract(async () => {
      const database = await dialect.create();
      const store = await openStore({ datasource: database.datasource });
      return {
        store,
        // SQLite is one server's database (svc claims the file): no second server to open.
        ...(database.datasource.driver === 'embedded_sql'
          ? {}
          : { another: () => openStore({ datasource: database.datasource }) }),
        dispose: async () => {
          await store.close();
          await database.drop();
        },
      };
    });
  });
}
