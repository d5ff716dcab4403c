/* Per-test servers on fresh SQLite databases, closed after each test. */
import { afterEach } from 'vitest';
import { testDialects } from '../../support/databases.js';
import { freshStore, startServer, type ServerOptions, type TestServer } from './harness.js';

const sqlite = testDialects()[0];

/** Gives each test its own servers on a fresh SQLite database; everything is closed after the test. */
export function useServers(): (options?: ServerOptions) => Promise<TestServer> {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return async (options = {}) => {
    let store = options.store;
    if (store === undefined) {
      if (sqlite === undefined) throw new Error('no SQLite dialect');
      const fresh = await freshStore(sqlite);
      cleanups.push(fresh.dispose);
      store = fresh.store;
    }
    const server = await startServer(store, options);
    cleanups.push(() => server.close());
    return server;
  };
}
