import { afterEach, describe, expect, it } from 'vitest';
import type { QueuedStage, QueueStore } from '../../core/queue.js';
import type { Stage } from '../../core/stage.js';
import { linuxDockerFilter } from '../../runner/testing/filter.js';
import { storedStage } from '../../store/cases/fixtures.case.js';
import { StageQueue, type QueuePage } from './stage-queue.js';

const stage = (id: number, fields: Partial<Stage> = {}): Stage =>
  storedStage(id, { name: `p${id}`, ...fields });

const FILTER = linuxDockerFilter();

/** A queue in memory that pages like SqlQueueStore (or not, with `paging: false`) and counts reads. */
class MemoryQueue implements Pick<
  QueueStore,
  'listQueued' | 'beat' | 'listStale' | 'pausedSince' | 'setPaused'
> {
  stages: Stage[] = [];
  reads: (QueuePage | undefined)[] = [];
  failure: Error | undefined;
  /** The repositories' throttle (every repository has the same here). */
  throttle = 0;
  /** The pause switch, as the database holds it (shared by every StageQueue over this store). */
  paused = 0;
  readonly #paging: boolean;

  constructor(paging = true) {
    this.#paging = paging;
  }

  add(...stages: Stage[]): void {
    this.stages.push(...stages);
  }

  listQueued(page?: QueuePage): Promise<QueuedStage[]> {
    this.reads.push(page);
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const queued = this.stages
      .filter((s) => s.status === 'pending' && s.machine === '')
      .filter((s) => !this.#paging || page === undefined || s.id > page.after)
      .sort((a, b) => a.id - b.id)
      .slice(0, this.#paging && page !== undefined ? page.limit : undefined)
      .map((s) => {
        const builds = new Set(
          this.stages
            .filter(
              (t) => t.repoId === s.repoId && t.machine !== '' && ['pending', 'running'].includes(t.status),
            )
            .map((t) => t.buildId),
        );
        return {
          stage: s,
          repo: { slug: 'octocat/hello', trusted: false, throttle: this.throttle },
          build: { event: 'push' as const },
          active: 0,
          running: { builds: builds.size, thisBuild: builds.has(s.buildId) },
        };
      });
    return Promise.resolve(queued);
  }

  pausedSince(): Promise<number> {
    return Promise.resolve(this.paused);
  }

  setPaused(at: number): Promise<void> {
    this.paused = at;
    return Promise.resolve();
  }

  beat(): Promise<boolean> {
    return Promise.resolve(false);
  }

  listStale(): Promise<Stage[]> {
    return Promise.resolve([]);
  }
}

const aborts: AbortController[] = [];
afterEach(() => {
  for (const abort of aborts.splice(0)) abort.abort();
});

function signal(): AbortSignal {
  const abort = new AbortController();
  aborts.push(abort);
  return abort.signal;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('StageQueue', () => {
  it('serves every waiting request with one read of the queue when stages are queued', async () => {
    const store = new MemoryQueue();
    const queue = new StageQueue({ store: { queue: store }, recheck: 60_000 });
    const requests = Array.from({ length: 50 }, () => queue.request(FILTER, signal()));
    await tick();
    expect(queue.waiting).toBe(50);
    const readsWhileEmpty = store.reads.length;
    store.add(...Array.from({ length: 50 }, (_, i) => stage(i + 1)));
    queue.wake();
    const got = await Promise.all(requests);
    expect(new Set(got.map((s) => s?.id)).size).toBe(50);
    expect(store.reads.length - readsWhileEmpty).toBe(1);
    // The longest-waiting request gets the oldest stage.
    expect(got[0]?.id).toBe(1);
  });

  it('wakes one request for one stage; the others keep waiting without reading the queue again', async () => {
    const store = new MemoryQueue();
    const queue = new StageQueue({ store: { queue: store }, recheck: 60_000 });
    const requests = Array.from({ length: 20 }, () => queue.request(FILTER, signal()));
    await tick();
    const before = store.reads.length;
    store.add(stage(1));
    queue.wake();
    expect((await requests[0])?.id).toBe(1);
    await tick();
    expect(queue.waiting).toBe(19);
    expect(store.reads.length - before).toBe(1);
  });

  it('reads the queue a page at a time, oldest first and growing, until every request has a stage that suits it', async () => {
    const store = new MemoryQueue();
    store.add(...Array.from({ length: 60 }, (_, i) => stage(i + 1, { arch: 'arm64' })), stage(61));
    const queue = new StageQueue({ store: { queue: store }, page: 40, longPoll: 300 });
    expect((await queue.request(FILTER, signal()))?.id).toBe(61);
    // One request waiting: a first page of 1 + 8, then twice as many each time, at most 40.
    expect(store.reads).toEqual([
      { after: 0, limit: 9 },
      { after: 9, limit: 18 },
      { after: 27, limit: 36 },
    ]);
    // Nothing left for amd64: the request ends empty at its time limit.
    expect(await queue.request(FILTER, signal())).toBeUndefined();
  });

  it('does not offer a stage taken while a read of the queue was under way', async () => {
    let release: () => void = () => undefined;
    const store = new MemoryQueue();
    store.add(stage(1), stage(2));
    const slow: Pick<QueueStore, 'listQueued' | 'beat' | 'listStale' | 'pausedSince' | 'setPaused'> = {
      ...store,
      listQueued: async (page?: QueuePage) => {
        const rows = await store.listQueued(page);
        await new Promise<void>((resolve) => (release = resolve));
        return rows;
      },
      beat: () => store.beat(),
      listStale: () => store.listStale(),
      pausedSince: () => store.pausedSince(),
      setPaused: (at) => store.setPaused(at),
    };
    const queue = new StageQueue({ store: { queue: slow }, longPoll: 300 });
    const request = queue.request(FILTER, signal());
    await tick();
    // Stage 1 was offered earlier (another request, now gone) and its runner accepted it meanwhile.
    queue.taken(1);
    release();
    expect((await request)?.id).toBe(2);
  });

  it('works with a store that answers the whole queue whatever the page', async () => {
    const store = new MemoryQueue(false);
    store.add(...Array.from({ length: 5 }, (_, i) => stage(i + 1)));
    const queue = new StageQueue({ store: { queue: store }, page: 2 });
    const got = await Promise.all(Array.from({ length: 5 }, () => queue.request(FILTER, signal())));
    expect(got.map((s) => s?.id).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('offers a stage to one request at a time until it expires or is taken', async () => {
    let now = 1_000;
    const store = new MemoryQueue();
    store.add(stage(1));
    const queue = new StageQueue({ store: { queue: store }, longPoll: 100, offerTtl: 5_000, now: () => now });
    expect((await queue.request(FILTER, signal()))?.id).toBe(1);
    expect(await queue.request(FILTER, signal())).toBeUndefined();
    now += 5_000;
    expect((await queue.request(FILTER, signal()))?.id).toBe(1);
    queue.taken(1);
    store.stages = [];
    expect(await queue.request(FILTER, signal())).toBeUndefined();
  });

  it('offers a released stage (its answer never reached the runner) to the next request at once', async () => {
    const store = new MemoryQueue();
    store.add(stage(1));
    const queue = new StageQueue({
      store: { queue: store },
      longPoll: 300,
      offerTtl: 60_000,
      recheck: 60_000,
    });
    expect((await queue.request(FILTER, signal()))?.id).toBe(1);
    const next = queue.request(FILTER, signal());
    await tick();
    queue.release(1);
    expect((await next)?.id).toBe(1);
  });

  it('finds stages queued without a wake-up at the next re-check', async () => {
    const store = new MemoryQueue();
    const queue = new StageQueue({ store: { queue: store }, recheck: 50, longPoll: 2_000 });
    const request = queue.request(FILTER, signal());
    await tick();
    store.add(stage(7));
    expect((await request)?.id).toBe(7);
  });

  it('ends a request whose signal aborts, and fails the waiting requests when the queue cannot be read', async () => {
    const store = new MemoryQueue();
    const queue = new StageQueue({ store: { queue: store }, recheck: 60_000 });
    const abort = new AbortController();
    const aborted = queue.request(FILTER, abort.signal);
    const failing = queue.request(FILTER, signal());
    await tick();
    abort.abort();
    expect(await aborted).toBeUndefined();
    expect(queue.waiting).toBe(1);
    store.failure = new Error('database gone');
    queue.wake();
    await expect(failing).rejects.toThrow('database gone');
    expect(queue.waiting).toBe(0);
  });

  it('does not read the queue on wake-ups while no request waits', async () => {
    const store = new MemoryQueue();
    const queue = new StageQueue({ store: { queue: store } });
    queue.wake();
    queue.wake();
    await tick();
    expect(store.reads).toEqual([]);
  });

  it('hands out nothing while paused, and serves the waiting requests at once on resume', async () => {
    const store = new MemoryQueue();
    store.add(stage(1));
    const queue = new StageQueue({ store: { queue: store }, recheck: 60_000, longPoll: 5_000 });
    await queue.pause();
    expect(store.paused).toBeGreaterThan(0);
    const request = queue.request(FILTER, signal());
    await tick();
    queue.wake();
    await tick();
    expect(queue.waiting).toBe(1);
    await queue.resume();
    expect(store.paused).toBe(0);
    expect((await request)?.id).toBe(1);
  });

  it('keeps the pause of the first call, and learns a pause or resume of another server at the next re-check', async () => {
    let now = 1_000;
    const store = new MemoryQueue();
    const other = new StageQueue({ store: { queue: store }, now: () => now });
    await other.pause();
    now += 500;
    await other.pause();
    expect(store.paused).toBe(1_000);

    const queue = new StageQueue({ store: { queue: store }, recheck: 30, longPoll: 2_000 });
    store.add(stage(1));
    const request = queue.request(FILTER, signal());
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(queue.waiting).toBe(1);
    await other.resume();
    expect((await request)?.id).toBe(1);
  });

  it('holds stages that would start a build beyond the repository throttle; stages of running builds go on', async () => {
    const store = new MemoryQueue();
    store.throttle = 1;
    // Build 1 runs (one stage taken); build 2 is queued.
    store.add(
      stage(1, { buildId: 1, status: 'running', machine: 'runner-a' }),
      stage(2, { buildId: 2 }),
      stage(3, { buildId: 1 }),
    );
    const queue = new StageQueue({ store: { queue: store }, longPoll: 100, recheck: 60_000 });
    expect((await queue.request(FILTER, signal()))?.id).toBe(3);
    expect(await queue.request(FILTER, signal())).toBeUndefined();
    // Build 1 ends: build 2 may start, once.
    store.stages = [stage(2, { buildId: 2 }), stage(4, { buildId: 3 })];
    expect((await queue.request(FILTER, signal()))?.id).toBe(2);
    expect(await queue.request(FILTER, signal())).toBeUndefined();
  });
});
