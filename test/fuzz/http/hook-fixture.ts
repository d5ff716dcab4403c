/*
 * The webhook replay target's world: the API tests' harness (a real svc on SQLite or
 * SVC_FUZZ_DATABASE, the real GitHub adapter on the GitHub double) with one enabled repository,
 * and an eavesdropper that keeps the deliveries GitHub sends without passing them on, so that each
 * input decides what reaches svc: the genuine delivery, a copy of an earlier one, or a mangled one.
 */
import { createHash } from 'node:crypto';
import { enable, loginAs } from '../../api/client.js';
import { startHarness, type Harness } from '../../api/harness.js';
import { startEavesdropper, type Captured, type Eavesdropper } from '../../api/hooks/hook-server.js';
import { fuzzDialect } from './dialect.js';

const REPO = 'octocat/app';
const PIPELINE = 'kind: pipeline\ntype: docker\nname: default\nsteps:\n- name: test\n  image: alpine\n';

export interface HookFixture {
  readonly harness: Harness;
  /** svc's webhook endpoint. */
  readonly hookUrl: string;
  /** A genuine delivery of a new commit, signed by GitHub, captured and not sent to svc. */
  fresh(): Promise<Captured>;
  /** Every build svc has. */
  builds(): Promise<number>;
  /** What svc took so far: the ids and the body digests of the deliveries that made a build. */
  readonly taken: { ids: Set<string>; bodies: Set<string> };
  close(): Promise<void>;
}

export async function startHookFixture(): Promise<HookFixture> {
  const harness = await startHarness({ dialect: fuzzDialect() });
  const { github, store } = harness;
  github.addUser({ login: 'octocat' });
  github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
  await enable(harness, await loginAs(harness, 'octocat'), REPO);
  const repo = await store.repos.findSlug('octocat', 'app');
  if (repo === undefined) throw new Error('octocat/app is not enabled');
  const spy: Eavesdropper = await startEavesdropper(`${harness.url}/hook`);
  spy.hold = true;
  let commits = 0;
  return {
    harness,
    hookUrl: `${harness.url}/hook`,
    async fresh() {
      commits += 1;
      github.commit(REPO, 'main', { '.drone.yml': PIPELINE, 'n.txt': String(commits) }, `commit ${commits}`);
      // Long runs use up the double's hourly calls; the trigger must still read the pipeline file.
      github.exhaustRateLimit(new Date(0));
      await github.push(REPO, 'main', spy.url, { secret: repo.hookSecret });
      const captured = spy.captured.pop();
      if (captured === undefined) throw new Error('GitHub sent nothing');
      return captured;
    },
    builds: () => store.builds.count(),
    taken: { ids: new Set(), bodies: new Set() },
    async close() {
      await spy.close();
      await harness.close();
    },
  };
}

/** The digest a body is known by in `taken`. */
export function digest(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}
