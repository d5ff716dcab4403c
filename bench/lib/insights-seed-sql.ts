/*
 * The set-based SQL that fills svc's schema for `insights`: 100 repositories (`big/app` holds half of
 * the builds, the 99 others share the rest; `org-0` … `org-4` group them), 200,000 builds over 90
 * days, 25 tests per repository, 25 results per build (5,000,000, 2% failed), and the insight rollups
 * those builds would have made — written from the raw rows by GROUP BY, the same numbers the
 * baseline's raw SQL reads. One text for SQLite, PostgreSQL and MariaDB (ANSI mode, raw-db.ts).
 */
import type { SeedDialect } from './scale-seed-sql.js';

export const INSIGHTS_SCALE = {
  repos: 100,
  builds: 200_000,
  testsPerRepo: 25,
  days: 90,
} as const;

const DAY = 86_400_000;
/** A day of a time in milliseconds, the same on every dialect (MariaDB's `/` divides in decimals). */
const dayOf = (ms: string) => `FLOOR(${ms} / ${DAY}.0)`;

export function insightReposSql(d: SeedDialect, owner: number, now: number): string {
  const namespace = `CASE WHEN i = 1 THEN 'big' ELSE 'org-' || (i % 5) END`;
  const name = `CASE WHEN i = 1 THEN 'app' ELSE 'repo-' || i END`;
  return `INSERT INTO repos (uid, user_id, namespace, name, slug, scm, clone_url, clone_url_ssh, link,
    default_branch, private, visibility, active, config_path, trusted, protected, ignore_forks,
    ignore_pull_requests, cancel_pulls, cancel_push, timeout, counter, hook_secret, synced, created,
    updated, version)
  SELECT 'insights-' || i, ${owner}, ${namespace}, ${name}, ${namespace} || '/' || ${name}, 'github', '', '', '',
    'main', 1, 'private', 1, '.drone.yml', 0, 0, 0, 0, 0, 0, 60, ${INSIGHTS_SCALE.builds}, 'secret-' || i,
    ${now}, ${now}, ${now}, 1
  FROM ${d.series(INSIGHTS_SCALE.repos)} ORDER BY i`;
}

/** Builds i = 1…200,000, one every 39 s over 90 days to `now`; even ones are big/app's. */
export function insightBuildsSql(d: SeedDialect, now: number): string {
  const step = Math.floor((INSIGHTS_SCALE.days * DAY) / INSIGHTS_SCALE.builds);
  const start = now - INSIGHTS_SCALE.builds * step;
  return `INSERT INTO builds (repo_id, number, parent, status, error, event, action, "trigger", link, title,
    message, "before", "after", ref, source_repo, source, target, author_login, author_name, author_email,
    author_avatar, sender, params, cron, deploy_to, deploy_id, debug, started, finished, created, updated,
    version, config)
  SELECT repo_id, i, 0, status, '', 'push', '', '@hook', '', '', 'commit ' || i, ${d.sha('i - 1')}, ${d.sha('i')},
    'refs/heads/main', '', 'main', 'main', 'dev', 'Developer', 'dev@example.com', '', 'dev', '{}', '', '', 0, 0,
    created + queue_ms, created + queue_ms + run_ms, created, created + queue_ms + run_ms, 4, ''
  FROM (
    SELECT i, CASE WHEN i % 2 = 0 THEN 1 ELSE 2 + (i % 99) END AS repo_id, ${start} + i * ${step} AS created,
      CASE WHEN i % 23 IN (0, 1) THEN 'failure' ELSE 'success' END AS status,
      1000 + (i % 97) * 1000 AS queue_ms, 60000 + (i % 541) * 1000 AS run_ms
    FROM ${d.series(INSIGHTS_SCALE.builds)}
  ) AS b
  ORDER BY i`;
}

/** Each repository's 25 tests; case ids are (repo - 1) × 25 + k. */
export function insightCasesSql(d: SeedDialect, now: number): string {
  const t = INSIGHTS_SCALE.testsPerRepo;
  return `INSERT INTO test_cases (repo_id, name_hash, suite, name, quarantined, flaky_seen, created)
  SELECT 1 + FLOOR((i - 1) / ${t}), 'case-' || i, 'pkg/' || ((i - 1) % 5), 'Test' || ((i - 1) % ${t}), 0, 0, ${now}
  FROM ${d.series(INSIGHTS_SCALE.repos * t)} ORDER BY i`;
}

/** The 25 results of builds (after, upTo]; 2% failed. */
export function insightResultsSql(after: number, upTo: number): string {
  const t = INSIGHTS_SCALE.testsPerRepo;
  const ks = Array.from({ length: t }, (_, i) => (i === 0 ? 'SELECT 1 AS k' : `SELECT ${i + 1}`)).join(
    ' UNION ALL ',
  );
  return `INSERT INTO test_results (case_id, repo_id, build_id, stage_id, step_id, attempt, status, duration_ms,
    message, output, file, is_new, quarantined, superseded, commit_sha, created)
  SELECT (b.repo_id - 1) * ${t} + k.k, b.repo_id, b.id, 0, 0, 1,
    CASE WHEN (b.id * 7 + k.k) % 50 = 0 THEN 'failed' ELSE 'passed' END, 5 + (b.id + k.k) % 3000,
    CASE WHEN (b.id * 7 + k.k) % 50 = 0 THEN 'expected 1, got 2' ELSE '' END, '', '', 0, 0, 0, b."after", b.finished
  FROM builds b CROSS JOIN (${ks}) AS k
  WHERE b.id > ${after} AND b.id <= ${upTo}
  ORDER BY b.id, k.k`;
}

