import type { Generated } from 'kysely';

/*
 * Row shapes of the tables as Kysely sees them. Conventions shared by every dialect:
 * booleans are integer flags (0/1), timestamps are epoch milliseconds, lists and maps are JSON text.
 */

/** users: people and machine accounts. */
export interface UserRow {
  id: Generated<number>;
  login: string;
  email: string;
  avatar: string;
  machine: number;
  admin: number;
  active: number;
  /** SHA-256 (hex) of the API token, since schema version 12 (before: the token itself, as `token`). */
  token_hash: string;
  /** Encrypted with SVC_DATABASE_SECRET when it is set, bound to the row (encryption/columns.ts). */
  scm_token: string;
  /** SHA-256 (hex) of the plain provider token, '' for none; since schema version 12. */
  scm_token_hash: string;
  /** Encrypted as scm_token. */
  scm_refresh: string;
  scm_expiry: number;
  /** Since schema version 11: the provider's id of the person; NULL when unknown. */
  scm_uid: string | null;
  /** Since schema version 11: moved on by every logout (UserStore.endSessions). */
  session_gen: Generated<number>;
  last_login: number;
  created: number;
  updated: number;
}

/** repos: repositories; `counter` is the last build number handed out. */
export interface RepoRow {
  id: Generated<number>;
  uid: string;
  user_id: number;
  namespace: string;
  name: string;
  slug: string;
  scm: string;
  clone_url: string;
  clone_url_ssh: string;
  link: string;
  default_branch: string;
  private: number;
  visibility: string;
  active: number;
  config_path: string;
  trusted: number;
  protected: number;
  ignore_forks: number;
  ignore_pull_requests: number;
  cancel_pulls: number;
  cancel_push: number;
  timeout: number;
  counter: number;
  /** Encrypted with SVC_DATABASE_SECRET when it is set, bound to the row (encryption/columns.ts). */
  hook_secret: string;
  /** Since schema version 5. */
  throttle: number;
  cancel_running: number;
  approval: string;
  /** Encrypted as hook_secret. */
  signing_key: string;
  /** Since schema version 11. */
  namespace_uid: string;
  /** Since schema version 15. */
  fork_id_tokens: number;
  synced: number;
  created: number;
  updated: number;
  version: number;
}

/** perms: one row per (user, repository). */
export interface PermRow {
  user_id: number;
  repo_id: number;
  read: number;
  write: number;
  admin: number;
  synced: number;
  created: number;
  updated: number;
}

/** builds: `params` is a JSON object of strings. */
export interface BuildRow {
  id: Generated<number>;
  repo_id: number;
  number: number;
  parent: number;
  status: string;
  error: string;
  event: string;
  action: string;
  trigger: string;
  link: string;
  title: string;
  message: string;
  before: string;
  after: string;
  ref: string;
  source_repo: string;
  source: string;
  target: string;
  author_login: string;
  author_name: string;
  author_email: string;
  author_avatar: string;
  sender: string;
  params: string;
  cron: string;
  deploy_to: string;
  /** Since schema version 2; null for older builds. */
  config: string | null;
  /** BuildChangedFiles as JSON (migration 19); null when no `paths` condition read any. */
  changed_files: Generated<string | null>;
  deploy_id: number;
  debug: number;
  started: number;
  finished: number;
  created: number;
  updated: number;
  version: number;
}

/** stages: `depends_on` is a JSON array, `labels` a JSON object. */
export interface StageRow {
  id: Generated<number>;
  repo_id: number;
  build_id: number;
  number: number;
  name: string;
  kind: string;
  type: string;
  status: string;
  error: string;
  err_ignore: number;
  exit_code: number;
  machine: string;
  os: string;
  arch: string;
  variant: string;
  kernel: string;
  limit: number;
  started: number;
  stopped: number;
  heartbeat: number;
  created: number;
  updated: number;
  version: number;
  on_success: number;
  on_failure: number;
  depends_on: string;
  labels: string;
  /** StageDeployment as JSON; null when the stage deploys nowhere (since schema version 20). */
  deployment: Generated<string | null>;
}

/** steps: `depends_on` is a JSON array. */
export interface StepRow {
  id: Generated<number>;
  stage_id: number;
  number: number;
  name: string;
  status: string;
  error: string;
  err_ignore: number;
  exit_code: number;
  image: string;
  detached: number;
  depends_on: string;
  started: number;
  stopped: number;
  /** Added by migration 18 (default 0): inserts written before it leave it out. */
  attempts: Generated<number>;
  version: number;
}

