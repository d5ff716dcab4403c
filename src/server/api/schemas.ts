/**
 * The JSON shapes the API answers with, as zod schemas: the OpenAPI document is generated from
 * them, and the API tests check every answer against the schema of its route, so the document
 * cannot drift from what the server sends. Times are epoch seconds, as in Drone.
 */
import { z } from 'zod';
import { APPROVAL_POLICIES } from '../../core/repo.js';
import { STATUSES } from '../../core/status.js';
import { PENDING_CODES } from '../queue/pending-reason.js';

const int = z.number().int();
const seconds = int.min(0).describe('epoch seconds; 0 when not yet');
const status = z.enum(STATUSES);
const strings = z.record(z.string(), z.string());

export const userSchema = z.object({
  id: int,
  login: z.string(),
  email: z.string(),
  machine: z.boolean(),
  admin: z.boolean(),
  active: z.boolean(),
  avatar: z.string(),
  last_login: seconds,
  created: seconds,
  updated: seconds,
  csrf: z.string().optional().describe('the CSRF token, for callers authenticated by the session cookie'),
  token: z.string().optional().describe('the API token: only in answers that hand it out'),
});

export const permissionsSchema = z.object({ read: z.boolean(), write: z.boolean(), admin: z.boolean() });

export const stepSchema = z.object({
  id: int,
  step_id: int.describe('the id of the step’s stage (Drone’s name)'),
  stage_id: int,
  number: int,
  name: z.string(),
  status,
  error: z.string(),
  errignore: z.boolean(),
  exit_code: int,
  started: seconds,
  stopped: seconds,
  version: int,
  depends_on: z.array(z.string()),
  image: z.string(),
  detached: z.boolean(),
  attempts: int.describe(
    'how many times the step ran: 1, more after its retry:, 0 before it starts (svc addition)',
  ),
});

export const stageSchema = z.object({
  id: int,
  repo_id: int,
  build_id: int,
  number: int,
  name: z.string(),
  kind: z.string(),
  type: z.string(),
  status,
  error: z.string(),
  errignore: z.boolean(),
  exit_code: int,
  machine: z.string(),
  os: z.string(),
  arch: z.string(),
  variant: z.string(),
  kernel: z.string(),
  limit: int,
  started: seconds,
  stopped: seconds,
  created: seconds,
  updated: seconds,
  version: int,
  on_success: z.boolean(),
  on_failure: z.boolean(),
  depends_on: z.array(z.string()),
  labels: strings,
  steps: z.array(stepSchema).optional(),
  pending_reason: z
    .object({ code: z.enum(PENDING_CODES), message: z.string() })
    .optional()
    .describe('svc: why the stage waits; on stages that are pending, waiting_on_dependencies or blocked'),
  deployment: z
    .object({
      environment: z.string(),
      approvals_required: int,
      approved: z.boolean(),
      deadline: seconds.describe(
        'when a stage still waiting for approval is declined; 0 when it does not wait',
      ),
    })
    .optional()
    .describe('svc: the environment the stage deploys to, on stages that deploy'),
});

export const buildSchema = z.object({
  id: int,
  repo_id: int,
  trigger: z.string(),
  number: int,
  parent: int,
  status,
  error: z.string(),
  event: z.string(),
  action: z.string(),
  link: z.string(),
  timestamp: seconds,
  title: z.string(),
  message: z.string(),
  before: z.string(),
  after: z.string(),
  ref: z.string(),
  source_repo: z.string(),
  source: z.string(),
  target: z.string(),
  author_login: z.string(),
  author_name: z.string(),
  author_email: z.string(),
  author_avatar: z.string(),
  sender: z.string(),
  params: strings,
  cron: z.string(),
  deploy_to: z.string(),
  deploy_id: int,
  debug: z.boolean(),
  started: seconds,
  finished: seconds,
  created: seconds,
  updated: seconds,
  version: int,
  changed_files: z
    .array(z.string())
    .optional()
    .describe(
      'the changed files the paths conditions read (svc addition); absent when none did or they are not known',
    ),
  changed_files_unknown: z
    .string()
    .optional()
    .describe('why the changed files are not known: every paths condition then held (svc addition)'),
  paths_skipped: z
    .array(z.string())
    .optional()
    .describe('the pipelines trigger: paths left out (svc addition)'),
  stages: z.array(stageSchema).optional().describe('single-build answers only'),
});

/** A cron job (Drone's core.Cron); `next`/`prev` in epoch seconds, 0 when none. */
export const cronSchema = z.object({
  id: int,
  repo_id: int,
  name: z.string(),
  expr: z.string(),
  next: seconds,
  prev: seconds,
  event: z.string(),
  branch: z.string(),
  target: z.string(),
  disabled: z.boolean(),
  created: seconds,
  updated: seconds,
  version: int,
});

