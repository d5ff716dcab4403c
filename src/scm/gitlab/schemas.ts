import { z } from 'zod';

/* The parts of GitLab's REST API v4 answers svc reads (docs.gitlab.com/api). Unknown fields are dropped. */

/** `GET /user`: with the `api` scope, `email` is the user's primary email. */
export const userSchema = z.object({
  id: z.number(),
  username: z.string(),
  email: z.string().nullish(),
  public_email: z.string().nullish(),
  avatar_url: z.string().nullish(),
});

/** `GET /groups` items: a group is named by its `full_path` (`parent/child`), never by `name`. */
export const groupSchema = z.object({ id: z.number(), full_path: z.string() });

/** `GET /groups/:id/members/all/:user_id`, `GET /projects/:id/members/all/:user_id`. */
export const memberSchema = z.object({ access_level: z.number() });

const access = z.object({ access_level: z.number() }).nullish();

/** A project, with the asking user's access (both levels are null when it comes from a parent group). */
export const projectSchema = z.object({
  id: z.number(),
  path: z.string(),
  path_with_namespace: z.string(),
  namespace: z.object({ id: z.number() }).nullish(),
  visibility: z.enum(['private', 'internal', 'public']),
  http_url_to_repo: z.string(),
  ssh_url_to_repo: z.string(),
  web_url: z.string(),
  default_branch: z.string().nullish(),
  permissions: z.object({ project_access: access, group_access: access }).nullish(),
});
export type GitLabProject = z.infer<typeof projectSchema>;

/** `GET /projects/:id/repository/branches/:branch`. */
export const branchSchema = z.object({ name: z.string(), commit: z.object({ id: z.string() }) });

/** `GET /projects/:id/repository/commits/:sha`: names and emails only, no account. */
export const commitSchema = z.object({
  id: z.string(),
  message: z.string(),
  author_name: z.string(),
  author_email: z.string(),
  web_url: z.string(),
});

/** `GET /avatar?email=`. */
export const avatarSchema = z.object({ avatar_url: z.string().nullish() });

/** `GET /projects/:id/hooks` items: the secret token is never shown. */
export const hookSchema = z.object({ id: z.number(), url: z.string() });
