import { SvcError } from '../../core/errors.js';
import type { ScmRepoRef } from '../../core/scm.js';
import { deleteHooksAt } from '../hooks.js';
import type { BitbucketServerClient } from './client.js';
import { repoPath } from './convert.js';
import { API } from './options.js';
import { webhookSchema } from './schemas.js';

/**
 * The events svc's webhook subscribes to: pushes of branches and tags, pull requests opened, their
 * source branch pushed to (`pr:from_ref_updated`, Bitbucket 7.0 and later) and edited
 * (`pr:modified`: on older servers the only event a push to the source branch sends).
 */
export const HOOK_EVENTS = ['repo:refs_changed', 'pr:opened', 'pr:from_ref_updated', 'pr:modified'];

/** The event servers before 7.0 do not know, and refuse the whole webhook for. */
const NEWER_EVENT = 'pr:from_ref_updated';

/**
 * Creates svc's webhook with the repository's secret (Bitbucket then signs deliveries with
 * `X-Hub-Signature`). A webhook already pointing at the same URL is deleted first: a repository
 * enabled again gets a new secret. A server that does not know `pr:from_ref_updated` (before 7.0)
 * gets the webhook without it.
 */
export async function createHook(
  client: BitbucketServerClient,
  token: string,
  repo: ScmRepoRef,
  hook: { url: string; secret: string },
): Promise<void> {
  await deleteHook(client, token, repo, hook.url);
  const create = (events: string[]) =>
    client.send(token, 'POST', `${API}${repoPath(repo)}/webhooks`, {
      name: 'svc',
      url: hook.url,
      active: true,
      events,
      configuration: { secret: hook.secret },
    });
  try {
    await create(HOOK_EVENTS);
  } catch (error) {
    if (
      !(error instanceof SvcError) ||
      error.code !== 'INVALID_INPUT' ||
      !error.message.includes(NEWER_EVENT)
    )
      throw error;
    await create(HOOK_EVENTS.filter((event) => event !== NEWER_EVENT));
  }
}

/** Deletes every webhook of the repository pointing at `url`. */
export function deleteHook(
  client: BitbucketServerClient,
  token: string,
  repo: ScmRepoRef,
  url: string,
): Promise<void> {
  const path = `${API}${repoPath(repo)}/webhooks`;
  return deleteHooksAt(
    url,
    () => client.list(token, path, webhookSchema),
    (id) => client.send(token, 'DELETE', `${path}/${encodeURIComponent(String(id))}`),
  );
}
