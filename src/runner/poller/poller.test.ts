import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { RpcError } from '../client/errors.js';
import { wireStage, type WireStage } from '../client/wire/index.js';
import type { RunSignals } from '../remote/stage-runner.js';
import { Poller } from './poller.js';
import { linuxDockerFilter } from '../testing/filter.js';

const FILTER = linuxDockerFilter();
const stage = (id: number): WireStage => wireStage.parse({ id, name: `s${id}`, status: 'pending' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server that hands out `count` stages, then long-polls (until aborted) like an empty queue. */
function queue(count: number, failFirst = 0) {
  let next = 1;
  let failures = failFirst;
  const requests: number[] = [];
  return {
    requests,
    request: (_filter: unknown, signal?: AbortSignal): Promise<WireStage | undefined> => {
      requests.push(Date.now());
      if (failures > 0) {
        failures--;
        return Promise.reject(new RpcError(0, 'connection refused'));
      }
      if (next <= count) return Promise.resolve(stage(next++));
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(undefined), 200);
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve(undefined);
        });
      });
    },
  };
}

describe('Poller', () => {
  // Issue 31: after a server was killed, the other server offered a stage the runner was running;
  // run twice, its steps' logs got two sets of batches and the stored log lost or repeated lines.
  it('does not run a stage it is running again when the server offers it again', async () => {
    const offers = [stage(7), stage(7), stage(8)];
    const client = {
      request: (_filter: unknown, signal?: AbortSignal): Promise<WireStage | undefined> => {
        const offer = offers.shift();
        if (offer !== undefined) return Promise.resolve(offer);
        return new Promise((resolve) => {
          const timer = setTimeout(() => resolve(undefined), 100);
          signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve(undefined);
          });
        });
      },
    };
    const runs: number[] = [];
    const poller = new Poller({
      client,
      filter: FILTER,
      capacity: 3,
      logger: pino({ level: 'silent' }),
      run: async (s) => {
        runs.push(s.id);
        await sleep(150);
      },
    });
    poller.start();
    await sleep(300);
    await poller.stop({ grace: 1_000, report: 1_000 });
    expect(runs.sort()).toEqual([7, 8]);
  });

  it('runs up to `capacity` stages at once', async () => {
    const client = queue(5);
    let running = 0;
    let most = 0;
    const ran: number[] = [];
    const poller = new Poller({
      client,
      filter: FILTER,
      capacity: 2,
      logger: pino({ level: 'silent' }),
      run: async (s) => {
        running++;
        most = Math.max(most, running);
        await sleep(50);
        ran.push(s.id);
        running--;
      },
    });
    poller.start();
    await sleep(400);
    await poller.stop({ grace: 1_000, report: 1_000 });
    expect(ran.sort()).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(2);
  });

  it('without a limit (capacity 0), keeps one request waiting and runs every stage it gets at once', async () => {
    const client = queue(6);
    let running = 0;
    let most = 0;
    const poller = new Poller({
      client,
      filter: FILTER,
      capacity: 0,
      logger: pino({ level: 'silent' }),
      run: async () => {
        running++;
        most = Math.max(most, running);
        await sleep(150);
        running--;
      },
    });
    poller.start();
    await sleep(100);
    expect(most).toBe(6);
    expect(poller.sizes()).toEqual({ loops: 7, running_stages: 6 });
    await sleep(300);
    // A runner without a limit runs for months: the loops that ended are not kept (they were, one
    // per stage, until issue 31's soak of the runners looked).
    expect(poller.sizes()).toEqual({ loops: 1, running_stages: 0 });
    await poller.stop({ grace: 1_000, report: 1_000 });
    expect(running).toBe(0);
    // Once the stages ended, the extra loops went: a single request waits (7 for the stages and the
    // first wait, then one loop asking again every 200 ms).
    expect(client.requests.length).toBeLessThan(12);
  });

  it('asks again after a growing pause when the server cannot be reached', async () => {
    const client = queue(1, 3);
    const ran: number[] = [];
    const poller = new Poller({
      client,
      filter: FILTER,
      capacity: 1,
      logger: pino({ level: 'silent' }),
      backoff: { min: 20, max: 80 },
      run: (s) => {
        ran.push(s.id);
        return Promise.resolve();
      },
    });
    poller.start();
    await sleep(300);
    await poller.stop({ grace: 100, report: 100 });
    expect(ran).toEqual([1]);
    const gaps = client.requests.slice(1, 4).map((at, i) => at - (client.requests[i] ?? at));
    expect(gaps[0]).toBeGreaterThanOrEqual(15);
    expect(gaps[2]).toBeGreaterThanOrEqual(gaps[0] ?? 0);
  });

  it('stops in order: running stages get the grace time, then are cancelled, then abandoned', async () => {
    const client = queue(1);
    const seen: string[] = [];
    const poller = new Poller({
      client,
      filter: FILTER,
      capacity: 1,
      logger: pino({ level: 'silent' }),
      run: (_s, signals: RunSignals) =>
        new Promise<void>((resolve) => {
          signals.cancel.addEventListener('abort', () => seen.push('cancel'));
          // A stage that cannot report its end: only abandoning ends it.
          signals.abandon.addEventListener('abort', () => {
            seen.push('abandon');
            resolve();
          });
        }),
    });
    poller.start();
    await sleep(50);
    expect(poller.running).toBe(1);
    const started = Date.now();
    await poller.stop({ grace: 100, report: 100 });
    expect(seen).toEqual(['cancel', 'abandon']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(poller.running).toBe(0);
  });

  it('stops at once when nothing runs, ending the long-poll under way', async () => {
    const client = queue(0);
    const poller = new Poller({
      client,
      filter: FILTER,
      capacity: 3,
      logger: pino({ level: 'silent' }),
      run: () => Promise.resolve(),
    });
    poller.start();
    await sleep(20);
    const started = Date.now();
    await poller.stop({ grace: 5_000, report: 5_000 });
    expect(Date.now() - started).toBeLessThan(100);
  });
});
