/*
 * The database of `insights`: svc's migrations applied by svc itself (openStore), then the rows of
 * insights-seed-sql.ts — 200,000 builds, 5,000,000 test results and their rollups — through a plain
 * driver, in chunks that keep each statement's work bounded.
 */
import type { Datasource } from '../../src/core/datasource.js';
import { openStore } from '../../src/store/index.js';
import {
  insightBuildsSql,
  insightCasesSql,
  insightReposSql,
  insightResultsSql,
  insightRollupsSql,
  INSIGHTS_SCALE,
} from './insights-seed-sql.js';
import { openRaw, type RawDb } from './raw-db.js';
import { MARIADB_SEED, POSTGRES_SEED, SQLITE_SEED } from './scale-seed-sql.js';
import { createOwner, OWNER_TOKEN } from './scale-seed.js';

/** Builds whose results one INSERT writes (25 each). */
const BUILDS_PER_CHUNK = 10_000;

export interface InsightsSeeded {
  readonly token: string;
  /** Wall time of the whole seeding, seconds; rows of test results. */
  readonly seconds: number;
  readonly results: number;
}

export async function seedInsights(
  datasource: Datasource,
  progress: (line: string) => void,
): Promise<InsightsSeeded> {
  const started = performance.now();
  await (await openStore({ datasource })).close();
  const raw = await openRaw(datasource);
  try {
    await fill(raw, progress);
    const [count] = await raw.all('SELECT COUNT(*) AS n FROM test_results');
    return { token: OWNER_TOKEN, seconds: (performance.now() - started) / 1000, results: Number(count?.n) };
  } finally {
    await raw.close();
  }
}

async function fill(raw: RawDb, progress: (line: string) => void): Promise<void> {
  const d = raw.product === 'SQLite' ? SQLITE_SEED : raw.product === 'MySQL' ? MARIADB_SEED : POSTGRES_SEED;
  if (raw.product === 'SQLite')
    await raw.exec('PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144');
  const now = Date.now();
  const timed = async (what: string, work: () => Promise<unknown>): Promise<void> => {
    const t = performance.now();
    await work();
    progress(`${what} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  };
  const owner = await createOwner(raw, now);
  await timed(`${INSIGHTS_SCALE.repos} repositories`, async () => {
    await raw.all(insightReposSql(d, owner, now));
    await raw.all(
      `INSERT INTO perms (user_id, repo_id, "read", "write", "admin", synced, created, updated)
      SELECT ${owner}, id, 1, 1, 1, ${now}, ${now}, ${now} FROM repos ORDER BY id`,
    );
  });
  await timed(`${INSIGHTS_SCALE.builds} builds`, () => raw.all(insightBuildsSql(d, now)));
  await timed('their tests', async () => {
    await raw.all(insightCasesSql(d, now));
    const [ids] = await raw.all('SELECT MIN(id) AS low, MAX(id) AS high FROM test_cases');
    if (Number(ids?.low) !== 1 || Number(ids?.high) !== INSIGHTS_SCALE.repos * INSIGHTS_SCALE.testsPerRepo)
      throw new Error('test case ids are not 1…2500');
  });
  await timed('5,000,000 test results', async () => {
    for (let after = 0; after < INSIGHTS_SCALE.builds; after += BUILDS_PER_CHUNK)
      await raw.all(insightResultsSql(after, after + BUILDS_PER_CHUNK));
  });
  await timed('the rollups', async () => {
    for (const statement of insightRollupsSql()) await raw.all(statement);
  });
  if (raw.product === 'PostgreSQL') await timed('VACUUM ANALYZE', () => raw.exec('VACUUM ANALYZE'));
  if (raw.product === 'MySQL')
    await timed('ANALYZE TABLE', () => raw.exec('ANALYZE TABLE builds, test_results, insight_build_days'));
}
