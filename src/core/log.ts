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
 * - `create` stores the whole log of a step; a second `create` for the same step replaces it.
 */
export interface LogStore {
  find(stepId: number): Promise<LogLine[] | undefined>;
  create(stepId: number, lines: readonly LogLine[]): Promise<void>;
  delete(stepId: number): Promise<void>;
}
