import { z } from 'zod';

/* GitLab webhook payloads (docs: user/project/integrations/webhook_events): the fields svc reads. */

const project = z.object({
  id: z.number(),
  path_with_namespace: z.string(),
  web_url: z.string().nullish(),
});

/** Push Hook and Tag Push Hook: `checkout_sha` is the commit (for an annotated tag `after` is the tag object). */
export const pushSchema = z.object({
  object_kind: z.enum(['push', 'tag_push']),
  before: z.string(),
  after: z.string(),
  ref: z.string(),
  checkout_sha: z.string().nullish(),
  message: z.string().nullish(),
  user_username: z.string(),
  user_name: z.string().nullish(),
  user_email: z.string().nullish(),
  user_avatar: z.string().nullish(),
  project_id: z.number(),
  project,
  commits: z
    .array(
      z.object({
        id: z.string(),
        message: z.string(),
        url: z.string().nullish(),
        author: z.object({ name: z.string(), email: z.string() }),
      }),
    )
    .nullish(),
});
export type PushPayload = z.infer<typeof pushSchema>;

/** Merge Request Hook: `oldrev` is there only when the update brought new commits. */
export const mergeRequestSchema = z.object({
  object_kind: z.literal('merge_request'),
  user: z.object({ username: z.string(), avatar_url: z.string().nullish(), email: z.string().nullish() }),
  project,
  object_attributes: z.object({
    iid: z.number(),
    title: z.string(),
    action: z.string().nullish(),
    oldrev: z.string().nullish(),
    source_branch: z.string(),
    target_branch: z.string(),
    source_project_id: z.number(),
    target_project_id: z.number(),
    url: z.string(),
    source: z.object({ path_with_namespace: z.string() }).nullish(),
    target: z.object({ path_with_namespace: z.string() }).nullish(),
    last_commit: z.object({
      id: z.string(),
      message: z.string(),
      author: z.object({ name: z.string(), email: z.string() }),
    }),
  }),
});
export type MergeRequestPayload = z.infer<typeof mergeRequestSchema>;

/** Every hook names its project (the one whose secret token must match). */
export const anyHookSchema = z.object({ project });
