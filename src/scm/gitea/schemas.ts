import { z } from 'zod';

/*
 * The parts of Gitea's (and Forgejo's) API v1 answers svc reads (the API's swagger document and
 * `modules/structs`). Unknown fields are dropped.
 */

/** `GET /user`: `login` (and its deprecated twin `username`). */
export const userSchema = z.object({
  id: z.number(),
  login: z.string(),
  email: z.string().nullish(),
  avatar_url: z.string().nullish(),
});

/** `GET /user/orgs` items: the name is `name` from Gitea 1.18 on, `username` before. */
export const orgSchema = z.object({ name: z.string().optional(), username: z.string().optional() });

/** `GET /users/{u}/orgs/{org}/permissions` (Gitea 1.16+). */
export const orgPermissionsSchema = z.object({ is_owner: z.boolean(), is_admin: z.boolean() });

/** A repository with the asking user's permissions. */
export const repoSchema = z.object({
  id: z.number(),
  owner: z.object({ id: z.number().optional(), login: z.string(), visibility: z.string().optional() }),
  name: z.string(),
  full_name: z.string(),
  private: z.boolean(),
  internal: z.boolean().optional(),
  html_url: z.string(),
  clone_url: z.string(),
  ssh_url: z.string(),
  default_branch: z.string(),
  permissions: z.object({ admin: z.boolean(), push: z.boolean(), pull: z.boolean() }).nullish(),
});
export type GiteaRepo = z.infer<typeof repoSchema>;

/** `GET /repos/{o}/{r}/branches/{branch}`: its commit is a payload commit (`id`, not `sha`). */
export const branchSchema = z.object({ name: z.string(), commit: z.object({ id: z.string() }) });

/** `GET /repos/{o}/{r}/git/commits/{sha}`: `author` is the account matched by email, or null. */
export const commitSchema = z.object({
  sha: z.string(),
  html_url: z.string(),
  commit: z.object({
    message: z.string(),
    author: z.object({ name: z.string(), email: z.string() }).nullish(),
  }),
  author: z.object({ login: z.string(), avatar_url: z.string().nullish() }).nullish(),
});

/** `GET /repos/{o}/{r}/hooks` items: the secret is never shown. */
export const hookSchema = z.object({
  id: z.number(),
  config: z.object({ url: z.string().optional() }).catchall(z.string()),
});

/** Gitea's error body: `{"message": …, "url": …}`. */
export const errorBodySchema = z.object({ message: z.string() });
