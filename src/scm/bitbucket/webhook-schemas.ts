import { z } from 'zod';

/* Bitbucket Cloud webhook payloads (support.atlassian.com, "Event payloads"): the fields svc reads. */

const account = z.object({
  nickname: z.string().nullish(),
  display_name: z.string().nullish(),
  links: z.object({ avatar: z.object({ href: z.string() }).optional() }).optional(),
});

const repository = z.object({ uuid: z.string(), full_name: z.string() });

/** Every event names its repository: the one whose secret must verify it. */
export const anyHookSchema = z.object({ repository });

const target = z.object({
  hash: z.string(),
  message: z.string().nullish(),
  author: z.object({ raw: z.string().nullish(), user: account.nullish() }).nullish(),
  links: z.object({ html: z.object({ href: z.string() }).optional() }).optional(),
});

const ref = z.object({ type: z.string(), name: z.string(), target });

/** `repo:push`: one change per ref; `new` is null for a deletion. */
export const pushSchema = z.object({
  actor: account,
  repository,
  push: z.object({
    changes: z.array(z.object({ new: ref.nullish(), old: ref.nullish() })),
  }),
});
export type PushPayload = z.infer<typeof pushSchema>;

const side = z.object({
  branch: z.object({ name: z.string() }),
  commit: z.object({ hash: z.string() }),
  repository: repository.nullish(),
});

/** `pullrequest:*`: the commits are short hashes (12 characters). */
export const pullRequestSchema = z.object({
  actor: account,
  repository,
  pullrequest: z.object({
    id: z.number(),
    title: z.string(),
    state: z.string(),
    author: account,
    source: side,
    destination: side,
    links: z.object({ html: z.object({ href: z.string() }) }),
  }),
});
export type PullRequestPayload = z.infer<typeof pullRequestSchema>;
