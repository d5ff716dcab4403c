/*
 * The database of `api-scale`: svc's migrations applied by svc itself (openStore), then 1,000
 * repositories, 200,000 builds, 600,000 stages and 3,000,000 steps, a team of 40 with their
 * permissions and a short log for every 30th step, written by set-based SQL (scale-seed-sql.ts);
 * the owner of every repository with an API token; one finished step's log of 100,000 lines
 * stored by svc's own LogStore.
 */
import { createHash } from 'node:crypto';
import type { Datasource } from '../../src/core/datasource.js';
import type { LogLine } from '../../src/core/log.js';
import { openStore } from '../../src/store/index.js';
import { openRaw, type RawDb } from './raw-db.js';
import {
  buildsSql,
  latestSql,
  logsSql,
  permsSql,
  POSTGRES_SEED,
  reposSql,
  SCALE,
  SQLITE_SEED,
  stagesSql,
  stepsSql,
  teamSql,
} from './scale-seed-sql.js';

export const LOG_LINES = 100_000;
/** Parents per INSERT of children: bounds what PostgreSQL queues for the foreign-key checks. */
const BUILDS_PER_CHUNK = 20_000;
const STAGES_PER_CHUNK = 60_000;
const STEPS_PER_CHUNK = 300_000;

/** What the routes read: the owner's token, and one finished build whose step holds the long log. */
export interface ScaleTarget {
  readonly token: string;
  readonly userId: number;
  readonly repoId: number;
  readonly slug: string;
  readonly buildId: number;
  readonly number: number;
  /** Stage and step numbers of the step with the log, and their ids. */
  readonly stage: number;
  readonly step: number;
  readonly stageId: number;
  readonly stepId: number;
}

export interface Seeded extends ScaleTarget {
  /** Wall time of the whole seeding, seconds. */
  readonly seconds: number;
}

/** Seeds the (empty) database of `datasource`; `progress` hears one line per phase. */
export async function seedScale(datasource: Datasource, progress: (line: string) => void): Promise<Seeded> {
  const started = performance.now();
  // svc's own migrations make the schema, exactly as a server's first start would.
  await (await openStore({ datasource })).close();
  const raw = await openRaw(datasource);
  let target: ScaleTarget;
  try {
    await fillTables(raw, progress);
    target = await chooseTarget(raw);
  } finally {
    await raw.close();
  }
  const store = await openStore({ datasource });
  try {
    await store.logs.create(target.stepId, scaleLog(LOG_LINES));
  } finally {
    await store.close();
  }
  return { ...target, seconds: (performance.now() - started) / 1000 };
}

