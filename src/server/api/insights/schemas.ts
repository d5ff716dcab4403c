import { z } from 'zod';

const int = z.number().int().min(0);
const rate = z.number().min(0).max(1);
const date = z.string().describe('a UTC day, YYYY-MM-DD');
const test = z.object({ id: int, suite: z.string(), name: z.string(), failures: int, flaky: int }).strict();

export const insightsSchema = z
  .object({
    days: z.union([z.literal(7), z.literal(30), z.literal(90)]),
    from: date,
    to: date,
    builds: z
      .object({
        total: int,
        successes: int,
        success_rate: rate,
        duration_p50_ms: int,
        duration_p95_ms: int,
        queue_p50_ms: int.describe('time from a build’s creation to its start'),
        queue_p95_ms: int,
      })
      .strict(),
    daily: z
      .array(
        z
          .object({
            date,
            builds: int,
            successes: int,
            success_rate: rate,
            duration_p50_ms: int,
            duration_p95_ms: int,
            queue_p50_ms: int,
            queue_p95_ms: int,
          })
          .strict(),
      )
      .describe('every day of the range, oldest first; zeros where nothing ran'),
    slowest_steps: z
      .array(
        z
          .object({
            name: z.string(),
            runs: int,
            failures: int,
            mean_ms: int,
            daily: z.array(z.object({ date, runs: int, mean_ms: int }).strict()),
          })
          .strict(),
      )
      .describe('the 10 steps slowest on average, with their trend'),
    failing_tests: z.array(test).describe('the 10 tests that failed most'),
    flaky_tests: z.array(test).describe('the 10 tests found flaky in the most builds'),
    runners: z
      .array(
        z
          .object({
            kind: z.string().describe('the pipeline type: docker, kubernetes, nomad, vm, ssh, …'),
            stages: int,
            busy_ms: int.describe('stages’ time on runners of this kind'),
            daily: z.array(z.object({ date, stages: int, busy_ms: int }).strict()),
          })
          .strict(),
      )
      .describe('runner use by kind'),
    caches: z
      .object({
        hits: int,
        misses: int,
        hit_rate: rate,
        daily: z.array(z.object({ date, hits: int, misses: int, hit_rate: rate }).strict()),
      })
      .strict(),
  })
  .strict()
  .describe('build insights from the daily rollups (docs/insights.md)');
