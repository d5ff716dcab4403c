import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The embedded database's file is this server's: the claim holds until `release` or the process ends. */
export interface SqliteClaim {
  release(): void;
}

/**
 * SQLite serves one svc server: two would each run the queue, the reaper and cron, and keep live
 * logs to themselves. A server claims the database by holding an exclusive SQLite lock on a file
 * next to it (`<file>-server.lock`) for as long as it runs; the operating system drops the lock
 * when the process ends, however it ends, so a crash never leaves a stale claim. A second server
 * on the same file is refused with what to do instead.
 */
export function claimSqliteFile(path: string, cwd: string): SqliteClaim | { error: string } {
  const file = `${resolve(cwd, path)}-server.lock`;
  mkdirSync(dirname(file), { recursive: true });
  const lock = new Database(file, { timeout: 0 });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS claim (pid INTEGER); DELETE FROM claim;');
    lock.prepare('INSERT INTO claim (pid) VALUES (?)').run(process.pid);
    lock.exec('COMMIT');
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    return {
      error: `SVC_DATABASE_DATASOURCE: another svc server already uses the SQLite database ${resolve(cwd, path)} (it holds ${file}); SQLite serves one server. Stop the other one, or use PostgreSQL or MySQL (SVC_DATABASE_DRIVER) to run several servers on one database.`,
    };
  }
  return { release: () => lock.close() };
}
