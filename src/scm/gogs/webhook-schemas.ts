import { z } from 'zod';

/*
 * Gogs webhook payloads (gogs.io docs "Webhooks"; the payload types of gogs/go-gogs-client): the
 * fields svc reads. Payload repositories have no `permissions`.
 */

const user = z.object({
  username: z.string(),
  email: z.string().nullish(),
  avatar_url: z.string().nullish(),
});

const repository = z.object({
  id: z.number(),
  owner: z.object({ username: z.string() }),
  name: z.string(),
  full_name: z.string(),
  html_url: z.string().nullish(),
});

/** Every event names its repository: the one whose secret must verify it. */
export const anyHookSchema = z.object({ repository });

const commit = z.object({
  id: z.string(),
  message: z.string(),
  url: z.string().nullish(),
  author: z.object({ name: z.string(), email: z.string(), username: z.string().nullish() }),
});

/** `push`: `commits` newest first, at most a few, possibly none (then `after` is the commit). */
export const pushSchema = z.object({
  ref: z.string(),
  before: z.string(),
  after: z.string(),
  compare_url: z.string().nullish(),
  commits: z.array(commit).nullish(),
  repository,
  pusher: user.nullish(),
  sender: user,
});
export type PushPayload = z.infer<typeof pushSchema>;

/** `create` and `delete`: `ref` is the short name; `sha` (create only) the new ref's value. */
export const refEventSchema = z.object({
  ref: z.string(),
  ref_type: z.string(),
  sha: z.string().nullish(),
  repository,
  sender: user,
});
export type RefEventPayload = z.infer<typeof refEventSchema>;

/** `pull_request`: Gogs sends no commit sha for either side, only branches and repositories. */
export const pullRequestSchema = z.object({
  action: z.string(),
  number: z.number(),
  pull_request: z.object({
    title: z.string(),
    user,
    html_url: z.string(),
    head_branch: z.string(),
    head_repo: z.object({ full_name: z.string() }).nullish(),
    base_branch: z.string(),
    base_repo: z.object({ full_name: z.string() }).nullish(),
    merged: z.boolean().nullish(),
  }),
  repository,
  sender: user,
});
export type PullRequestPayload = z.infer<typeof pullRequestSchema>;
