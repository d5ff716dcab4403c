/*
 * The set-based SQL that fills svc's real schema for `api-scale`: every row of a table comes from one
 * INSERT … SELECT over a series of integers (repositories, builds) or over the parent table crossed
 * with the child numbers (stages of builds, steps of stages), so that millions of rows take seconds
 * rather than millions of statements. The same text runs on SQLite and PostgreSQL; what differs is
 * in `SeedDialect`.
 */

/** The shape of the database. */
export const SCALE = {
  repos: 1_000,
  builds: 200_000,
  stagesPerBuild: 3,
  stepsPerStage: 5,
  /** The newest builds are still running (their later stages wait on the first). */
  running: 20,
} as const;

/** Where SQLite and PostgreSQL spell the same thing differently. */
export interface SeedDialect {
  /** A FROM item holding the 64-bit integers 1…n as column `i`. */
  series(n: number): string;
  /** A commit SHA (40 hexadecimal digits) made of an integer expression. */
  sha(expression: string): string;
  /** A text expression's UTF-8 bytes, for a blob column. */
  bytes(expression: string): string;
}

export const SQLITE_SEED: SeedDialect = {
  series: (n) =>
    `(WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${n}) SELECT i FROM seq) AS seq`,
  sha: (e) => `printf('%016x%016x%08x', ${e}, (${e}) * 7919, (${e}) % 4294967291)`,
  bytes: (e) => `CAST(${e} AS BLOB)`,
};

export const POSTGRES_SEED: SeedDialect = {
  series: (n) => `generate_series(1::bigint, ${n}) AS seq(i)`,
  sha: (e) =>
    `lpad(to_hex(${e}), 16, '0') || lpad(to_hex((${e}) * 7919), 16, '0') || lpad(to_hex((${e}) % 4294967291), 8, '0')`,
  bytes: (e) => `convert_to(${e}, 'UTF8')`,
};

/** MariaDB, spoken to in ANSI mode (raw-db.ts); its Sequence engine counts. */
export const MARIADB_SEED: SeedDialect = {
  series: (n) => `(SELECT seq AS i FROM seq_1_to_${n}) AS seq`,
  sha: (e) =>
    `LOWER(LPAD(HEX(${e}), 16, '0') || LPAD(HEX((${e}) * 7919), 16, '0') || LPAD(HEX((${e}) % 4294967291), 8, '0'))`,
  bytes: (e) => `CAST(${e} AS BINARY)`,
};

/** The pipeline file every build keeps (builds.config), as the trigger stores it. */
const PIPELINE = `kind: pipeline
type: docker
name: build
steps:
- name: install
  image: node:22
  commands: [npm ci]
- name: lint
  image: node:22
  commands: [npm run lint]
- name: test
  image: node:22
  commands: [npm test]
- name: publish
  image: plugins/docker
  settings: { repo: example/app }
`;

/** The repositories, ids 1…SCALE.repos, each holding SCALE.builds / SCALE.repos builds. */
export function reposSql(d: SeedDialect, owner: number, now: number): string {
  const slug = `'org-' || (i % 20) || '/repo-' || i`;
  return `INSERT INTO repos (uid, user_id, namespace, name, slug, scm, clone_url, clone_url_ssh, link,
    default_branch, private, visibility, active, config_path, trusted, protected, ignore_forks,
    ignore_pull_requests, cancel_pulls, cancel_push, timeout, counter, hook_secret, synced, created,
    updated, version)
  SELECT 'scale-' || i, ${owner}, 'org-' || (i % 20), 'repo-' || i, ${slug}, 'github',
    'https://git.example.com/' || ${slug} || '.git', 'git@git.example.com:' || ${slug} || '.git',
    'https://git.example.com/' || ${slug}, 'main', 1, 'private', 1, '.drone.yml', 0, 0, 0, 0, 0, 0, 60,
    ${SCALE.builds / SCALE.repos}, 'hook-secret-' || i, ${now}, ${now}, ${now}, 1
  FROM ${d.series(SCALE.repos)}`;
}

/** The team: 40 people (the builds' authors), each with write access to the 25 repositories of their number. */
export function teamSql(d: SeedDialect, now: number): string[] {
  return [
    `INSERT INTO users (login, email, avatar, machine, admin, active, token_hash, scm_token, scm_refresh, scm_expiry,
      last_login, created, updated)
    SELECT 'dev-' || (i - 1), 'dev-' || (i - 1) || '@example.com', '', 0, 0, 1, 'token-of-dev-' || (i - 1), '', '', 0,
      ${now}, ${now}, ${now}
    FROM ${d.series(40)}`,
    `INSERT INTO perms (user_id, repo_id, "read", "write", "admin", synced, created, updated)
    SELECT u.id, r.id, 1, 1, 0, ${now}, ${now}, ${now} FROM users u JOIN repos r
      ON 'dev-' || (r.id % 40) = u.login ORDER BY u.id, r.id`,
  ];
}