export const cacheSchema = z
  .object({
    key: z.string().describe('the key the step resolved and saved under'),
    scope: z.string().describe('the ref whose builds saved it and own it, e.g. refs/heads/main'),
    size: int.min(0).describe('bytes of the stored (compressed) archive'),
    created: seconds.describe('epoch seconds of the save'),
    used: seconds.describe('epoch seconds of the last restore (the save’s time until one)'),
  })
  .strict()
  .describe('a build cache (docs/caches.md)');

const placeSchema = z.object({ number: int.min(0), name: z.string() }).strict();

export const artifactSchema = z
  .object({
    id: int,
    stage: placeSchema.describe('the stage it belongs to (number and name)'),
    step: placeSchema.describe('the step that uploaded it'),
    name: z.string().describe('unique within the stage, e.g. binaries'),
    files: int.min(0).describe('files, folders and links in it'),
    size: int.min(0).describe('bytes of its files, uncompressed'),
    zip_size: int.min(0).describe('bytes of its zip (what `download?format=zip` sends)'),
    created: seconds.describe('epoch seconds of the upload'),
    expires: seconds.describe('epoch seconds after which it is removed; 0: kept as long as its build'),
    junit: z.array(z.string()).describe('paths of its JUnit XML reports'),
  })
  .strict()
  .describe('a step’s uploaded artifact (docs/artifacts.md)');

export const artifactEntrySchema = z
  .object({
    path: z.string().describe('`/`-separated, relative to the workspace; no trailing `/` for folders'),
    size: int.min(0).describe('bytes (0 for folders; a link’s target length for links)'),
    mode: int.min(0).describe('permission bits, e.g. 493 (0o755)'),
    type: z.enum(['file', 'directory', 'symlink']),
  })
  .strict();

export const artifactWithEntriesSchema = artifactSchema
  .extend({
    entries: z.array(artifactEntrySchema).describe('its files, folders and links, in the zip’s order'),
  })
  .strict();

export const repoSchema = z.object({
  id: int,
  uid: z.string(),
  user_id: int,
  namespace: z.string(),
  name: z.string(),
  slug: z.string(),
  scm: z.string(),
  git_http_url: z.string(),
  git_ssh_url: z.string(),
  link: z.string(),
  default_branch: z.string(),
  private: z.boolean(),
  visibility: z.enum(['public', 'private', 'internal']),
  active: z.boolean(),
  config_path: z.string(),
  trusted: z.boolean(),
  protected: z.boolean(),
  ignore_forks: z.boolean(),
  ignore_pull_requests: z.boolean(),
  auto_cancel_pull_requests: z.boolean(),
  auto_cancel_pushes: z.boolean(),
  auto_cancel_running: z.boolean(),
  throttle: int.describe('builds that may run at once; 0 = no limit'),
  approval: z.enum(APPROVAL_POLICIES).describe('which builds wait for approval'),
  fork_id_tokens: z
    .boolean()
    .describe('builds of forks’ pull requests get the OpenID Connect tokens their steps ask for'),
  timeout: int,
  counter: int,
  synced: seconds,
  created: seconds,
  updated: seconds,
  version: int,
  permissions: permissionsSchema.optional().describe('the caller’s; absent for anonymous callers'),
  build: buildSchema.optional().describe('the newest build, with ?latest=true'),
  recent: z
    .array(z.object({ number: int, status, started: seconds, finished: seconds }))
    .optional()
    .describe('the last builds, newest first, with ?recent=N'),
});

export const logLineSchema = z.object({
  pos: int.describe('0-based line number'),
  out: z.string(),
  time: int.describe('seconds since the step started'),
});

export const templateSchema = z
  .object({
    id: int,
    namespace: z.string().describe('the organization or user whose repositories load it'),
    name: z
      .string()
      .describe(
        'one file name; its extension says the language: .yml/.yaml, .jsonnet, .star/.starlark/.script',
      ),
    data: z.string().describe('the template’s text'),
    created: seconds,
    updated: seconds,
  })
  .strict()
  .describe('a pipeline template of a namespace (kind: template documents load it)');

export const secretSchema = z
  .object({
    id: int,
    repo_id: int.optional().describe('repository secrets only'),
    namespace: z.string().optional().describe('organization secrets only'),
    name: z.string(),
    pull_request: z.boolean().describe('builds of pull requests get the secret (never those from forks)'),
    pull_request_push: z.boolean().describe('Drone’s “allow push on pull requests”; grants nothing alone'),
    environment: z
      .string()
      .optional()
      .describe('svc’s addition: only stages deploying to this environment, once approved, get the secret'),
  })
  .strict()
  .describe('a secret, without its value: no route returns the value');
