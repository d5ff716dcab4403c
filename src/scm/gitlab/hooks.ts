import type { ScmRepoRef } from '../../core/scm.js';
import { deleteHooksAt } from '../hooks.js';
import type { GitLabClient } from './client.js';
import { projectPath } from './paths.js';
import { hookSchema } from './schemas.js';

/**
 * Creates svc's project hook (Maintainers only) for pushes, tag pushes and merge requests, with the
 * secret as its token. A hook already pointing at the same URL is deleted first: GitLab never shows
 * a hook's token, and a repository enabled again gets a new secret.
 */
export async function createHook(
  client: GitLabClient,
  token: string,
  repo: ScmRepoRef,
  hook: { url: string; secret: string },
): Promise<void> {
  await deleteHook(client, token, repo, hook.url);
  await client.send(token, 'POST', `${projectPath(repo)}/hooks`, {
    url: hook.url,
    token: hook.secret,
    push_events: true,
    tag_push_events: true,
    merge_requests_events: true,
    issues_events: false,
    note_events: false,
    enable_ssl_verification: true,
  });
}

/** Deletes every hook of the project pointing at `url`. */
export function deleteHook(
  client: GitLabClient,
  token: string,
  repo: ScmRepoRef,
  url: string,
): Promise<void> {
  const path = `${projectPath(repo)}/hooks`;
  return deleteHooksAt(
    url,
    async () => await client.list(token, path, hookSchema),
    (id) => client.send(token, 'DELETE', `${path}/${id}`),
  );
}
