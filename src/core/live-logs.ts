import type { LogLine } from './log.js';

/**
 * Fan-out of the log lines of running steps to whoever watches (the SSE endpoint, the web UI).
 * In-memory: it only speeds things up; durable copies live in the store.
 * - `publish` delivers lines to the current subscribers of the step, in order; `batch`, when the
 *   lines are a stored log batch, is its number (servers sharing the database tell each other).
 * - `subscribe` returns an unsubscribe function; `onEnd` is called once when the step's log ends
 *   (`end`), after its last lines, with the position of the stored log's last line when the caller
 *   of `end` knows it (-1: no line): a watcher that has every position up to it need not read the
 *   stored log, which may hold millions of lines.
 */
export interface LiveLogs {
  publish(stepId: number, lines: readonly LogLine[], batch?: number): void;
  end(stepId: number, lastPos?: number): void;
  subscribe(
    stepId: number,
    onLines: (lines: readonly LogLine[]) => void,
    onEnd: (lastPos?: number) => void,
  ): () => void;
}
