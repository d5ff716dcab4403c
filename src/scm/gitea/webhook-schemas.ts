import { z } from 'zod';

/*
 * Gitea and Forgejo webhook payloads (`modules/structs/hook.go`): the fields svc reads. Payload
 * repositories carry permissions computed for the owner, which svc does not read.
 */

const user = z.object({
  login: z.string(),
  email: z.string().nullish(),
  avatar_url: z.string().nullish(),
});

const repository = z.object({
  id: z.number(),
  owner: z.object({ login: z.string() }),
  name: z.string(),
  full_name: z.string(),
});

/** Every event names its repository: the one whose secret must verify it. */
export const anyHookSchema = z.object({ repository });

const commit = z.object({
  id: z.string(),
  message: z.string(),
  url: z.string().nullish(),
  author: z.object({ name: z.string(), email: z.string(), username: z.string().nullish() }),
});

/** `push`, for branches and tags: `head_commit` is the pushed commit (also for a tag, whose `after` may be a tag object). */
export const pushSchema = z.object({
  ref: z.string(),
  before: z.string(),
  after: z.string(),
  compare_url: z.string().nullish(),
  commits: z.array(commit).nullish(),
  head_commit: commit.nullish(),
  repository,
  pusher: user.nullish(),
  sender: user,
});
export type PushPayload = z.infer<typeof pushSchema>;

const branch = z.object({
  ref: z.string(),
  sha: z.string(),
  repo_id: z.number().optional(),
  repo: z.object({ id: z.number(), full_name: z.string() }).nullish(),
});

/** `pull_request`, every action (`X-Gitea-Event-Type` tells `pull_request_sync` and the like apart). */
export const pullRequestSchema = z.object({
  action: z.string(),
  number: z.number(),
  pull_request: z.object({
    title: z.string(),
    html_url: z.string(),
    user,
    head: branch,
    base: branch,
    merged: z.boolean().nullish(),
  }),
  repository,
  sender: user,
});
export type PullRequestPayload = z.infer<typeof pullRequestSchema>;
