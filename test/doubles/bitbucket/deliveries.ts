import { randomUUID } from 'node:crypto';
import type { Repo } from '../forge/state.js';
import type { Env } from './env.js';
import { renderAccount, renderCommit, renderRepo, uuidOf } from './render.js';
import { hmacHex, postDelivery } from '../forge/deliver.js';

/**
 * Sends one webhook delivery as Bitbucket Cloud does: `X-Event-Key`, `X-Hook-UUID`,
 * `X-Request-UUID`, `X-Attempt-Number`, and, for a hook with a secret, `X-Hub-Signature: sha256=<hex>`.
 */
export async function deliver(
  url: string,
  event: string,
  payload: unknown,
  secret: string,
  hookId: number,
): Promise<number> {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Bitbucket-Webhooks/2.0',
    'x-event-key': event,
    'x-hook-uuid': uuidOf(hookId).slice(1, -1),
    'x-request-uuid': randomUUID(),
    'x-attempt-number': '1',
    ...(secret === '' ? {} : { 'x-hub-signature': `sha256=${hmacHex('sha256', secret, body)}` }),
  };
  return postDelivery(url, headers, body);
}

function actor(env: Env, repo: Repo, login?: string) {
  const user = [login, repo.owner, ...repo.admins]
    .map((l) => (l === undefined ? undefined : env.state.user(l)))
    .find((u) => u !== undefined);
  if (user === undefined) throw new Error(`Bitbucket double: nobody could act on ${repo.owner}/${repo.name}`);
  return renderAccount(user, env.urls);
}

/** A `repo:push` of a branch's newest commit, or of a tag. */
export function pushPayload(env: Env, repo: Repo, kind: 'branch' | 'tag', name: string) {
  const sha = kind === 'branch' ? repo.branches.get(name) : repo.tags.get(name);
  const head = sha === undefined ? undefined : repo.commits.get(sha);
  if (head === undefined) throw new Error(`Bitbucket double: no ${kind} ${name}`);
  const target = renderCommit(env.state, repo, head, env.urls);
  const old =
    kind === 'branch' && head.branchBefore !== undefined ? repo.commits.get(head.branchBefore) : undefined;
  return {
    actor: actor(env, repo, head.author),
    repository: renderRepo(env.state, repo, env.urls, undefined),
    push: {
      changes: [
        {
          forced: false,
          created: old === undefined,
          closed: false,
          truncated: false,
          old:
            old === undefined
              ? null
              : { type: kind, name, target: renderCommit(env.state, repo, old, env.urls) },
          new: {
            type: kind,
            name,
            target,
            links: {
              html: {
                href: `${env.urls.web}/${repo.owner}/${repo.name}/commits/${kind === 'tag' ? `tag/${name}` : name}`,
              },
            },
          },
          commits: kind === 'branch' ? [target] : [],
        },
      ],
    },
  };
}

/** A `pullrequest:created`/`updated`: commits as 12-character hashes. */
export function pullRequestPayload(
  env: Env,
  repo: Repo,
  from: Repo,
  head: string,
  id: number,
  author: string,
) {
  const headSha = from.branches.get(head) ?? '';
  const baseSha = repo.branches.get(repo.defaultBranch) ?? '';
  const side = (r: Repo, branch: string, sha: string) => ({
    branch: { name: branch },
    commit: { hash: sha.slice(0, 12), type: 'commit' },
    repository: { type: 'repository', full_name: `${r.owner}/${r.name}`, name: r.name, uuid: uuidOf(r.id) },
  });
  const who = actor(env, from, author);
  return {
    actor: who,
    repository: renderRepo(env.state, repo, env.urls, undefined),
    pullrequest: {
      type: 'pullrequest',
      id,
      title: `Change ${head}`,
      description: '',
      state: 'OPEN',
      author: who,
      source: side(from, head, headSha),
      destination: side(repo, repo.defaultBranch, baseSha),
      merge_commit: null,
      links: { html: { href: `${env.urls.web}/${repo.owner}/${repo.name}/pull-requests/${id}` } },
    },
  };
}
