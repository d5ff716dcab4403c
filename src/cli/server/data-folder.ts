import { dirname, resolve } from 'node:path';
import type { ServerSettings } from '../../config/index.js';

/**
 * The server's data folder, where what it keeps on disk goes by default: the SQLite database's
 * folder, or `data` (in the working folder) with the other databases.
 */
export function dataFolder(settings: Pick<ServerSettings, 'SVC_DATABASE_DATASOURCE'>, cwd: string): string {
  const database = settings.SVC_DATABASE_DATASOURCE;
  return database.driver === 'embedded_sql' ? dirname(resolve(cwd, database.path)) : resolve(cwd, 'data');
}
