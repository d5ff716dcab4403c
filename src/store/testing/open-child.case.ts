/*
 * Test support: a separate process that opens a store, for the "two processes open a fresh database
 * at once" test. Usage: node --import tsx open-child.case.ts '<datasource JSON>'
 * Prints each log line of the open, then `schema <version>`.
 */
import type { Datasource } from '../../core/datasource.js';
import { openStore } from '../index.js';

const datasource = JSON.parse(process.argv[2] ?? '') as Datasource;
const store = await openStore({ datasource, logger: (msg) => process.stdout.write(`${msg}\n`) });
process.stdout.write(`schema ${store.schemaVersion}\n`);
await store.close();
