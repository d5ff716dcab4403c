import { z } from 'zod';

/*
 * Bitbucket Server's webhook payloads ("Event payload" in Atlassian's documentation), as far as svc
 * reads them. Older servers leave out `links` and `toCommit`: those are optional.
 */

const linkList = z.array(z.object({ href: z.string() })).optional();

const actorSchema = z.object({
  name: z.string(),
  slug: z.string().optional(),
  displayName: z.string().optional(),
  emailAddress: z.string().optional(),
});

const repositorySchema = z.object({
  id: z.number(),
  slug: z.string(),
  project: z.object({ key: z.string() }),
  links: z.object({ self: linkList }).optional(),
});
export type HookRepository = z.infer<typeof repositorySchema>;

/** Just enough of any payload to find the repository whose secret verifies it. */
export const identitySchema = z.union([
  z.object({ repository: repositorySchema }),
  z.object({ pullRequest: z.object({ toRef: z.object({ repository: repositorySchema }) }) }),
]);

const changeSchema = z.object({
  ref: z.object({ id: z.string(), displayId: z.string(), type: z.string() }),
  fromHash: z.string(),
  toHash: z.string(),
  type: z.enum(['ADD', 'UPDATE', 'DELETE']),
});

/** `repo:refs_changed`: branches and tags created, moved or deleted by one push. */
export const refsChangedSchema = z.object({
  actor: actorSchema,
  repository: repositorySchema,
  changes: z.array(changeSchema),
});
export type RefsChangedPayload = z.infer<typeof refsChangedSchema>;

const refSchema = z.object({
  id: z.string(),
  displayId: z.string(),
  latestCommit: z.string(),
  repository: repositorySchema,
});

/** `pr:opened`, `pr:from_ref_updated`, `pr:modified`. */
export const pullRequestSchema = z.object({
  actor: actorSchema,
  pullRequest: z.object({
    id: z.number(),
    title: z.string(),
    state: z.string(),
    fromRef: refSchema,
    toRef: refSchema,
    author: z.object({ user: actorSchema }).optional(),
    links: z.object({ self: linkList }).optional(),
  }),
  /** `pr:modified`: the target before the edit, when it changed. */
  previousTarget: z.object({ id: z.string(), latestCommit: z.string().optional() }).nullish(),
});
export type PullRequestPayload = z.infer<typeof pullRequestSchema>;
