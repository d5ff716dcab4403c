import type { ScmRepoRef } from '../../core/scm.js';
import type { GogsClient } from './client.js';
import { deleteHooksAt } from '../hooks.js';
import { repoPath } from '../paths.js';
import { hookSchema } from './schemas.js';

/**
 * The events svc's hook subscribes to. Gogs sends no `push` for a tag, only `create`; `delete`
 * arrives for deleted branches and tags (built as nothing, but known).
 */
export const HOOK_EVENTS = ['push', 'create', 'delete', 'pull_request'];

/**
 * Creates svc's webhook. A hook already pointing at the same URL is deleted first: Gogs cannot
 * change a hook's secret (PATCH ignores it), and a repository enabled again gets a new secret.
 * `active` defaults to false in Gogs: it is always sent.
 */
export async function createHook(
  client: GogsClient,
  token: string,
  repo: ScmRepoRef,
  hook: { url: string; secret: string },
): Promise<void> {
  await deleteHook(client, token, repo, hook.url);
  await client.send(token, 'POST', `${repoPath(repo)}/hooks`, {
    type: 'gogs',
    config: { url: hook.url, content_type: 'json', secret: hook.secret },
    events: HOOK_EVENTS,
    active: true,
  });
}

/** Deletes every webhook of the repository pointing at `url`. */
export function deleteHook(client: GogsClient, token: string, repo: ScmRepoRef, url: string): Promise<void> {
  const path = `${repoPath(repo)}/hooks`;
  return deleteHooksAt(
    url,
    async () =>
      (await client.list(token, path, hookSchema)).map((hook) => ({ id: hook.id, url: hook.config.url })),
    (id) => client.send(token, 'DELETE', `${path}/${id}`),
  );
}
