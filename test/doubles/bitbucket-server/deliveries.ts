/**
 * Webhook deliveries as Bitbucket Server sends them ("Event payload"): a JSON POST with
 * `X-Event-Key`, `X-Request-Id` (a UUID), `Content-Type: application/json; charset=utf-8` and, when
 * the hook has a secret, `X-Hub-Signature: sha256=<hex HMAC-SHA256(secret, body)>`. Payloads:
 * `repo:refs_changed` (actor, repository with project and links, changes[]), `pr:opened` and
 * `pr:from_ref_updated` (with `previousFromHash`); `date` is `2018-07-05T18:22:00+0000`.
 *
 * Not modelled: retries, the 10-second timeout, basic-auth credentials, `toCommit`/`commits[]` of
 * newer push payloads, `diagnostics:ping`, `draft`, reviewers and participants (always empty).
 */
import { randomUUID } from 'node:crypto';
import type { Repo, User } from '../forge/state.js';
import type { Env, PullRequest } from './env.js';
import { payloadUser, renderRepo, repoPath } from './render.js';
import { hmacHex, postDelivery } from '../forge/deliver.js';

export const ZEROS = '0'.repeat(40);

/** POSTs one event; resolves to the receiver's HTTP status. */
export async function deliver(url: string, event: string, payload: unknown, secret: string): Promise<number> {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'x-event-key': event,
    'x-request-id': randomUUID(),
    ...(secret === '' ? {} : { 'x-hub-signature': `sha256=${hmacHex('sha256', secret, body)}` }),
  };
  return postDelivery(url, headers, body);
}

/** A payload `date`: ISO-8601 to the second, offset without a colon. */
export const payloadDate = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}+0000`;

/** Who acted: `login` if a user, else the personal owner or a repository admin or any user. */
export function actor(env: Env, repo: Repo, login?: string): User {
  const owner = repo.owner.startsWith('~') ? repo.owner.slice(1) : undefined;
  const candidates = [login, owner, ...repo.admins, ...repo.writers];
  for (const candidate of candidates) {
    const user = candidate === undefined ? undefined : env.state.user(candidate);
    if (user !== undefined) return user;
  }
  const any = [...env.state.users.values()][0];
  if (any === undefined)
    throw new Error(`Bitbucket Server double: nobody could act on ${repo.owner}/${repo.name}`);
  return any;
}

export interface RefChange {
  kind: 'BRANCH' | 'TAG';
  name: string;
  fromHash: string;
  toHash: string;
  type: 'ADD' | 'UPDATE' | 'DELETE';
}

export function refsChanged(env: Env, repo: Repo, change: RefChange, by: User) {
  const id = `refs/${change.kind === 'BRANCH' ? 'heads' : 'tags'}/${change.name}`;
  return {
    eventKey: 'repo:refs_changed',
    date: payloadDate(env.now()),
    actor: payloadUser(by),
    repository: renderRepo(env, repo, undefined),
    changes: [
      {
        ref: { id, displayId: change.name, type: change.kind },
        refId: id,
        fromHash: change.fromHash,
        toHash: change.toHash,
        type: change.type,
      },
    ],
  };
}

function side(env: Env, repo: Repo, branch: string, sha: string) {
  return {
    id: `refs/heads/${branch}`,
    displayId: branch,
    latestCommit: sha,
    type: 'BRANCH',
    repository: renderRepo(env, repo, undefined),
  };
}

/** `pr:opened`, or `pr:from_ref_updated` when `previousFromHash` is given. */
export function pullRequestEvent(env: Env, pull: PullRequest, previousFromHash?: string) {
  const author = actor(env, pull.from, pull.author);
  const target = pull.repo;
  return {
    eventKey: previousFromHash === undefined ? 'pr:opened' : 'pr:from_ref_updated',
    date: payloadDate(env.now()),
    actor: payloadUser(author),
    pullRequest: {
      id: pull.id,
      version: pull.version,
      title: pull.title,
      description: '',
      state: 'OPEN',
      open: true,
      closed: false,
      createdDate: pull.created,
      updatedDate: pull.updated,
      fromRef: side(env, pull.from, pull.head, pull.fromHash),
      toRef: side(env, target, target.defaultBranch, target.branches.get(target.defaultBranch) ?? ZEROS),
      locked: false,
      author: { user: payloadUser(author), role: 'AUTHOR', approved: false, status: 'UNAPPROVED' },
      reviewers: [],
      participants: [],
      links: { self: [{ href: `${env.url}${repoPath(env, target)}/pull-requests/${pull.id}` }] },
    },
    ...(previousFromHash === undefined ? {} : { previousFromHash }),
  };
}
