/**
 * The JSON of the runner protocol (rpc v2), as zod schemas: Drone's shapes and snake_case names,
 * so that an existing Drone runner can talk to svc and svc's runner speaks what Drone servers speak.
 * Times on the wire are Unix SECONDS, as in Drone (svc stores milliseconds; see ./convert.ts).
 * Every field a Go encoder may leave out (`omitempty`, nil slices and maps as `null`) has a default.
 * Both ends parse with these schemas: the server the runner's requests, the runner the answers.
 */
import { z } from 'zod';
import { STATUSES } from '../../../core/status.js';
import { RUNNER_KINDS } from '../../../core/runner.js';

const int = z.number().int();
const text = z
  .string()
  .nullish()
  .transform((v) => v ?? '');
const count = int.nullish().transform((v) => v ?? 0);
/** The largest value of the 32-bit integer columns (numbers, versions, limits, exit codes, batches). */
export const INT32_MAX = 2 ** 31 - 1;
/** A count stored in a 32-bit column: larger values are refused here, not by the database. */
const count32 = int
  .min(-INT32_MAX - 1)
  .max(INT32_MAX)
  .nullish()
  .transform((v) => v ?? 0);
/**
 * An exit code, stored as a signed 32-bit integer. Windows' codes are unsigned 32-bit (an access
 * violation is 3221225477, 0xC0000005): they are kept as the signed value with the same bits
 * (-1073741819), as Windows' own APIs report NTSTATUS values.
 */
const exitCode = int
  .min(-INT32_MAX - 1)
  .max(2 ** 32 - 1)
  .nullish()
  .transform((v) => (v === undefined || v === null ? 0 : v > INT32_MAX ? v - 2 ** 32 : v));
/** The last second of year 9999: later times are refused (svc stores milliseconds in 64-bit columns). */
const LAST_SECOND = 253_402_300_799;
const time = z
  .number()
  .max(LAST_SECOND)
  .nullish()
  .transform((v) => Math.max(0, Math.floor(v ?? 0)));
const flag = z
  .boolean()
  .nullish()
  .transform((v) => v ?? false);
const names = z
  .array(z.string())
  .nullish()
  .transform((v) => v ?? []);
const labels = z
  .record(z.string(), z.string())
  .nullish()
  .transform((v) => v ?? {});
export const wireStatus = z.enum(STATUSES);

/** One step (`drone.Step`; note `step_id` is the id of its stage, as Drone names it). */
export const wireStep = z.object({
  id: count,
  step_id: count,
  number: int.min(1).max(INT32_MAX),
  name: z.string(),
  status: wireStatus,
  error: text,
  errignore: flag,
  exit_code: exitCode,
  started: time,
  stopped: time,
  version: count32,
  depends_on: names,
  image: text,
  detached: flag,
  /** svc's: how many times the step ran (`retry:`); Drone's runners leave it out. */
  attempts: count32.optional(),
});
export type WireStep = z.output<typeof wireStep>;

/** One stage (`drone.Stage`) with its steps. */
export const wireStage = z.object({
  id: int,
  repo_id: count,
  build_id: count,
  number: count32,
  name: text,
  kind: text,
  type: text,
  status: wireStatus,
  error: text,
  errignore: flag,
  exit_code: exitCode,
  machine: text,
  os: text,
  arch: text,
  variant: text,
  kernel: text,
  limit: count32,
  started: time,
  stopped: time,
  created: time,
  updated: time,
  version: count32,
  on_success: flag,
  on_failure: flag,
  depends_on: names,
  labels,
  steps: z
    .array(wireStep)
    .nullish()
    .transform((v) => v ?? []),
});
export type WireStage = z.output<typeof wireStage>;

/** A build (`drone.Build`). */
export const wireBuild = z.object({
  id: int,
  repo_id: count,
  trigger: text,
  number: count,
  parent: count,
  status: wireStatus,
  error: text,
  event: z.string(),
  action: text,
  link: text,
  timestamp: time,
  title: text,
  message: text,
  before: text,
  after: text,
  ref: text,
  source_repo: text,
  source: text,
  target: text,
  author_login: text,
  author_name: text,
  author_email: text,
  author_avatar: text,
  sender: text,
  params: labels,
  cron: text,
  deploy_to: text,
  deploy_id: count,
  debug: flag,
  started: time,
  finished: time,
  created: time,
  updated: time,
  version: count,
  /** svc's: the changed files the build's paths conditions read; absent when none read them or they are not known. */
  changed_files: z.array(z.string()).optional(),
  /** svc's: why the changed files are not known (then every paths condition holds). */
  changed_files_unknown: z.string().optional(),
  /** svc's: the pipelines `trigger: paths` left out. */
  paths_skipped: z.array(z.string()).optional(),
});
export type WireBuild = z.output<typeof wireBuild>;