/** The owner may read, write and administer every repository. */
export function permsSql(owner: number, now: number): string {
  return `INSERT INTO perms (user_id, repo_id, "read", "write", "admin", synced, created, updated)
  SELECT ${owner}, id, 1, 1, 1, ${now}, ${now}, ${now} FROM repos ORDER BY id`;
}

/**
 * Build i (1…SCALE.builds) is build number 1 + (i-1) div repos of repository 1 + (i-1) mod repos,
 * created a minute after build i-1: 70 % pushes (a fifth of them to feature branches), 20 % pull
 * requests, tags and cron jobs; about 9 % failed and 4 % killed.
 */
export function buildsSql(d: SeedDialect, start: number): string {
  const r = SCALE.repos;
  const running = SCALE.builds - SCALE.running;
  return `INSERT INTO builds (repo_id, number, parent, status, error, event, action, "trigger", link, title,
    message, "before", "after", ref, source_repo, source, target, author_login, author_name, author_email,
    author_avatar, sender, params, cron, deploy_to, deploy_id, debug, started, finished, created, updated,
    version, config)
  SELECT repo_id, number, 0, status, '', event, '', '@hook',
    'https://git.example.com/org-' || (repo_id % 20) || '/repo-' || repo_id || '/commit/' || ${d.sha('i * 2654435761')},
    CASE WHEN event = 'pull_request' THEN 'Feature ' || (i % 500) ELSE '' END,
    'Update module ' || (i % 97) || ': handle the edge case of issue ' || i,
    ${d.sha('(i - 1) * 2654435761')}, ${d.sha('i * 2654435761')},
    CASE event WHEN 'pull_request' THEN 'refs/pull/' || (i % 500) || '/head'
      WHEN 'tag' THEN 'refs/tags/v1.' || number ELSE 'refs/heads/' || branch END,
    'org-' || (repo_id % 20) || '/repo-' || repo_id,
    CASE WHEN event = 'tag' THEN 'v1.' || number ELSE branch END,
    CASE event WHEN 'pull_request' THEN 'main' WHEN 'tag' THEN 'v1.' || number ELSE branch END,
    'dev-' || (i % 40), 'Developer ' || (i % 40), 'dev-' || (i % 40) || '@example.com',
    'https://avatars.example.com/u/' || (i % 40), 'dev-' || (i % 40), '{}',
    CASE WHEN event = 'cron' THEN 'nightly' ELSE '' END, '', 0, 0,
    created + 5000, finished, created, CASE WHEN finished = 0 THEN created + 5000 ELSE finished END, 4,
    '${PIPELINE}'
  FROM (
    SELECT i, 1 + (i - 1) % ${r} AS repo_id, 1 + (i - 1) / ${r} AS number, ${start} + i * 60000 AS created,
      CASE WHEN i > ${running} THEN 'running' WHEN i % 23 IN (0, 1) THEN 'failure'
        WHEN i % 23 = 2 THEN 'killed' ELSE 'success' END AS status,
      CASE WHEN i > ${running} THEN 0 ELSE ${start} + i * 60000 + 65000 + (i % 600) * 1000 END AS finished,
      CASE WHEN i % 20 < 14 THEN 'push' WHEN i % 20 < 18 THEN 'pull_request'
        WHEN i % 20 = 18 THEN 'tag' ELSE 'cron' END AS event,
      CASE WHEN i % 5 = 0 AND i % 20 < 18 THEN 'feature-' || (i % 37) ELSE 'main' END AS branch
    FROM ${d.series(SCALE.builds)}
  ) AS b
  ORDER BY i`;
}

/** `SELECT 1 AS n UNION ALL SELECT 2 …`: the child numbers 1…count. */
function numbers(count: number): string {
  return Array.from({ length: count }, (_, i) => (i === 0 ? 'SELECT 1 AS n' : `SELECT ${i + 1}`)).join(
    ' UNION ALL ',
  );
}

/**
 * The stages build, test and deploy of the builds with ids in (after, upTo], each depending on the
 * one before: a failed or killed build failed in `test` and skipped `deploy`; a running build runs
 * `build` while the others wait on it.
 */
