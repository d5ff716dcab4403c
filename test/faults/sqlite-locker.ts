/*
 * Another process holding SQLite's exclusive lock on a database file, as a maintenance script or a
 * stuck tool would: a better-sqlite3 connection in a child process inside BEGIN EXCLUSIVE.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { once } from 'node:events';

const BETTER_SQLITE3 = createRequire(import.meta.url).resolve('better-sqlite3');

/** The lock's holder: `release` rolls back, closes and waits for the process to exit. */
export interface SqliteLock {
  release(): Promise<void>;
}

const SCRIPT = `
const Database = require(process.argv[1]);
const db = new Database(process.argv[2], { timeout: 20000 });
db.exec('BEGIN EXCLUSIVE');
process.stdout.write('locked\\n');
process.stdin.once('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });
`;

/** Takes the exclusive lock on `file` from a child process; resolves once it is held. */
export async function lockSqlite(file: string): Promise<SqliteLock> {
  const child = spawn(process.execPath, ['-e', SCRIPT, BETTER_SQLITE3, file], { stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit');
  const [first] = (await Promise.race([once(child.stdout, 'data'), exited])) as [unknown];
  if (!(first instanceof Buffer) || !first.toString().startsWith('locked')) {
    throw new Error(`the locking process ended before taking the lock: ${stderr}`);
  }
  return {
    release: async () => {
      child.stdin.write('release\n');
      await exited;
    },
  };
}
