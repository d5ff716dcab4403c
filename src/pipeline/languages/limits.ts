import type { JsonnetLimits } from './jsonnet/evaluator.js';
import type { LanguageLimits } from './types.js';

/**
 * How far one evaluation of a pipeline program may go before the build fails with an error that
 * names the limit. Drone bounds Starlark by steps (50,000 by default) and Jsonnet by stack depth
 * (500); svc adds a time limit to both, since a server must never wait on a program.
 */
export const LANGUAGE_LIMITS: { jsonnet: JsonnetLimits; starlark: LanguageLimits } = {
  jsonnet: { timeoutMs: 10_000, maxStack: 500, imports: { files: 100, bytes: 5_000_000 } },
  starlark: { steps: 50_000, timeoutMs: 10_000 },
};
