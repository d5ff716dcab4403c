import { z } from 'zod';

/* The parts of Bitbucket Cloud's REST API 2.0 answers svc reads (developer.atlassian.com/cloud/bitbucket). */

const avatar = z.object({ avatar: z.object({ href: z.string() }).optional() }).optional();

/** `GET /user`: `nickname` is the login (usernames left the API in 2019); `uuid` and `account_id` are stable. */
export const userSchema = z.object({
  uuid: z.string(),
  account_id: z.string().nullish(),
  nickname: z.string(),
  display_name: z.string().nullish(),
  links: avatar,
});

/** `GET /user/emails` items. */
export const emailSchema = z.object({
  email: z.string(),
  is_primary: z.boolean(),
  is_confirmed: z.boolean().optional(),
});

/** `GET /user/workspaces` items (CHANGE-3022): `workspace_access`, with the workspace's slug. */
export const workspaceAccessSchema = z.object({
  administrator: z.boolean(),
  workspace: z.object({ slug: z.string(), uuid: z.string() }),
});

/** `GET /user/workspaces/{ws}/permission`: `owner`, `create-project`, `collaborator` or `member`. */
export const workspacePermissionSchema = z.object({ permission: z.string() });

/** `GET /user/workspaces/{ws}/permissions/repositories` items. */
export const repoPermissionSchema = z.object({
  permission: z.enum(['admin', 'write', 'read']),
  repository: z.object({ full_name: z.string() }),
});

/** A repository. */
export const repoSchema = z.object({
  uuid: z.string(),
  full_name: z.string(),
  slug: z.string().optional(),
  name: z.string(),
  is_private: z.boolean(),
  workspace: z.object({ uuid: z.string() }).nullish(),
  mainbranch: z.object({ name: z.string() }).nullish(),
  links: z.object({
    html: z.object({ href: z.string() }),
    clone: z.array(z.object({ name: z.string(), href: z.string() })).optional(),
  }),
});
export type BitbucketRepo = z.infer<typeof repoSchema>;

/** `GET …/commit/{revision}`: `author.user` only when the email belongs to an account. */
export const commitSchema = z.object({
  hash: z.string(),
  message: z.string(),
  author: z.object({
    raw: z.string(),
    user: z.object({ nickname: z.string().nullish(), links: avatar }).nullish(),
  }),
  links: z.object({ html: z.object({ href: z.string() }) }),
});
export type BitbucketCommit = z.infer<typeof commitSchema>;

/** `GET …/refs/branches/{name}`. */
export const branchSchema = z.object({ name: z.string(), target: z.object({ hash: z.string() }) });

/** `GET …/hooks` items: the secret is never shown (`secret_set`). */
export const hookSchema = z.object({ uuid: z.string(), url: z.string() });

/** A paged answer: `values`, and `next` until the last page. */
export const pageSchema = z.object({ values: z.array(z.unknown()), next: z.string().optional() });
