import { z } from 'zod';

/*
 * The parts of GitHub's webhook payloads svc reads (docs: webhooks/webhook-events-and-payloads).
 * Unknown fields are dropped; nullable fields are those GitHub documents as "or null".
 */

const account = z.object({ login: z.string(), avatar_url: z.string().nullish() });

/**
 * The repository a hook is for. Push payloads describe the owner with `name` (older GitHub Enterprise
 * Server) or with `login` and `name`; other events with `login`.
 */
export const hookRepoSchema = z.object({
  id: z.number(),
  name: z.string(),
  full_name: z.string(),
  owner: z.object({ login: z.string().nullish(), name: z.string().nullish() }),
});

/** Any payload svc verifies: it must name its repository. */
export const anyHookSchema = z.object({ repository: hookRepoSchema });

const gitActor = z.object({
  name: z.string().nullish(),
  email: z.string().nullish(),
  username: z.string().nullish(),
});

/** `push`: a branch or tag created, moved or deleted. */
export const pushSchema = z.object({
  ref: z.string(),
  before: z.string(),
  after: z.string(),
  deleted: z.boolean().optional(),
  compare: z.string().nullish(),
  head_commit: z.object({ id: z.string(), message: z.string(), author: gitActor }).nullish(),
  repository: hookRepoSchema,
  sender: account,
});
export type PushPayload = z.infer<typeof pushSchema>;

const prSide = z.object({
  ref: z.string(),
  sha: z.string(),
  // A deleted fork leaves its pull requests without a head repository.
  repo: z.object({ full_name: z.string() }).nullish(),
});

/** `pull_request`: any of the pull request's activities, named by `action`. */
export const pullRequestSchema = z.object({
  action: z.string(),
  number: z.number(),
  pull_request: z.object({
    title: z.string(),
    html_url: z.string(),
    user: account,
    head: prSide,
    base: prSide,
  }),
  repository: hookRepoSchema,
  sender: account,
});
export type PullRequestPayload = z.infer<typeof pullRequestSchema>;

/** `create` and `delete`: a branch or tag, named without `refs/…`. */
export const refEventSchema = z.object({ ref_type: z.string() });
