import { z } from 'zod';

/*
 * The parts of Bitbucket Server's REST 1.0 answers svc reads (Atlassian's REST reference). Fields
 * that older servers leave out, or that need a permission to see, are optional.
 */

/** A paged list: `values`, and where the next page starts unless this is the last. */
export const pageSchema = z.object({
  values: z.array(z.unknown()),
  isLastPage: z.boolean(),
  nextPageStart: z
    .number()
    .int()
    .nonnegative()
    .nullish()
    .transform((value) => value ?? undefined),
});

const links = z.array(z.object({ href: z.string(), name: z.string().optional() })).optional();

/** A user (`GET /users/{slug}`; also the author of a commit when their email maps to an account). */
export const userSchema = z.object({
  name: z.string(),
  slug: z.string(),
  id: z.number().optional(),
  emailAddress: z.string().optional(),
  displayName: z.string().optional(),
});
export type BitbucketServerUser = z.infer<typeof userSchema>;

export const projectSchema = z.object({
  key: z.string(),
  id: z.number().optional(),
  name: z.string().optional(),
  type: z.string().optional(),
});

export const repoSchema = z.object({
  id: z.number(),
  slug: z.string(),
  name: z.string(),
  public: z.boolean().optional(),
  project: projectSchema,
  links: z.object({ clone: links, self: links }).optional(),
});
export type BitbucketServerRepo = z.infer<typeof repoSchema>;

export const branchSchema = z.object({
  id: z.string(),
  displayId: z.string(),
  latestCommit: z.string(),
});

/** A commit's author: a user's fields when the email maps to an account, else name and email only. */
const personSchema = z.object({
  name: z.string(),
  emailAddress: z.string().optional(),
  slug: z.string().optional(),
  displayName: z.string().optional(),
});

export const commitSchema = z.object({
  id: z.string(),
  message: z.string().optional(),
  author: personSchema,
});
export type BitbucketServerCommit = z.infer<typeof commitSchema>;

export const webhookSchema = z.object({
  id: z.number(),
  url: z.string(),
});
