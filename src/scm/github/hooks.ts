import type { ScmRepoRef } from '../../core/scm.js';
import type { GitHubClient } from './client.js';
import { deleteHooksAt } from '../hooks.js';
import { repoPath } from '../paths.js';
import { hookSchema } from './schemas.js';

/**
 * The events svc's hook subscribes to. Tags arrive as `push` events on `refs/tags/…`, with more
 * detail than `create` events, so `create` is not needed (drone/go-scm and Drone do the same).
 */
export const HOOK_EVENTS = ['push', 'pull_request'];

/** The hook's body (docs: rest/repos/webhooks#create-a-repository-webhook). */
function hookBody(hook: { url: string; secret: string }) {
  return {
    name: 'web',
    active: true,
    events: HOOK_EVENTS,
    config: { url: hook.url, content_type: 'json', secret: hook.secret, insecure_ssl: '0' },
  };
}

/**
 * Creates svc's webhook, or updates the one already pointing at the same URL (a repository enabled
 * again gets a new secret): `GET`, then `PATCH` or `POST /repos/{o}/{r}/hooks`.
 */
export async function createHook(
  client: GitHubClient,
  token: string,
  repo: ScmRepoRef,
  hook: { url: string; secret: string },
): Promise<void> {
  const path = `${repoPath(repo)}/hooks`;
  const existing = (await client.list(token, path, hookSchema)).find((h) => h.config.url === hook.url);
  if (existing === undefined) {
    await client.send(token, 'POST', path, hookBody(hook));
  } else {
    await client.send(token, 'PATCH', `${path}/${existing.id}`, hookBody(hook));
  }
}

/** Deletes every webhook of the repository pointing at `url`. */
export function deleteHook(
  client: GitHubClient,
  token: string,
  repo: ScmRepoRef,
  url: string,
): Promise<void> {
  const path = `${repoPath(repo)}/hooks`;
  return deleteHooksAt(
    url,
    async () =>
      (await client.list(token, path, hookSchema)).map((hook) => ({ id: hook.id, url: hook.config.url })),
    (id) => client.send(token, 'DELETE', `${path}/${id}`),
  );
}
