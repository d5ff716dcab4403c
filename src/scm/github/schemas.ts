import { z } from 'zod';

/*
 * The parts of GitHub's REST answers svc reads (docs.github.com/rest). Unknown fields are dropped;
 * a missing required field makes the answer unreadable, which the client reports as a provider failure.
 */

/** `GET /user` (docs: rest/users/users#get-the-authenticated-user). */
export const userSchema = z.object({
  id: z.number(),
  login: z.string(),
  avatar_url: z.string().nullish(),
  email: z.string().nullish(),
});

/** `GET /user/orgs` items (docs: rest/orgs/orgs#list-organizations-for-the-authenticated-user). */
export const orgSchema = z.object({ login: z.string() });

/**
 * `GET /user/memberships/orgs/{org}` (docs: rest/orgs/members#get-an-organization-membership-for-the-authenticated-user):
 * `state` is `active` or `pending` (invited), `role` is `admin`, `member` or `billing_manager`.
 */
export const membershipSchema = z.object({ state: z.string(), role: z.string() });

/** `GET /user/emails` items (docs: rest/users/emails). */
export const emailSchema = z.object({
  email: z.string(),
  primary: z.boolean(),
  verified: z.boolean().optional(),
});

/** A repository with the asking user's permissions (docs: rest/repos/repos#get-a-repository). */
export const repoSchema = z.object({
  id: z.number(),
  name: z.string(),
  full_name: z.string(),
  owner: z.object({ id: z.number().optional(), login: z.string() }),
  private: z.boolean(),
  visibility: z.enum(['public', 'private', 'internal']).optional(),
  html_url: z.string(),
  clone_url: z.string(),
  ssh_url: z.string(),
  default_branch: z.string(),
  permissions: z.object({ admin: z.boolean(), push: z.boolean(), pull: z.boolean() }).partial().optional(),
});
export type GitHubRepo = z.infer<typeof repoSchema>;

/**
 * `GET /repos/{o}/{r}/contents/{path}` (docs: rest/repos/contents): an object for a file, an array
 * for a directory. Files over 1 MB come with encoding `none` and no content.
 */
export const contentSchema = z.union([
  z.object({
    type: z.string(),
    encoding: z.string().optional(),
    content: z.string().optional(),
  }),
  z.array(z.unknown()),
]);

/** `GET /repos/{o}/{r}/branches/{branch}` (docs: rest/branches/branches#get-a-branch). */
export const branchSchema = z.object({ name: z.string(), commit: z.object({ sha: z.string() }) });

/**
 * `GET /repos/{o}/{r}/commits/{ref}` (docs: rest/commits/commits#get-a-commit): the top-level `author`
 * is the GitHub account the commit's email belongs to, null when none.
 */
export const commitSchema = z.object({
  sha: z.string(),
  html_url: z.string(),
  commit: z.object({
    message: z.string(),
    author: z.object({ name: z.string().nullish(), email: z.string().nullish() }).nullish(),
  }),
  author: z.object({ login: z.string(), avatar_url: z.string().nullish() }).nullish(),
});

export type GitHubCommit = z.infer<typeof commitSchema>;

/** A repository webhook (docs: rest/repos/webhooks). */
export const hookSchema = z.object({
  id: z.number(),
  config: z.object({ url: z.string().optional() }),
});

/**
 * `POST /login/oauth/access_token` with `Accept: application/json` (docs: apps/oauth-apps/building-oauth-apps/
 * authorizing-oauth-apps): GitHub answers 200 for refusals too, with `error` set.
 */
export const accessTokenSchema = z.object({
  access_token: z.string().optional(),
  refresh_token: z.string().optional(),
  expires_in: z.number().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});

/** The body of an error answer (docs: rest/using-the-rest-api/troubleshooting-the-rest-api). */
export const errorBodySchema = z.object({
  message: z.string().optional(),
  errors: z
    .array(
      z.union([
        z.string(),
        z.object({
          field: z.string().optional(),
          code: z.string().optional(),
          message: z.string().optional(),
        }),
      ]),
    )
    .optional(),
});