async function fillTables(raw: RawDb, progress: (line: string) => void): Promise<void> {
  const sqlite = raw.product === 'SQLite';
  const d = sqlite ? SQLITE_SEED : POSTGRES_SEED;
  // One bulk load: no journal to sync. svc puts the file back in WAL mode when it opens it.
  if (sqlite)
    await raw.exec('PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144');
  const now = Date.now();
  const timed = async (what: string, work: () => Promise<void>): Promise<void> => {
    const t = performance.now();
    await work();
    progress(`${what} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  };
  await raw.exec('BEGIN');
  const owner = await createOwner(raw, now);
  await timed(`${SCALE.repos} repositories`, async () => {
    await raw.all(reposSql(d, owner, now));
    const [ids] = await raw.all('SELECT MIN(id) AS low, MAX(id) AS high FROM repos');
    // Builds name their repository by number (1 + (i-1) mod repos): the ids must be 1…repos.
    if (Number(ids?.low) !== 1 || Number(ids?.high) !== SCALE.repos)
      throw new Error('repository ids are not 1…1000');
    await raw.all(permsSql(owner, now));
    for (const statement of teamSql(d, now)) await raw.all(statement);
  });
  // The builds span the last 200,000 minutes.
  await timed(`${SCALE.builds} builds`, () =>
    raw.all(buildsSql(d, now - SCALE.builds * 60_000)).then(() => undefined),
  );
  await timed('their stages', () => inChunks(raw, 'builds', BUILDS_PER_CHUNK, stagesSql));
  await timed('their steps', () => inChunks(raw, 'stages', STAGES_PER_CHUNK, stepsSql));
  await timed('short logs of every 30th step', () =>
    inChunks(raw, 'steps', STEPS_PER_CHUNK, (after, upTo) => logsSql(d, after, upTo)),
  );
  await timed('the latest lists', async () => {
    for (const statement of latestSql()) await raw.all(statement);
  });
  await raw.exec('COMMIT');
  // Statistics and the visibility map, as autovacuum keeps them on a database in use (svc never
  // runs ANALYZE on SQLite).
  if (!sqlite) await timed('VACUUM ANALYZE', () => raw.exec('VACUUM ANALYZE'));
}

/** Runs `insert(after, upTo)` over the ids of `parents`, `size` at a time. */
async function inChunks(
  raw: RawDb,
  parents: 'builds' | 'stages' | 'steps',
  size: number,
  insert: (after: number, upTo: number) => string,
): Promise<void> {
  const [row] = await raw.all(`SELECT MAX(id) AS high FROM ${parents}`);
  const high = Number(row?.high ?? 0);
  for (let after = 0; after < high; after += size) await raw.all(insert(after, Math.min(high, after + size)));
}

/** The owner's API token: fixed, since svc stores only its hash and a seeded database is reused. */
export const OWNER_TOKEN = 'scale-owner-token-0123456789abcd';

/** A person (not an administrator, so that permissions decide) with an API token and no git provider token. */
export async function createOwner(raw: RawDb, now: number): Promise<number> {
  const hash = createHash('sha256').update(OWNER_TOKEN).digest('hex');
  await raw.all(
    `INSERT INTO users (login, email, avatar, machine, admin, active, token_hash, scm_token, scm_refresh, scm_expiry,
      last_login, created, updated) VALUES ('scale-owner', 'owner@example.com', '', 0, 0, 1, ?, '', '', 0, ?, ?, ?)`,
    [hash, now, now, now],
  );
  const [user] = await raw.all('SELECT id FROM users WHERE login = ?', ['scale-owner']);
  return Number(user?.id);
}

/** Build 100 of repository 500 or the newest successful one before it; its `test` stage's `test` step. */
async function chooseTarget(raw: RawDb): Promise<ScaleTarget> {
  const [user] = await raw.all('SELECT id FROM users WHERE login = ?', ['scale-owner']);
  const [build] = await raw.all(
    `SELECT b.id, b.number, r.id AS repo_id, r.slug FROM builds b JOIN repos r ON r.id = b.repo_id
    WHERE r.id = 500 AND b.number <= 100 AND b.status = 'success' ORDER BY b.number DESC LIMIT 1`,
  );
  const stage = 2;
  const step = 4;
  const [found] = await raw.all(
    `SELECT steps.id, steps.stage_id FROM steps JOIN stages ON stages.id = steps.stage_id
    WHERE stages.build_id = ? AND stages.number = ? AND steps.number = ?`,
    [build?.id, stage, step],
  );
  if (user === undefined || build === undefined || found === undefined)
    throw new Error('the seeded build is missing');
  return {
    token: OWNER_TOKEN,
    userId: Number(user.id),
    repoId: Number(build.repo_id),
    slug: String(build.slug),
    buildId: Number(build.id),
    number: Number(build.number),
    stage,
    step,
    stageId: Number(found.stage_id),
    stepId: Number(found.id),
  };
}

/** A test run's output: `count` lines over about 200 seconds, 60–110 characters each. */
export function scaleLog(count: number): LogLine[] {
  const lines: LogLine[] = [];
  for (let pos = 0; pos < count; pos++) {
    const module = `src/module-${pos % 300}/feature-${pos % 17}`;
    let out: string;
    switch (pos % 4) {
      case 0:
        out = `\u001b[32mPASS\u001b[39m ${module}.test.ts (${(pos * 7) % 900} ms)\n`;
        break;
      case 1:
        out = `  ✓ handles case ${pos} of ${module} with the default settings (${pos % 13} ms)\n`;
        break;
      case 2:
        out = `npm WARN deprecated package-${pos % 50}@1.${pos % 9}.0: use package-${pos % 50}-next instead\n`;
        break;
      default:
        out = `[${String(pos).padStart(6, '0')}] compiled ${module}.ts → dist/${module}.js\n`;
    }
    lines.push({ pos, out, time: Math.floor(pos / 500) });
  }
  return lines;
}