/**
 * logs: a step's finished log as JSON, in one part, or several where the dialect caps a statement's
 * size; when `batches` is above 0, the step's log batches 0 … batches − 1 come first, joined with the
 * parts' lines (LogStore.createFromBatches).
 */
export interface LogRow {
  step_id: number;
  part: number;
  data: Buffer;
  batches: Generated<number>;
}

/** log_batches: the lines of one numbered batch of a running step, as JSON bytes. */
export interface LogBatchRow {
  step_id: number;
  batch: number;
  data: Buffer;
  created: number;
}

/**
 * secrets: the scope is two non-null columns so that (scope, scope_key, name) is unique on every
 * dialect; `repo_id` repeats a repository scope's id so that deleting the repository cascades.
 */
export interface SecretRow {
  id: Generated<number>;
  scope: string;
  scope_key: string;
  repo_id: number | null;
  name: string;
  /** The value; encrypted as repos.hook_secret. */
  data: string;
  pull_request: number;
  pull_request_push: number;
  /** Since schema version 11. */
  namespace_uid: string;
  /** Since schema version 20: only stages deploying to it get the secret; '' for any build. */
  environment: Generated<string>;
  created: number;
  updated: number;
}

/** crons: a repository's scheduled builds. */
export interface CronRow {
  id: Generated<number>;
  repo_id: number;
  name: string;
  expr: string;
  next: number;
  prev: number;
  event: string;
  branch: string;
  target: string;
  disabled: number;
  created: number;
  updated: number;
  version: number;
}

/** runners: `labels` is a JSON object. */
export interface RunnerRow {
  id: Generated<number>;
  name: string;
  kind: string;
  type: string;
  labels: string;
  capacity: number;
  max_procs: number;
  os: string;
  arch: string;
  version: string;
  last_seen: number;
  created: number;
  updated: number;
}

/** migrations: one row per applied schema version. */
export interface MigrationRow {
  version: number;
  name: string;
  applied: number;
}

/** meta: small facts about the database itself (secret encryption state). */
export interface MetaRow {
  name: string;
  value: string;
}

/** latest: the newest build per branch, pull request and deployment target (since schema version 7). */
export interface LatestRow {
  repo_id: number;
  /** `branch`, `pull_request` or `deployment`, Drone's names. */
  kind: string;
  /** The branch, the pull request's number, or the deployment target. */
  name: string;
  build_id: number;
  updated: number;
}

/** oidc_keys: the keys that sign jobs' OpenID Connect tokens (since schema version 15). */
export interface OidcKeyRow {
  id: Generated<number>;
  kid: string;
  slot: string;
  algorithm: string;
  /** The public JWK as JSON. */
  public_jwk: string;
  /** PKCS #8 PEM; encrypted as secrets.data (encryption/columns.ts). */
  private_key: string;
  signs_from: number;
  signs_until: number;
  expires: number;
  created: number;
}

/** leases: which server runs a once-per-cluster job until when (since schema version 8). */
export interface LeaseRow {
  name: string;
  holder: string;
  expires: number;
}

/** cluster_signals: signals between servers on MySQL, polled by id (since schema version 8). */
export interface ClusterSignalRow {
  id: Generated<number>;
  origin: string;
  body: string;
  created: number;
}

/** status_outbox: commit statuses waiting to be posted again (since schema version 9). */
export interface StatusOutboxRow {
  id: Generated<number>;
  repo_id: number;
  build_id: number;
  commit_sha: string;
  context: string;
  state: string;
  description: string;
  target_url: string;
  ref: string;
  attempts: number;
  next_attempt: number;
  last_error: string;
  created: number;
}

/** hook_deliveries: keys of the webhook deliveries taken lately (since schema version 13). */
export interface HookDeliveryRow {
  repo_id: number;
  delivery: string;
  created: number;
}

