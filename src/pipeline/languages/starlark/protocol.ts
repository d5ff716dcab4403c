import type { JsonValue } from '../../types.js';

/**
 * Messages between the evaluator (main thread) and its worker (worker.ts). The worker imports this
 * file for types only: Node runs worker.ts from src/ by stripping its types, which does not resolve
 * the `.js` specifiers of runtime imports to `.ts` files.
 */

/** workerData: where the worker finds the vendored Go runtime and evaluator (file: URLs). */
export interface WorkerSetup {
  readonly runtimeUrl: string;
  readonly wasmUrl: string;
}

/** The request the Go side decodes (go/request.go, evaluationRequest). */
export interface GoRequest {
  readonly path: string;
  readonly source: string;
  readonly context: DroneContext;
  readonly maxSteps: number;
  readonly maxOutputBytes: number;
}

/** main's argument, member by member: each member becomes a struct, nested objects dicts. */
export interface DroneContext {
  readonly build: Readonly<Record<string, string | boolean | Readonly<Record<string, string>>>>;
  readonly repo: Readonly<Record<string, string | boolean>>;
  readonly input: Readonly<Record<string, JsonValue>>;
}

/** What the Go side answers (go/request.go, evaluationOutcome), as JSON text. */
export type GoOutcome =
  | { readonly documents: unknown[] }
  | {
      readonly error: {
        readonly file: string;
        readonly line?: number;
        readonly column?: number;
        readonly message: string;
      };
    };

export type ToWorker =
  | { readonly type: 'evaluate'; readonly request: string }
  | { readonly type: 'read-result'; readonly readId: number; readonly content: string | null };

export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'read'; readonly readId: number; readonly path: string }
  | { readonly type: 'done'; readonly outcome: string }
  /** The Go program ended (a fatal error such as running out of memory): the worker is unusable. */
  | { readonly type: 'exited'; readonly code: number; readonly output: string };
