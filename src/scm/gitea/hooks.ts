import type { ScmRepoRef } from '../../core/scm.js';
import { deleteHooksAt } from '../hooks.js';
import { repoPath } from '../paths.js';
import type { GiteaClient } from './client.js';
import { hookSchema } from './schemas.js';

/**
 * The events svc's hook subscribes to: `pull_request` brings the whole family (new commits arrive as
 * its `synchronized` action); `create` and `delete` say of new and deleted refs.
 */
export const HOOK_EVENTS = ['push', 'create', 'delete', 'pull_request'];

/**
 * Creates svc's webhook. A hook already pointing at the same URL is deleted first: Gitea up to 1.21
 * and Forgejo ignore a new secret in an edit, and a repository enabled again gets a new secret.
 * `active` defaults to false in Gitea: it is always sent.
 */
export async function createHook(
  client: GiteaClient,
  token: string,
  repo: ScmRepoRef,
  hook: { url: string; secret: string },
): Promise<void> {
  await deleteHook(client, token, repo, hook.url);
  await client.send(token, 'POST', `${repoPath(repo)}/hooks`, {
    type: 'gitea',
    config: { url: hook.url, content_type: 'json', secret: hook.secret },
    events: HOOK_EVENTS,
    branch_filter: '*',
    active: true,
  });
}

/** Deletes every webhook of the repository pointing at `url`. */
export function deleteHook(client: GiteaClient, token: string, repo: ScmRepoRef, url: string): Promise<void> {
  const path = `${repoPath(repo)}/hooks`;
  return deleteHooksAt(
    url,
    async () =>
      (await client.list(token, path, hookSchema)).map((hook) => ({ id: hook.id, url: hook.config.url })),
    (id) => client.send(token, 'DELETE', `${path}/${id}`),
  );
}
