import type { Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import { createTable, type Migration } from './migration.js';

/**
 * `runner_tokens`: runners' own credentials (RunnerTokenStore). Only the SHA-256 of a token is
 * kept, looked up by equality like API tokens; names are unique for ever (a revoked token keeps its
 * name, so that no later token can take over stages held under it). `labels` is a JSON object.
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await createTable(
    db,
    adapter,
    'runner_tokens',
    {
      name: 'key',
      token_hash: 'key',
      labels: 'text',
      created: 'bigint',
      last_used: 'bigint',
      revoked: 'bigint',
    },
    { withId: true },
  )
    .addUniqueConstraint('runner_tokens_name_uq', ['name'])
    .addUniqueConstraint('runner_tokens_hash_uq', ['token_hash'])
    .execute();
}

export const runnerTokens: Migration = { version: 14, name: 'runner tokens', up };
