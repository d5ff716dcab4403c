import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/** SQLite's own automatic checkpoint, in pages of WAL (its default). */
const SQLITE_DEFAULT_PAGES = 1000;
/** The connection's own checkpoint while the thread takes them: only if the thread falls far behind. */
const CEILING_PAGES = 16_384;
const WORKER_ENTRY = new URL(
  import.meta.url.endsWith('.ts') ? './sqlite-checkpoint-worker.ts' : './sqlite-checkpoint-worker.js',
  import.meta.url,
);

/**
 * Checkpoints of a WAL database file, taken on a thread of their own. SQLite checkpoints in the
 * commit that brings the WAL to 1,000 pages: it copies them into the database file and syncs the
 * file to disk, and better-sqlite3 runs that commit on the thread that serves every request.
 * Measured for a flooding step's log batches (1.3 MB each): 27–41 ms of that thread every ~4 MB
 * written, most of it waiting for the disk (bench/analysis.md, log-throughput).
 *
 * After a write (`wrote`), a tick every `everyMs` asks a worker thread with its own connection for a
 * PASSIVE checkpoint (it never waits for, nor blocks, readers and writers); the thread starts at the
 * first one, so a process that never writes never starts it. While it works, the connection's own
 * checkpoint waits for 16,384 pages (64 MiB at 4 KiB) instead of 1,000, in case the thread falls
 * behind; if the thread cannot start or fails, the connection checkpoints by itself again, as SQLite
 * does. The thread never keeps the process alive, and `close` ends it.
 */
export class SqliteCheckpoints {
  readonly #database: Database.Database;
  readonly #file: string;
  readonly #timer: NodeJS.Timeout;
  #worker: Worker | undefined;
  #dirty = false;
  #busy = false;
  /** Closed, or the thread failed: no more checkpoints here. */
  #broken = false;

  constructor(database: Database.Database, file: string, everyMs = 1_000) {
    this.#database = database;
    this.#file = file;
    this.#timer = setInterval(() => this.#tick(), everyMs).unref();
  }

  /** A statement that writes went through. */
  wrote(): void {
    this.#dirty = true;
  }

  close(): void {
    this.#broken = true;
    clearInterval(this.#timer);
    void this.#worker?.terminate();
    this.#worker = undefined;
  }

  #tick(): void {
    if (!this.#dirty || this.#busy || this.#broken) return;
    const worker = this.#worker ?? this.#start();
    if (worker === undefined) return;
    this.#dirty = false;
    this.#busy = true;
    worker.postMessage('checkpoint');
  }

  #start(): Worker | undefined {
    try {
      const worker = new Worker(WORKER_ENTRY, { workerData: { file: this.#file }, execArgv: [] });
      worker.unref();
      worker.on('message', (answer: { ok: boolean }) => {
        this.#busy = false;
        // A checkpoint that could not run (locked, busy) leaves its pages to the next tick.
        if (!answer.ok) this.#dirty = true;
      });
      worker.on('error', () => this.#fail());
      worker.on('exit', () => this.#fail());
      this.#database.pragma(`wal_autocheckpoint = ${CEILING_PAGES}`);
      this.#worker = worker;
      return worker;
    } catch {
      this.#fail();
      return undefined;
    }
  }

  /** The thread is gone (or never came): the connection checkpoints by itself again. */
  #fail(): void {
    if (this.#broken) return;
    this.#worker = undefined;
    this.#broken = true;
    clearInterval(this.#timer);
    if (this.#database.open) this.#database.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_PAGES}`);
  }
}
