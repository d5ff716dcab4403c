import { describe } from 'vitest';
import type { Datasource } from '../core/datasource.js';
import { parseDatabaseSecret } from '../core/secret-key.js';
import { openStore } from './index.js';
import { credentialsContract, storeContract, type OpenFreshStore } from './store.case.js';
import { testDialects, type TestDialect } from '../../test/support/databases.js';

const key = parseDatabaseSecret('0123456789abcdef0123456789abcdef') as Uint8Array;

/** Fresh stores of the dialect, opened with `secretKey` when given. */
function opener(dialect: TestDialect, secretKey?: Uint8Array): OpenFreshStore {
  const open = (datasource: Datasource) => openStore({ datasource, secretKey });
  return async () => {
    const database = await dialect.create();
    const store = await open(database.datasource);
    return {
      store,
      // SQLite is one server's database (svc claims the file): no second server to open.
      ...(database.datasource.driver === 'embedded_sql' ? {} : { another: () => open(database.datasource) }),
      dispose: async () => {
        await store.close();
        await database.drop();
      },
    };
  };
}

for (const dialect of testDialects()) {
  describe.skipIf(dialect.skip)(`store on ${dialect.name}`, () => {
    storeContract(opener(dialect));
  });
  describe.skipIf(dialect.skip)(`store with SVC_DATABASE_SECRET on ${dialect.name}`, () => {
    credentialsContract(opener(dialect, key));
  });
}
