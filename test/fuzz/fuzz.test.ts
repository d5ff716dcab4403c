import fc from 'fast-check';
import { describe, it } from 'vitest';
import { TARGETS } from './targets/index.js';

/**
 * Every fuzzing target with a fixed seed, so that `npm test` is repeatable; `npm run fuzz` runs
 * them with far more inputs and fresh seeds (test/fuzz/run.ts, figures in docs/reliability.md).
 */
const SEED = 20261125;
const RUNS = 300;

describe('fuzzing with fixed seeds', () => {
  for (const target of TARGETS) {
    it(`${target.name}: ${target.promise}`, async () => {
      try {
        await fc.assert(await target.property(), {
          seed: SEED,
          numRuns: RUNS,
          interruptAfterTimeLimit: 20_000,
        });
      } finally {
        await target.close?.();
      }
    }, 60_000);
  }
});