/** The histogram bucket of a duration expression, as src/core/insights.ts's bucketOf computes it. */
function bucket(ms: string): string {
  const raw = `1 + FLOOR(LN((${ms}) / 1000.0) / LN(1.25))`;
  return `CASE WHEN (${ms}) < 1000 THEN 0 WHEN ${raw} > 63 THEN 63 ELSE ${raw} END`;
}

/** The rollups of the seeded builds and results, as InsightRollup would have kept them. */
export function insightRollupsSql(): string[] {
  const finished = `SELECT repo_id, ${dayOf('finished')} AS day, status, finished - started AS run_ms,
    started - created AS queue_ms FROM builds WHERE finished > 0`;
  const steps = [
    ['clone', 2],
    ['install', 10],
    ['lint', 5],
    ['test', 70],
    ['publish', 13],
  ]
    .map(
      ([name, share], i) => `${i === 0 ? 'SELECT' : 'UNION ALL SELECT'} '${name}' AS name, ${share} AS share`,
    )
    .join(' ');
  return [
    `INSERT INTO insight_build_days (repo_id, day, builds, successes, duration_sum, queue_sum)
    SELECT repo_id, day, COUNT(*), SUM(CASE WHEN status = 'success' THEN 1 ELSE 0 END), SUM(run_ms), SUM(queue_ms)
    FROM (${finished}) AS f GROUP BY repo_id, day`,
    ...(
      [
        [0, 'run_ms'],
        [1, 'queue_ms'],
      ] as const
    ).map(
      ([metric, column]) => `INSERT INTO insight_build_buckets (repo_id, day, metric, bucket, n)
    SELECT repo_id, day, ${metric}, bucket, COUNT(*) FROM (
      SELECT repo_id, day, ${bucket(column)} AS bucket FROM (${finished}) AS f
    ) AS b GROUP BY repo_id, day, bucket`,
    ),
    `INSERT INTO insight_step_days (repo_id, day, name, runs, failures, duration_sum)
    SELECT d.repo_id, d.day, s.name, d.builds, CASE WHEN s.name = 'test' THEN d.builds - d.successes ELSE 0 END,
      d.duration_sum * s.share / 100
    FROM insight_build_days d CROSS JOIN (${steps}) AS s`,
    `INSERT INTO insight_test_days (repo_id, day, case_id, failures, flaky)
    SELECT repo_id, day, case_id, COUNT(*), 0 FROM (
      SELECT repo_id, ${dayOf('created')} AS day, case_id FROM test_results WHERE status = 'failed'
    ) AS t GROUP BY repo_id, day, case_id`,
    `INSERT INTO insight_runner_days (repo_id, day, kind, stages, busy_ms)
    SELECT repo_id, day, 'docker', builds * 3, duration_sum * 2 FROM insight_build_days`,
    `INSERT INTO insight_cache_days (repo_id, day, hits, misses)
    SELECT repo_id, day, builds * 4, builds FROM insight_build_days`,
    // Counted, as the listener marks them: the server's backfill then finds nothing to add.
    `INSERT INTO insight_recorded (build_id, day) SELECT id, ${dayOf('finished')} FROM builds WHERE finished > 0`,
    // The all-time totals of GET /metrics, as migration 24 adds them up.
    ...(
      [
        ['builds', 'builds', 'insight_build_days'],
        ['successes', 'successes', 'insight_build_days'],
        ['duration_sum', 'duration_sum', 'insight_build_days'],
        ['queue_sum', 'queue_sum', 'insight_build_days'],
        ['cache_hits', 'hits', 'insight_cache_days'],
        ['cache_misses', 'misses', 'insight_cache_days'],
        ['test_failures', 'failures', 'insight_test_days'],
        ['test_flaky', 'flaky', 'insight_test_days'],
      ] as const
    ).map(
      ([metric, column, table]) =>
        `INSERT INTO insight_totals (metric, label, n) SELECT '${metric}', '', SUM(${column}) FROM ${table}`,
    ),
    `INSERT INTO insight_totals (metric, label, n)
    SELECT CASE WHEN metric = 0 THEN 'duration_bucket' ELSE 'queue_bucket' END, '' || bucket, SUM(n)
    FROM insight_build_buckets GROUP BY metric, bucket`,
    `INSERT INTO insight_totals (metric, label, n) SELECT 'runner_stages', kind, SUM(stages) FROM insight_runner_days GROUP BY kind`,
    `INSERT INTO insight_totals (metric, label, n) SELECT 'runner_busy', kind, SUM(busy_ms) FROM insight_runner_days GROUP BY kind`,
  ];
}

/**
 * The baseline: the raw SQL of the same answer's two heaviest parts for repositories `?`…, read from
 * builds and test results instead of the rollups — the days' builds, successes and sums, and the ten
 * tests that failed most.
 */
export function rawInsightSql(repoIds: readonly number[]): { builds: string; tests: string } {
  const ids = repoIds.join(', ');
  return {
    builds: `SELECT ${dayOf('finished')} AS day, COUNT(*) AS builds,
      SUM(CASE WHEN status = 'success' THEN 1 ELSE 0 END) AS successes, SUM(finished - started) AS duration_sum,
      SUM(started - created) AS queue_sum
      FROM builds WHERE repo_id IN (${ids}) AND finished >= ? GROUP BY ${dayOf('finished')} ORDER BY 1`,
    tests: `SELECT case_id, COUNT(*) AS failures FROM test_results
      WHERE repo_id IN (${ids}) AND created >= ? AND status = 'failed'
      GROUP BY case_id ORDER BY failures DESC, case_id LIMIT 10`,
  };
}
