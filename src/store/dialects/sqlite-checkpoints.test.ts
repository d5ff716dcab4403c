import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteCheckpoints } from './sqlite-checkpoints.js';

/** Polls `check` every 20 ms for up to 10 s. */
async function until(what: string, check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 20) {
    if (waited > 10_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function walDatabase(file: string): Database.Database {
  const database = new Database(file);
  database.pragma('journal_mode = WAL');
  return database;
}

const autocheckpoint = (database: Database.Database) =>
  database.pragma('wal_autocheckpoint', { simple: true }) as number;

describe('SqliteCheckpoints', () => {
  it('checkpoints on a thread of its own once the connection wrote, and stops at close', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-checkpoints-')), 'svc.sqlite');
    const database = walDatabase(file);
    const checkpoints = new SqliteCheckpoints(database, file, 20);
    try {
      database.exec('create table blobs (data blob)');
      // Nothing written yet through the watch: no thread, SQLite's own checkpoint.
      expect(autocheckpoint(database)).toBe(1000);
      checkpoints.wrote();
      await until('the thread to start', () => autocheckpoint(database) === 16_384);
      // 8 MiB: past SQLite's own 1,000 pages, below the connection's ceiling now, so only the
      // thread can have copied them into the file.
      const insert = database.prepare('insert into blobs values (?)');
      for (let i = 0; i < 8; i++) insert.run(Buffer.alloc(1024 * 1024, i));
      checkpoints.wrote();
      await until('the thread to checkpoint', () => statSync(file).size > 8 * 1024 * 1024);
    } finally {
      checkpoints.close();
      database.close();
    }
  });

  it('gives the checkpoints back to the connection when the thread fails', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-checkpoints-')), 'svc.sqlite');
    const database = walDatabase(file);
    // The thread opens the file it is given: one in no folder fails it.
    const checkpoints = new SqliteCheckpoints(database, join(file, 'absent', 'x.sqlite'), 20);
    try {
      checkpoints.wrote();
      await until('the thread to start', () => autocheckpoint(database) === 16_384);
      await until('the connection to checkpoint again', () => autocheckpoint(database) === 1000);
    } finally {
      checkpoints.close();
      database.close();
    }
  });
});
