/*
 * The scenarios every git provider's end-to-end test plays on the shared frame: a forged delivery
 * refused and a signed push built green with its statuses at the provider, a tag built, a change from
 * a fork held for approval. Each test passes its double's calls, in common terms.
 */
import { expect } from 'vitest';
import type { ApiBuild, ProviderE2E } from './provider-e2e.js';
import { waitFor } from './system.js';

/** A commit status as a double recorded it. */
export interface PostedStatus {
  state: string;
  context: string;
  url: string;
}

/** The context svc's statuses of push builds carry (SVC_STATUS_NAME's default, then the event). */
const CONTEXT = 'continuous-integration/svc/push';

/**
 * A delivery signed with another secret is refused with `refused` and builds nothing; then a new
 * commit (`message`), announced by a signed push, builds green as build 1, and, for a provider with
 * statuses, they arrive as `states` (the last one the success) with svc's context and a link to the
 * build. Returns the build.
 */
export async function forgedThenPushToGreen(
  e2e: ProviderE2E,
  forge: {
    sendPush(secret?: string): Promise<number>;
    statuses?: (sha: string) => PostedStatus[];
  },
  expected: { message: string; states?: string[]; refused?: number },
): Promise<ApiBuild> {
  expect(await forge.sendPush('not-the-secret')).toBe(expected.refused ?? 401);
  expect(await e2e.builds()).toEqual([]);
  const sha = e2e.push({ 'README.md': `${expected.message}\n` }, expected.message);
  expect(await forge.sendPush()).toBe(200);
  const build = await e2e.build(1);
  expect(build).toMatchObject({ status: 'success', event: 'push', after: sha });
  // Payloads carry the message as git stores it, with its final newline.
  expect(build.message.trim()).toBe(expected.message);
  const { statuses, states } = { statuses: forge.statuses, states: expected.states };
  if (statuses === undefined || states === undefined) return build;
  const success = states.at(-1);
  const posted = await waitFor('the success status', () => {
    const found = statuses(sha);
    return Promise.resolve(found.at(-1)?.state === success ? found : undefined);
  });
  expect(posted.map((s) => s.state)).toEqual(states);
  expect(posted.every((s) => s.context === CONTEXT)).toBe(true);
  expect(posted.at(-1)?.url).toBe(e2e.url(`/${e2e.repo}/1`));
  return build;
}

/** `tag` made at the git server and the double (`tagAt`), its webhook sent: build 2 succeeds at it. */
export async function tagToGreen(
  e2e: ProviderE2E,
  tag: string,
  forge: { tagAt(tag: string): string; sendTag(tag: string): Promise<number> },
): Promise<void> {
  e2e.git.tag(e2e.repo, e2e.branch, tag);
  const sha = forge.tagAt(tag);
  expect(await forge.sendTag(tag)).toBe(200);
  expect(await e2e.build(2)).toMatchObject({
    status: 'success',
    event: 'tag',
    ref: `refs/tags/${tag}`,
    after: sha,
  });
}

/** The fork's change whose webhook was answered `status` waits for approval as build 3, at `ref` and `after`. */
export async function heldForApproval(
  e2e: ProviderE2E,
  status: number,
  expected: { ref: string; after: string },
): Promise<void> {
  expect(status).toBe(200);
  expect(await e2e.build(3, () => true)).toMatchObject({
    status: 'blocked',
    event: 'pull_request',
    ...expected,
  });
}
