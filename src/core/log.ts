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
 */
export interface LogStore {
  find(stepId: number): Promise<LogLine[] | undefined>;
  findJson(stepId: number): Promise<Buffer | undefined>;
  create(stepId: number, lines: readonly LogLine[]): Promise<void>;
  createJson(stepId: number, arrays: readonly Buffer[], rest: readonly LogLine[]): Promise<void>;
  delete(stepId: number): Promise<void>;
  /**
   * The steps were deleted with their builds (purge): drop what of their logs is kept outside the
   * database, which deleted its own copies with the steps.
   */
  purged(stepIds: readonly number[]): Promise<void>;
}
