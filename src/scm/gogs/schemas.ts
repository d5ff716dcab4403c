import { z } from 'zod';

/*
 * The parts of Gogs' API v1 answers svc reads (gogs.io API reference; the JSON types of
 * gogs/go-gogs-client, the same in 0.11 to 0.14). Unknown fields are dropped.
 */

/** `GET /user`, `GET /users/{username}`: `username` (and its legacy twin `login`). */
export const userSchema = z.object({
  id: z.number(),
  username: z.string(),
  email: z.string().nullish(),
  avatar_url: z.string().nullish(),
});

/** `GET /user/orgs` items: an organization's name is its `username`. */
export const orgSchema = z.object({ username: z.string() });

/** A repository; `permissions` is present in API answers, absent in webhook payloads. */
export const repoSchema = z.object({
  id: z.number(),
  owner: z.object({ id: z.number().optional(), username: z.string() }),
  name: z.string(),
  full_name: z.string(),
  private: z.boolean(),
  html_url: z.string(),
  clone_url: z.string(),
  ssh_url: z.string(),
  default_branch: z.string(),
  permissions: z.object({ admin: z.boolean(), push: z.boolean(), pull: z.boolean() }).optional(),
});
export type GogsRepo = z.infer<typeof repoSchema>;

/** A commit as webhooks and `GET /repos/{o}/{r}/branches/{branch}` describe it. */
export const payloadCommitSchema = z.object({
  id: z.string(),
  message: z.string(),
  url: z.string().nullish(),
  author: z.object({ name: z.string(), email: z.string(), username: z.string().nullish() }),
});

/** `GET /repos/{o}/{r}/branches/{branch}`. */
export const branchSchema = z.object({ name: z.string(), commit: payloadCommitSchema });

/** `GET /repos/{o}/{r}/commits/{sha}`: `commit.message` is the subject line only. */
export const commitSchema = z.object({
  sha: z.string(),
  html_url: z.string(),
  commit: z.object({
    message: z.string(),
    author: z.object({ name: z.string(), email: z.string() }).nullish(),
  }),
  author: z.object({ username: z.string(), avatar_url: z.string().nullish() }).nullish(),
});

/** `GET /repos/{o}/{r}/hooks` items: the secret is never shown. */
export const hookSchema = z.object({
  id: z.number(),
  type: z.string(),
  config: z.object({ url: z.string().optional() }).catchall(z.string()),
});

/** `GET|POST /users/{username}/tokens` (HTTP Basic): `sha1` is the token when created. */
export const tokenSchema = z.object({ name: z.string(), sha1: z.string() });

/** Gogs' error body: `{"message": …, "url": …}` (many refusals have an empty body instead). */
export const errorBodySchema = z.object({ message: z.string() });
