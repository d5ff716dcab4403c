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
        dispose: async () => {
          await store.close();
          await database.drop();
        },
      };
    });
  });
}
