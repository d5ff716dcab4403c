import type { ScmRepoRef } from '../../core/scm.js';
import { deleteHooksAt } from '../hooks.js';
import type { BitbucketClient } from './client.js';
import { hookSchema } from './schemas.js';

/** The events svc's hook subscribes to. */
export const HOOK_EVENTS = ['repo:push', 'pullrequest:created', 'pullrequest:updated'];

/** `/repositories/{workspace}/{repo_slug}`. */
export function repoPath(repo: ScmRepoRef): string {
  return `/repositories/${encodeURIComponent(repo.namespace)}/${encodeURIComponent(repo.name)}`;
}

/**
 * Creates svc's webhook, signed with the repository's secret (Bitbucket then sends
 * `X-Hub-Signature`). A hook already pointing at the same URL is deleted first: Bitbucket never shows
 * a hook's secret, and a repository enabled again gets a new one.
 */
export async function createHook(
  client: BitbucketClient,
  token: string,
  repo: ScmRepoRef,
  hook: { url: string; secret: string },
): Promise<void> {
  await deleteHook(client, token, repo, hook.url);
  await client.send(token, 'POST', `${repoPath(repo)}/hooks`, {
    description: 'svc',
    url: hook.url,
    active: true,
    secret: hook.secret,
    events: HOOK_EVENTS,
  });
}

/** Deletes every hook of the repository pointing at `url` (hooks are named by their `{uuid}`). */
export function deleteHook(
  client: BitbucketClient,
  token: string,
  repo: ScmRepoRef,
  url: string,
): Promise<void> {
  const path = `${repoPath(repo)}/hooks`;
  return deleteHooksAt(
    url,
    async () =>
      (await client.list(token, path, hookSchema)).map((hook) => ({ id: hook.uuid, url: hook.url })),
    (id) => client.send(token, 'DELETE', `${path}/${encodeURIComponent(String(id))}`),
  );
}
