import { InvalidInputError } from '../../core/errors.js';
import type { JsonValue } from '../types.js';

/**
 * A pipeline file written in a configuration language (Jsonnet, Starlark) that evaluates to the
 * pipeline documents. Evaluation only sees what this request carries: the file, the build and
 * repository facts, and `read`, which returns other files of the repository at the same commit
 * (never the server's own files, never the network).
 */
export interface LanguageRequest {
  /** Path of the file in the repository, as messages name it (e.g. `.drone.jsonnet`). */
  readonly path: string;
  readonly source: string;
  /** Drone's build and repository facts of this build (see facts.ts). */
  readonly facts: LanguageFacts;
  /**
   * A template's inputs (the `data:` of the `kind: template` document that loads it): Jsonnet's
   * `input.<key>` external variables, Starlark's `ctx.input`. Absent for a pipeline file.
   */
  readonly input?: Readonly<Record<string, JsonValue>>;
  /** Another file of the repository at the build's commit, relative to its root; undefined if absent. */
  read(path: string): Promise<string | undefined>;
}

/** The facts a configuration program sees, named as Drone names them (`build.*`, `repo.*`). */
export interface LanguageFacts {
  readonly build: Readonly<Record<string, string | number | boolean>>;
  readonly repo: Readonly<Record<string, string | number | boolean>>;
  /** Build parameters (`svc build create -p k=v`, promote/rollback parameters). */
  readonly params: Readonly<Record<string, string>>;
}

/** Bounds every evaluation: a runaway program fails the build instead of holding the server. */
export interface LanguageLimits {
  /** Interpreter steps (Starlark) before evaluation stops. */
  readonly steps: number;
  readonly timeoutMs: number;
}

/**
 * A configuration program that cannot be evaluated: a syntax error, a runtime error, a limit hit.
 * Names the file, line and column when the interpreter knows them.
 */
export class ConfigLanguageError extends InvalidInputError {
  readonly file: string;
  readonly line: number | undefined;
  readonly column: number | undefined;
  readonly detail: string;

  constructor(file: string, detail: string, position?: { line: number; column: number }) {
    const where = position === undefined ? file : `${file}:${position.line}:${position.column}`;
    super(`${where}: ${detail}`);
    this.file = file;
    this.detail = detail;
    this.line = position?.line;
    this.column = position?.column;
  }
}