/** The whole schema, for `Kysely<Tables>`. */
export interface Tables {
  users: UserRow;
  repos: RepoRow;
  perms: PermRow;
  builds: BuildRow;
  stages: StageRow;
  steps: StepRow;
  logs: LogRow;
  log_batches: LogBatchRow;
  secrets: SecretRow;
  crons: CronRow;
  runners: RunnerRow;
  latest: LatestRow;
  migrations: MigrationRow;
  meta: MetaRow;
  leases: LeaseRow;
  oidc_keys: OidcKeyRow;
  cluster_signals: ClusterSignalRow;
  status_outbox: StatusOutboxRow;
  hook_deliveries: HookDeliveryRow;
  runner_tokens: RunnerTokenRow;
  caches: CacheRow;
  artifacts: ArtifactRow;
  templates: TemplateRow;
  environments: EnvironmentRow;
  approvals: ApprovalRow;
  test_cases: TestCaseRow;
  test_results: TestResultRow;
  test_quarantine: TestQuarantineRow;
  test_settings: TestSettingsRow;
  insight_recorded: { build_id: number; day: number };
  insight_build_days: InsightKey & {
    builds: number;
    successes: number;
    duration_sum: number;
    queue_sum: number;
  };
  insight_build_buckets: InsightKey & { metric: number; bucket: number; n: number };
  insight_step_days: InsightKey & { name: string; runs: number; failures: number; duration_sum: number };
  insight_test_days: InsightKey & { case_id: number; failures: number; flaky: number };
  insight_runner_days: InsightKey & { kind: string; stages: number; busy_ms: number };
  insight_cache_days: InsightKey & { hits: number; misses: number };
  /** Since schema version 24: all-time sums by metric and label (a bucket, a runner kind, or ''). */
  insight_totals: { metric: string; label: string; n: number };
}

/** environments: `approvers` and `branches` are JSON (since schema version 20). */
export interface EnvironmentRow {
  id: Generated<number>;
  repo_id: number;
  name: string;
  approvers: string;
  required: number;
  branches: string;
  timeout: number;
  created: number;
  updated: number;
  version: number;
}

/** approvals: decisions on stages waiting for approval (since schema version 20). */
export interface ApprovalRow {
  id: Generated<number>;
  build_id: number;
  stage_id: number;
  stage: number;
  user_id: number;
  login: string;
  decision: string;
  comment: string;
  created: number;
}

/** runner_tokens: runners' own credentials, by hash (since schema version 14). */
export interface RunnerTokenRow {
  id: Generated<number>;
  name: string;
  token_hash: string;
  labels: string;
  created: number;
  last_used: number;
  revoked: number;
}

/** caches: the cache index; `key_hash` is what makes (repo, scope, key) unique (since schema version 16). */
export interface CacheRow {
  id: Generated<number>;
  repo_id: number;
  scope: string;
  key: string;
  /** SHA-256 (hex) of the JSON array [scope, key]. */
  key_hash: string;
  size: number;
  blob: string;
  created: number;
  used: number;
}

/** artifacts: the artifacts' index; no foreign keys, rows outlive their build (since schema version 17). */
export interface ArtifactRow {
  id: Generated<number>;
  repo_id: number;
  build_id: number;
  stage_id: number;
  step_id: number;
  name: string;
  files: number;
  size: number;
  zip_size: number;
  blob: string;
  /** JSON list of the JUnit report paths. */
  junit: string;
  created: number;
  /** 0: kept as long as the build. */
  expires: number;
}

/** templates: Drone's pipeline templates, unique by (namespace, name) (since schema version 21). */
export interface TemplateRow {
  id: Generated<number>;
  namespace: string;
  name: string;
  data: string;
  namespace_uid: string;
  created: number;
  updated: number;
}

/** test_cases: a repository's tests by suite and name (since schema version 22). */
export interface TestCaseRow {
  id: Generated<number>;
  repo_id: number;
  /** SHA-256 (hex) of suite NUL name: the unique key within the repository. */
  name_hash: string;
  suite: string;
  name: string;
  quarantined: number;
  flaky_seen: number;
  created: number;
}

/** test_results: each run of a test in a step's attempt, gone with its build (since schema version 22). */
export interface TestResultRow {
  id: Generated<number>;
  case_id: number;
  repo_id: number;
  build_id: number;
  stage_id: number;
  step_id: number;
  attempt: number;
  status: string;
  duration_ms: number;
  message: string;
  output: string;
  file: string;
  is_new: number;
  quarantined: number;
  superseded: number;
  commit_sha: string;
  created: number;
}

/** test_quarantine: every quarantine and lift of a test (since schema version 22). */
export interface TestQuarantineRow {
  id: Generated<number>;
  case_id: number;
  repo_id: number;
  quarantined: number;
  user_id: number;
  login: string;
  comment: string;
  created: number;
}

/** test_settings: a repository's choices about its tests (since schema version 22). */
export interface TestSettingsRow {
  repo_id: number;
  quarantine: number;
  updated: number;
  login: string;
}

/** The key every insight rollup starts with: a repository's UTC day (since schema version 23). */
export interface InsightKey {
  repo_id: number;
  day: number;
}
