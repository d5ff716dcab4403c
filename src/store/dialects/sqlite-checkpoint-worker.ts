/*
 * The thread that checkpoints an SQLite database for SqliteCheckpoints: its own connection to the
 * file, one PASSIVE checkpoint per message. Self-contained (it runs as TypeScript in tests).
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file } = workerData as { file: string };
const port = parentPort;
// No busy wait: a checkpoint that cannot run now (another one runs) is simply the next one's work.
const database = new Database(file, { timeout: 0 });

port?.on('message', () => {
  try {
    database.pragma('wal_checkpoint(PASSIVE)');
    port.postMessage({ ok: true });
  } catch (error) {
    port.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
  }
});
