import type { Kysely, Selectable } from 'kysely';
import type { ScmStatus } from '../../core/scm.js';
import type { NewPendingStatus, PendingStatus, StatusOutboxStore } from '../../core/status-outbox.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { StatusOutboxRow, Tables } from '../tables.js';
import { inTransaction } from '../transaction.js';
import { changed, write } from './rows.js';

/**
 * The `status_outbox` table. `put` is delete-then-insert in one transaction rather than an upsert:
 * the same statements on every dialect, and the replacement gets a new id, so a retry loop holding
 * the old entry can tell that it was superseded (`retryLater` and `remove` by id then touch nothing).
 */
export class SqlStatusOutboxStore implements StatusOutboxStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  async put(entry: NewPendingStatus, now: number): Promise<void> {
    const values = {
      repo_id: entry.repoId,
      build_id: entry.buildId,
      commit_sha: entry.commit,
      context: entry.status.context,
      state: entry.status.state,
      description: entry.status.description,
      target_url: entry.status.targetUrl,
      ref: entry.status.ref,
      attempts: entry.attempts,
      next_attempt: entry.nextAttempt,
      last_error: entry.lastError,
      created: now,
    };
    const replace = () =>
      inTransaction(this.#db, async (trx) => {
        await deleteByKey(trx, entry.repoId, entry.commit, entry.status.context);
        await trx.insertInto('status_outbox').values(values).execute();
      });
    const missing = `repository ${entry.repoId} or build ${entry.buildId}`;
    try {
      await write(this.#adapter, replace, { missing });
    } catch (error) {
      // Another server kept a state for the same key between the delete and the insert: ours is
      // the newer one (it is being written now), so replace again.
      if (!this.#adapter.isUniqueViolation(error)) throw error;
      await write(this.#adapter, replace, { missing });
    }
  }

  async due(now: number, limit: number): Promise<PendingStatus[]> {
    const rows = await this.#db
      .selectFrom('status_outbox')
      .selectAll()
      .where('next_attempt', '<=', now)
      .orderBy('next_attempt')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(pendingOf);
  }

  async retryLater(id: number, nextAttempt: number, lastError: string): Promise<void> {
    await this.#db
      .updateTable('status_outbox')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), next_attempt: nextAttempt, last_error: lastError }))
      .where('id', '=', id)
      .execute();
  }

  async remove(id: number): Promise<void> {
    await this.#db.deleteFrom('status_outbox').where('id', '=', id).execute();
  }

  async removeFor(repoId: number, commit: string, context: string): Promise<void> {
    await deleteByKey(this.#db, repoId, commit, context);
  }

  async expire(before: number): Promise<number> {
    return changed(
      await this.#db.deleteFrom('status_outbox').where('created', '<', before).executeTakeFirst(),
    );
  }

  async list(): Promise<PendingStatus[]> {
    const rows = await this.#db.selectFrom('status_outbox').selectAll().orderBy('id').execute();
    return rows.map(pendingOf);
  }
}

/** Deletes the entry of one repository, commit and status context. */
function deleteByKey(db: Kysely<Tables>, repoId: number, commit: string, context: string) {
  return db
    .deleteFrom('status_outbox')
    .where('repo_id', '=', repoId)
    .where('commit_sha', '=', commit)
    .where('context', '=', context)
    .execute();
}

function pendingOf(row: Selectable<StatusOutboxRow>): PendingStatus {
  return {
    id: Number(row.id),
    repoId: Number(row.repo_id),
    buildId: Number(row.build_id),
    commit: row.commit_sha,
    status: {
      state: row.state as ScmStatus['state'],
      context: row.context,
      description: row.description,
      targetUrl: row.target_url,
      ref: row.ref,
    },
    attempts: Number(row.attempts),
    nextAttempt: Number(row.next_attempt),
    lastError: row.last_error,
    created: Number(row.created),
  };
}
