/** One line of a step's output. */
export interface LogLine {
  /** 0-based line number within the step. */
  pos: number;
  out: string;
  /** Seconds since the step started. */
  time: number;
}

/**
 * Persistence of finished step logs (database, or an object store when configured).
 * - `find` returns undefined when the step has no stored log.
 * - `findJson` returns the stored log as it is kept — UTF-8 JSON, byte for byte
 *   `JSON.stringify(lines.map(({ pos, out, time }) => ({ pos, out, time })))` of what `find` gives —
 *   or undefined as `find` does: a log of millions of lines can be sent without becoming objects.
 * - `create` stores the whole log of a step; a second `create` for the same step replaces it.
 * - `createJson` stores the log made of `arrays` — JSON arrays of lines as LogBatchStore.json
 *   gives them — joined in order, then `rest`: what `create` with all their lines stores, without
 *   reading a log of millions of lines into objects.
 * - `createFromBatches` stores the log made of the step's log batches 0 … `count` − 1
 *   (LogBatchStore) as they are stored, then `rest`: what `createJson` with their JSON stores. It
 *   returns false, storing nothing, when any of those batches is missing. A store that keeps logs
 *   beside the batches keeps the batches as the log's first parts instead of copying them: each line
 *   is written once, and LogBatchStore no longer counts them as a running step's. A retry with the
 *   same batches stores the same log again.
 */
export interface LogStore {
  find(stepId: number): Promise<LogLine[] | undefined>;
  findJson(stepId: number): Promise<Buffer | undefined>;
  create(stepId: number, lines: readonly LogLine[]): Promise<void>;
  createJson(stepId: number, arrays: readonly Buffer[], rest: readonly LogLine[]): Promise<void>;
  createFromBatches(stepId: number, count: number, rest: readonly LogLine[]): Promise<boolean>;
  delete(stepId: number): Promise<void>;
  /**
   * The steps were deleted with their builds (purge): drop what of their logs is kept outside the
   * database, which deleted its own copies with the steps.
   */
  purged(stepIds: readonly number[]): Promise<void>;
}

/**
 * What every line of a debug build's tmate session starts with in a step's log. The session's
 * connection strings let whoever has them into the build's container, so readers without write
 * access to the repository get these lines masked (anyone may read a public repository's logs).
 */
export const DEBUG_SHELL_MARK = '[svc:debug-shell] ';
