/*
 * The four reads of `api-scale`, each three ways: the HTTP request to svc, the raw SQL of the same
 * read through a plain driver (the baseline), and the store calls svc's handler makes (whose SQL is
 * captured for its plans).
 */
import { hashApiToken } from '../../src/server/auth/api-token.js';
import type { Store } from '../../src/core/store.js';
import type { RawDb } from './raw-db.js';
import { LOG_LINES, type ScaleTarget } from './scale-seed.js';
import { SCALE } from './scale-seed-sql.js';

/** One route of the benchmark. */
export interface ScaleRoute {
  /** The metric's name, without the database. */
  readonly metric: string;
  /** Requests measured (each followed by one baseline read). */
  readonly samples: number;
  /** The path requested for the seeded target. */
  path(t: ScaleTarget): string;
  /** True when a response body answers the request as it should (checked on the warm-up). */
  answers(json: unknown): boolean;
  /** What the baseline reads, for the notes. */
  readonly baselineText: string;
  /** The same read as raw SQL through a plain driver. */
  baseline(db: RawDb, t: ScaleTarget): Promise<unknown>;
  /** The store calls svc's handler makes, by name, in order. */
  reads(store: Store, t: ScaleTarget): [string, () => Promise<unknown>][];
  /** Also time a bare HTTP server sending the bytes `baseline` reads (its rows' `data`, joined). */
  readonly bareHttp?: boolean;
}

const PAGE = 25;
/** The seeded repositories' ids (1…SCALE.repos). */
const REPO_IDS = Array.from({ length: SCALE.repos }, (_, i) => i + 1);

/** Authentication and access, as svc does them: the user by token, the repository, the permission. */
async function admitted(db: RawDb, t: ScaleTarget): Promise<void> {
  await db.all('SELECT * FROM users WHERE token_hash = ?', [hashApiToken(t.token)]);
  await db.all('SELECT * FROM repos WHERE slug = ?', [t.slug]);
  await db.all('SELECT * FROM perms WHERE user_id = ? AND repo_id = ?', [t.userId, t.repoId]);
}

/** svc's reads for authentication and access to the target's repository. */
function access(store: Store, t: ScaleTarget): [string, () => Promise<unknown>][] {
  const [namespace = '', name = ''] = t.slug.split('/');
  return [
    ['user by token', () => store.users.findTokenHash(hashApiToken(t.token))],
    ['repository by slug', () => store.repos.findSlug(namespace, name)],
    ['permission', () => store.perms.find(t.userId, t.repoId)],
  ];
}

const isArray = (json: unknown, length: number): json is unknown[] =>
  Array.isArray(json) && json.length === length;

const userRepos: ScaleRoute = {
  metric: 'GET /api/user/repos?latest=true, p99',
  samples: 200,
  path: () => '/api/user/repos?latest=true',
  answers: (json) =>
    isArray(json, 1_000) && json.every((repo) => typeof (repo as { build?: unknown }).build === 'object'),
  baselineText:
    'the user by token, then one statement: the repositories joined with the permissions and each one’s newest build (a correlated subquery)',
  async baseline(db, t) {
    await db.all('SELECT * FROM users WHERE token_hash = ?', [hashApiToken(t.token)]);
    return db.all(
      `SELECT r.*, p."read", p."write", p."admin", b.* FROM repos r JOIN perms p ON p.repo_id = r.id
      LEFT JOIN builds b ON b.id = (SELECT id FROM builds WHERE repo_id = r.id ORDER BY number DESC LIMIT 1)
      WHERE p.user_id = ? AND (p."read" = 1 OR p."write" = 1 OR p."admin" = 1) ORDER BY r.slug`,
      [t.userId],
    );
  },
  reads: (store, t) => [
    ['user by token', () => store.users.findTokenHash(hashApiToken(t.token))],
    ['the user’s repositories with their permissions', () => store.repos.listUser(t.userId)],
    // As the handler asks: for every repository at once.
    ['newest build (each repository)', () => store.builds.newestOf(REPO_IDS)],
  ],
};

const buildPage: ScaleRoute = {
  metric: `GET /api/repos/{owner}/{name}/builds (page of ${PAGE}), p99`,
  samples: 200,
  path: (t) => `/api/repos/${t.slug}/builds?page=1&per_page=${PAGE}`,
  answers: (json) => isArray(json, PAGE),
  baselineText: `the user by token, the repository by slug, the permission, then the page of ${PAGE} builds`,
  async baseline(db, t) {
    await admitted(db, t);
    return db.all('SELECT * FROM builds WHERE repo_id = ? ORDER BY number DESC LIMIT ? OFFSET ?', [
      t.repoId,
      PAGE,
      0,
    ]);
  },
  reads: (store, t) => [
    ...access(store, t),
    ['page of builds', () => store.builds.list(t.repoId, { page: 1, perPage: PAGE })],
  ],
};

const buildWithSteps: ScaleRoute = {
  metric: 'GET /api/repos/{owner}/{name}/builds/{number} (3 stages of 5 steps), p99',
  samples: 200,
  path: (t) => `/api/repos/${t.slug}/builds/${t.number}`,
  answers: (json) => {
    const stages = (json as { stages?: { steps?: unknown[] }[] }).stages;
    return stages?.length === 3 && stages.every((stage) => stage.steps?.length === 5);
  },
  baselineText:
    'the user by token, the repository by slug, the permission, the build, its stages, their steps',
  async baseline(db, t) {
    await admitted(db, t);
    await db.all('SELECT * FROM builds WHERE repo_id = ? AND number = ?', [t.repoId, t.number]);
    await db.all('SELECT * FROM stages WHERE build_id = ? ORDER BY number', [t.buildId]);
    return db.all(
      `SELECT steps.* FROM steps JOIN stages ON stages.id = steps.stage_id WHERE stages.build_id = ?
      ORDER BY steps.stage_id, steps.number`,
      [t.buildId],
    );
  },
  reads: (store, t) => [
    ...access(store, t),
    ['build by number', () => store.builds.findNumber(t.repoId, t.number)],
    ['stages with steps', () => store.stages.listWithSteps(t.buildId)],
  ],
};

const finishedLog: ScaleRoute = {
  metric: `GET /api/repos/{owner}/{name}/builds/{number}/logs/{stage}/{step}, ${LOG_LINES.toLocaleString('en')} lines, vs reading the stored bytes`,
  samples: 20,
  path: (t) => `/api/repos/${t.slug}/builds/${t.number}/logs/${t.stage}/${t.step}`,
  answers: (json) => isArray(json, LOG_LINES),
  baselineText: 'reading the stored bytes (SELECT data FROM logs WHERE step_id = ? ORDER BY part)',
  baseline: (db, t) => db.all('SELECT data FROM logs WHERE step_id = ? ORDER BY part', [t.stepId]),
  bareHttp: true,
  reads: (store, t) => [
    ...access(store, t),
    ['build by number', () => store.builds.findNumber(t.repoId, t.number)],
    ['stage by number', () => store.stages.findNumber(t.buildId, t.stage)],
    ['step by number', () => store.steps.findNumber(t.stageId, t.step)],
    ['stored log', () => store.logs.find(t.stepId)],
  ],
};

export const SCALE_ROUTES: readonly ScaleRoute[] = [userRepos, buildPage, buildWithSteps, finishedLog];
