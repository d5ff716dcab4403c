import type { LogLine } from './log.js';

/**
 * Persistence of the log lines of running steps, in the numbered batches runners send them in.
 * A batch is acknowledged to the runner only once stored, so a server killed at any moment loses no
 * acknowledged line. The finished log replaces the batches (LogStore.create, then `delete`), or is
 * made of them (LogStore.createFromBatches): batches a finished log is made of belong to the log,
 * and `list` and `delete` leave them out.
 * - `append` stores a batch and returns true, or returns false and stores nothing when the step
 *   already has a batch of that number (a runner retrying a batch whose acknowledgement it missed).
 *   NotFoundError when the step does not exist. `json`, when given, is the lines' JSON as it came,
 *   which reads back as exactly `lines` (stored unchanged instead of written again).
 * - `list` returns the lines of the step's batches, in batch order, then line order.
 * - `after` returns the step's batches numbered above `batch`, in order, each with its lines (a
 *   viewer on one server following the lines a runner sends to another, docs/ha.md).
 * - `json` returns batches as stored — each a JSON array of `{pos, out, time}` — without reading
 *   them into lines: batches `from` … `count` − 1 in order, and apart those numbered `count` or
 *   more; undefined unless every one of batches 0 … `count` − 1 is stored (a finished log's too).
 * - `delete` removes the step's batches; none is not an error.
 */
export interface LogBatchStore {
  append(stepId: number, batch: number, lines: readonly LogLine[], json?: string): Promise<boolean>;
  list(stepId: number): Promise<LogLine[]>;
  after(stepId: number, batch: number): Promise<{ batch: number; lines: LogLine[] }[]>;
  json(
    stepId: number,
    count: number,
    from?: number,
  ): Promise<{ batches: Buffer[]; later: Buffer[] } | undefined>;
  delete(stepId: number): Promise<void>;
}