export function stagesSql(after: number, upTo: number): string {
  return `INSERT INTO stages (repo_id, build_id, number, name, kind, type, status, error, err_ignore, exit_code,
    machine, os, arch, variant, kernel, "limit", started, stopped, heartbeat, created, updated, version,
    on_success, on_failure, depends_on, labels)
  SELECT repo_id, build_id, n, CASE n WHEN 1 THEN 'build' WHEN 2 THEN 'test' ELSE 'deploy' END,
    'pipeline', 'docker', status, '', 0,
    CASE status WHEN 'failure' THEN 1 WHEN 'killed' THEN 137 ELSE 0 END,
    CASE WHEN status IN ('waiting_on_dependencies', 'skipped') THEN '' ELSE 'runner-' || (build_id % 8) END,
    'linux', 'amd64', '', '', 0,
    CASE WHEN status IN ('waiting_on_dependencies', 'skipped') THEN 0 ELSE started END,
    CASE WHEN status IN ('waiting_on_dependencies', 'skipped', 'running') THEN 0 ELSE started + 20000 END,
    CASE WHEN status IN ('waiting_on_dependencies', 'skipped') THEN 0 ELSE started + 20000 END,
    created, updated, 3, 1, 0,
    CASE n WHEN 1 THEN '[]' WHEN 2 THEN '["build"]' ELSE '["test"]' END, '{}'
  FROM (
    SELECT b.repo_id, b.id AS build_id, s.n, b.started + (s.n - 1) * 20000 AS started, b.created, b.updated,
      CASE b.status
        WHEN 'running' THEN CASE WHEN s.n = 1 THEN 'running' ELSE 'waiting_on_dependencies' END
        WHEN 'failure' THEN CASE s.n WHEN 1 THEN 'success' WHEN 2 THEN 'failure' ELSE 'skipped' END
        WHEN 'killed' THEN CASE s.n WHEN 1 THEN 'success' WHEN 2 THEN 'killed' ELSE 'skipped' END
        ELSE b.status END AS status
    FROM builds b CROSS JOIN (${numbers(SCALE.stagesPerBuild)}) s
    WHERE b.id > ${after} AND b.id <= ${upTo}
  ) AS x
  ORDER BY build_id, n`;
}

/**
 * The steps clone, install, lint, test and publish of the stages with ids in (after, upTo]: a failed
 * (killed) stage failed (was killed) in `test` and skipped `publish`; a running stage runs `lint`.
 */
export function stepsSql(after: number, upTo: number): string {
  return `INSERT INTO steps (stage_id, number, name, status, error, err_ignore, exit_code, image, detached,
    depends_on, started, stopped, version)
  SELECT stage_id, n, CASE n WHEN 1 THEN 'clone' WHEN 2 THEN 'install' WHEN 3 THEN 'lint' WHEN 4 THEN 'test'
      ELSE 'publish' END,
    status, '', 0, CASE status WHEN 'failure' THEN 1 WHEN 'killed' THEN 137 ELSE 0 END,
    CASE n WHEN 1 THEN 'drone/git' WHEN 5 THEN 'plugins/docker' ELSE 'node:22' END, 0, '[]',
    CASE WHEN status IN ('pending', 'skipped') THEN 0 ELSE started END,
    CASE WHEN status IN ('pending', 'skipped', 'running') THEN 0 ELSE started + 4000 END, 3
  FROM (
    SELECT st.id AS stage_id, p.n, st.started + (p.n - 1) * 4000 AS started,
      CASE st.status
        WHEN 'failure' THEN CASE WHEN p.n < 4 THEN 'success' WHEN p.n = 4 THEN 'failure' ELSE 'skipped' END
        WHEN 'killed' THEN CASE WHEN p.n < 4 THEN 'success' WHEN p.n = 4 THEN 'killed' ELSE 'skipped' END
        WHEN 'running' THEN CASE WHEN p.n < 3 THEN 'success' WHEN p.n = 3 THEN 'running' ELSE 'pending' END
        WHEN 'waiting_on_dependencies' THEN 'pending'
        ELSE st.status END AS status
    FROM stages st CROSS JOIN (${numbers(SCALE.stepsPerStage)}) p
    WHERE st.id > ${after} AND st.id <= ${upTo}
  ) AS x
  ORDER BY stage_id, n`;
}

/** A short finished log (two lines, as svc stores them) for every 30th of the steps with ids in (after, upTo]. */
export function logsSql(d: SeedDialect, after: number, upTo: number): string {
  const json = `'[{"pos":0,"out":"+ npm test\\n","time":0},{"pos":1,"out":"ok, step ' || id || '\\n","time":4}]'`;
  return `INSERT INTO logs (step_id, part, data)
  SELECT id, 0, ${d.bytes(json)} FROM steps
  WHERE id > ${after} AND id <= ${upTo} AND id % 30 = 0 AND status IN ('success', 'failure', 'killed')
  ORDER BY id`;
}

/** Drone's `latest` lists, as build creation keeps them: the newest push per branch and build per pull request. */
export function latestSql(): string[] {
  return [
    `INSERT INTO latest (repo_id, kind, name, build_id, updated)
    SELECT repo_id, 'branch', target, MAX(id), MAX(created) FROM builds WHERE event = 'push'
    GROUP BY repo_id, target`,
    `INSERT INTO latest (repo_id, kind, name, build_id, updated)
    SELECT repo_id, 'pull_request', substr(ref, 11, length(ref) - 15), MAX(id), MAX(created) FROM builds
    WHERE event = 'pull_request' GROUP BY repo_id, ref`,
  ];
}