/** A repository (`drone.Repo`). */
export const wireRepo = z.object({
  id: int,
  uid: text,
  user_id: count,
  namespace: z.string(),
  name: z.string(),
  slug: z.string(),
  scm: text,
  git_http_url: text,
  git_ssh_url: text,
  link: text,
  default_branch: text,
  private: flag,
  visibility: z
    .enum(['public', 'private', 'internal'])
    .nullish()
    .transform((v) => v ?? 'public'),
  active: flag,
  config_path: text,
  trusted: flag,
  protected: flag,
  ignore_forks: flag,
  ignore_pull_requests: flag,
  auto_cancel_pull_requests: flag,
  auto_cancel_pushes: flag,
  timeout: count,
  counter: count,
  synced: time,
  created: time,
  updated: time,
  version: count,
});
export type WireRepo = z.output<typeof wireRepo>;

/** A secret the build may use (`drone.Secret`). */
export const wireSecret = z.object({
  name: z.string(),
  data: text,
  pull_request: flag,
  pull_request_push: flag,
});
export type WireSecret = z.output<typeof wireSecret>;

/** Clone credentials (`drone.Netrc`). */
export const wireNetrc = z.object({ machine: z.string(), login: text, password: text });
export type WireNetrc = z.output<typeof wireNetrc>;

/** The server as steps see it (`drone.System`). */
export const wireSystem = z.object({ proto: text, host: text, link: text, version: text });
export type WireSystem = z.output<typeof wireSystem>;

/** What `GET /rpc/v2/stage/{id}` answers: everything a runner needs to run the stage. */
export const wireDetails = z.object({
  build: wireBuild,
  repository: wireRepo,
  stage: wireStage,
  /** The pipeline file: `data` is base64, as Go encodes a byte slice. */
  config: z.object({ data: z.string() }),
  secrets: z
    .array(wireSecret)
    .nullish()
    .transform((v) => v ?? []),
  /**
   * svc addition: the `kind: secret` documents with inline `data` the server could not decrypt
   * (another repository's value, or altered), so that a stage using one fails saying so.
   */
  secret_errors: z
    .array(z.object({ name: z.string(), message: z.string() }))
    .nullish()
    .transform((v) => v ?? []),
  netrc: wireNetrc.nullish().transform((v) => v ?? undefined),
  /**
   * svc addition: the OpenID Connect tokens the server signed for the stage's steps (`id_tokens:` of a
   * step): variable `name` of step `step` gets `data`. Drone's servers send none.
   */
  id_tokens: z
    .array(z.object({ step: z.string(), name: z.string(), data: z.string() }))
    .nullish()
    .transform((v) => v ?? []),
  system: wireSystem,
});
export type WireDetails = z.output<typeof wireDetails>;

/**
 * Who asks (svc's addition to the filter): the runner's name (SVC_RUNNER_NAME), kind, capacity
 * (SVC_RUNNER_CAPACITY), SVC_RUNNER_MAX_PROCS and version. The server registers the runner from it
 * (GET /api/runners, and the reasons why stages wait); Drone's runners do not send it.
 */
export const wireRunner = z.object({
  name: z.string().min(1).max(250),
  kind: z.enum(RUNNER_KINDS),
  capacity: int.min(0),
  max_procs: int.min(0),
  version: text,
});
export type WireRunner = z.output<typeof wireRunner>;

/**
 * What a runner asks for in `POST /rpc/v2/stage`. Drone's filter, plus svc's `limits`: the
 * runner's SVC_LIMIT_* settings, so that the server hands it only stages it will run; svc's
 * `runner`: who asks (see wireRunner); and svc's `claim`: the server takes the stage for
 * `runner.name` before answering, as an accept would, which saves the runner that round trip.
 */
export const wireFilter = z.object({
  kind: text,
  type: text,
  os: text,
  arch: text,
  variant: text,
  kernel: text,
  labels,
  limits: z
    .object({ events: names, repos: names, trusted: flag })
    .nullish()
    .transform((v) => v ?? undefined),
  runner: wireRunner.nullish().transform((v) => v ?? undefined),
  claim: flag.optional(),
});
export type WireFilter = z.output<typeof wireFilter>;

/** One log line (`drone.Line`): position in the step, text, seconds since the step started. */
export const wireLine = z.object({ pos: int.min(0), out: z.string(), time: time });
export type WireLine = z.output<typeof wireLine>;

/**
 * `POST /rpc/v2/step/{id}/logs/batch`: svc runners send `{batch, lines}` with batches numbered from
 * 0 per step; Drone runners send a bare array of lines, sent once each.
 */
export const wireBatch = z.union([
  z.object({ batch: int.min(0).max(INT32_MAX), lines: z.array(wireLine) }),
  z.array(wireLine),
]);
export type WireBatch = z.output<typeof wireBatch>;

/**
 * `POST /rpc/v2/step/{id}/logs/upload`: the log of the finished step. Either every line (Drone
 * runners; svc runners when the server cannot use its batches), or `{batches, lines}` (svc
 * runners): the lines of the step's batches 0 … batches − 1, as the server acknowledged them, then
 * `lines`, so that what the server already holds does not travel twice.
 */
export const wireUpload = z.union([
  z.array(wireLine),
  z.object({ batches: int.min(0).max(INT32_MAX), lines: z.array(wireLine) }),
]);
export type WireUpload = z.output<typeof wireUpload>;

/** The answer of a watch that ended because the build is done (cancelled, or failed elsewhere). */
export const wireWatch = z.object({ done: z.boolean(), status: wireStatus });
export type WireWatch = z.output<typeof wireWatch>;
