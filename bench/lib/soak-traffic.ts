/*
 * One round of the soak's traffic: builds pushed in a steady flow while viewers use the API the way
 * people and tools do — lists, builds and logs read, event streams opened and dropped, live logs
 * followed (some to their end, some left early), builds cancelled and restarted.
 */
import { call } from '../../test/api/client.js';
import { followSse, type SseViewer } from './sse.js';
import type { SvcSystem } from './svc-system.js';
import { buildsUnderWay } from './soak-gauges.js';

/** How a round is made. */
export interface RoundPlan {
  readonly builds: number;
  /** The pipeline file each build runs. */
  readonly pipeline: string;
  /** Every this-many-th pushed build is cancelled at once (pending or running by then). */
  readonly cancelEvery: number;
  /** Every this-many-th pushed build is restarted once it is done. */
  readonly restartEvery: number;
  /** Give up waiting for the round's builds after this long (ms). */
  readonly deadlineMs: number;
}

/** What a round did, and how its builds ended. */
export interface RoundTally {
  pushed: number;
  cancelled: number;
  restarted: number;
  apiReads: number;
  eventStreams: number;
  logsFollowed: number;
  /** Builds of the round by final status (pushed and restarted ones). */
  statuses: Record<string, number>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface ListedBuild {
  number: number;
  status: string;
}

async function listBuilds(system: SvcSystem, page: number, perPage: number): Promise<ListedBuild[]> {
  const answer = await call(
    { url: system.url },
    `/api/repos/${system.repo}/builds?page=${page}&per_page=${perPage}`,
    { token: system.token },
  );
  if (answer.status !== 200) throw new Error(`listing builds answered ${answer.status}`);
  return answer.json as ListedBuild[];
}

/** The builds numbered above `after`, newest first. */
async function buildsAfter(system: SvcSystem, after: number): Promise<ListedBuild[]> {
  const found: ListedBuild[] = [];
  for (let page = 1; ; page++) {
    const listed = await listBuilds(system, page, 100);
    found.push(...listed.filter((build) => build.number > after));
    if (listed.length < 100 || listed.some((build) => build.number <= after)) return found;
  }
}

/** Runs one round and waits until every build it made is done. */
export async function soakRound(system: SvcSystem, adminToken: string, plan: RoundPlan): Promise<RoundTally> {
  const tally: RoundTally = {
    pushed: 0,
    cancelled: 0,
    restarted: 0,
    apiReads: 0,
    eventStreams: 0,
    logsFollowed: 0,
    statuses: {},
  };
  const before = (await listBuilds(system, 1, 1))[0]?.number ?? 0;
  const api = (path: string, method = 'GET') =>
    call({ url: system.url }, path, { method, token: system.token });
  const builds = `/api/repos/${system.repo}/builds`;
  let pushing = true;

  const push = async (): Promise<void> => {
    for (let sent = 0; sent < plan.builds; sent++) {
      // A commit of its own for each build: the server takes a delivery with a body it has seen
      // before as a replay and makes no build of it.
      system.github.commit(system.repo, 'main', { '.drone.yml': plan.pipeline }, `soak ${before + sent + 1}`);
      const status = await system.github.push(system.repo, 'main', system.hookUrl);
      if (status !== 200) throw new Error(`a push webhook answered ${status}`);
      tally.pushed++;
      const [newest] = await listBuilds(system, 1, 1);
      if (newest !== undefined && (newest.number - before) % plan.cancelEvery === 0) {
        // Pending or running by now: cancelled on its way.
        if ((await api(`${builds}/${newest.number}`, 'DELETE')).status === 200) tally.cancelled++;
      }
    }
    pushing = false;
  };

  const restarted = new Set<number>();
  const restart = async (): Promise<void> => {
    const done = (await buildsAfter(system, before)).filter(
      (b) =>
        b.status === 'success' && (b.number - before) % plan.restartEvery === 0 && !restarted.has(b.number),
    );
    for (const build of done) {
      restarted.add(build.number);
      if ((await api(`${builds}/${build.number}`, 'POST')).status === 200) tally.restarted++;
    }
  };

  /** Reads, streams and follows while the round's builds run. */
  const browse = async (until: () => boolean): Promise<void> => {
    const open: SseViewer[] = [];
    for (let turn = 0; !until(); turn++) {
      const [newest] = await listBuilds(system, 1, 25);
      tally.apiReads++;
      if (newest !== undefined) {
        await api(`${builds}/${newest.number}`);
        await api(`${builds}/${Math.max(1, newest.number - 10)}/logs/1/1`);
        tally.apiReads += 2;
        if (turn % 3 === 0) {
          // A viewer follows the newest build's log, to its end or until it is dropped below.
          const follower = followSse(
            `${system.url}/api/stream/${system.repo}/${newest.number}/1/1`,
            system.token,
            'soak line',
            () => undefined,
            Date.now,
          );
          open.push(follower);
          tally.logsFollowed++;
        }
      }
      const stream = followSse(`${system.url}/api/stream`, system.token, 'never', () => undefined, Date.now);
      open.push(stream);
      tally.eventStreams++;
      // Viewers leave after a while, most before their stream ends.
      while (open.length > 6) open.shift()?.close();
      await sleep(400);
    }
    for (const viewer of open) viewer.close();
  };

  let settled = false;
  let browseError: Error | undefined;
  // Held until the round ends; a failure there is the round's failure.
  const browsing = browse(() => settled).catch((error: unknown) => {
    browseError = error instanceof Error ? error : new Error(String(error));
    settled = true;
  });
  try {
    await push();
    const deadline = Date.now() + plan.deadlineMs;
    for (;;) {
      await restart();
      const underWay = await buildsUnderWay(system.url, adminToken);
      if (!pushing && underWay === 0) {
        // Restarts of the builds that just finished, then their own builds.
        const restartedBefore = tally.restarted;
        await restart();
        if (tally.restarted === restartedBefore) break;
      }
      if (Date.now() > deadline)
        throw new Error(`builds still under way ${plan.deadlineMs / 1000} s into the round`);
      await sleep(1_000);
    }
  } finally {
    settled = true;
    await browsing;
  }
  if (browseError !== undefined) throw browseError;
  const made = await buildsAfter(system, before);
  for (const build of made) tally.statuses[build.status] = (tally.statuses[build.status] ?? 0) + 1;
  // Only green builds and cancelled ones measure what the soak is about: a failing build is svc's
  // or the setup's problem, said at once rather than averaged into the figures.
  const bad = made.find((build) => build.status !== 'success' && build.status !== 'killed');
  if (bad !== undefined) {
    const answer = await api(`${builds}/${bad.number}`);
    const error = (answer.json as { error?: string } | undefined)?.error ?? '';
    throw new Error(`build ${bad.number} ended ${bad.status}: ${error} (${JSON.stringify(tally.statuses)})`);
  }
  return tally;
}
