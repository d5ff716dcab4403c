import type { Logger } from 'pino';
import type { RpcClient } from '../client/client.js';
import { isConflict } from '../client/errors.js';
import { Backoff, sleep, type BackoffOptions } from './backoff.js';

/** What keeps a running stage connected to the server. */
export interface KeepAliveOptions {
  client: Pick<RpcClient, 'heartbeat' | 'watch'>;
  stageId: number;
  buildId: number;
  /** Milliseconds between heartbeats (svc: 10 s; the server gives up after 90 s of silence). */
  interval: number;
  backoff: BackoffOptions;
  logger: Logger;
  /** The stage must stop: the build was cancelled, or the server no longer has the stage running. */
  onStop(reason: string): void;
}

/**
 * While a stage runs: a heartbeat every `interval`, and a long-poll watching the build for its
 * cancellation. Losing the server stops neither: heartbeats go on failing quietly, the watch
 * reconnects with a growing pause. A heartbeat answered 409 (the watchdog failed the stage while
 * the server could not hear this runner) or a watch that reports the build done calls `onStop`.
 * Returns the function that ends both loops.
 */
export function keepAlive(options: KeepAliveOptions): () => Promise<void> {
  const done = new AbortController();
  const heartbeats = (async () => {
    while (!done.signal.aborted) {
      await sleep(options.interval, done.signal);
      if (done.signal.aborted) return;
      try {
        await options.client.heartbeat(options.stageId, done.signal);
      } catch (error) {
        if (isConflict(error)) {
          options.onStop('the server no longer has this stage running (it stopped hearing from this runner)');
          return;
        }
        options.logger.debug({ err: error }, 'heartbeat not delivered');
      }
    }
  })();
  const watch = (async () => {
    const backoff = new Backoff(options.backoff);
    while (!done.signal.aborted) {
      try {
        const ended = await options.client.watch(options.buildId, options.stageId, done.signal);
        backoff.reset();
        if (ended?.done) {
          options.onStop(`the build is ${ended.status}`);
          return;
        }
      } catch (error) {
        if (done.signal.aborted) return;
        options.logger.debug({ err: error }, 'watching the build failed; reconnecting');
        await sleep(backoff.next(), done.signal);
      }
    }
  })();
  return async () => {
    done.abort();
    await Promise.all([heartbeats, watch]);
  };
}
