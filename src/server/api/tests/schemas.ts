import { z } from 'zod';

const int = z.number().int();
const seconds = int.min(0).describe('epoch seconds; 0 when never');
const place = z.object({ number: int.min(0), name: z.string() }).strict();
const status = z.enum(['passed', 'failed', 'error', 'skipped']);

export const testCaseSchema = z
  .object({
    id: int.describe('the test’s id in its repository (…/tests/{id})'),
    suite: z.string().describe('a JUnit class or suite, a Go package, a TAP file'),
    name: z.string(),
    quarantined: z.boolean().describe('its failures are shown and counted, but do not fail its step'),
    flaky: z.boolean().describe('it failed and passed on one commit within the last 14 days'),
    flaky_seen: seconds.describe('when it last failed and passed on one commit'),
  })
  .strict()
  .describe('a test of the repository, by suite and name (docs/test-reports.md)');

export const testResultSchema = z
  .object({
    id: int,
    case: testCaseSchema,
    stage: place,
    step: place,
    attempt: int.min(1).describe('the step’s attempt (`retry:`)'),
    status,
    duration_ms: int.min(0),
    message: z.string().describe('why it failed or was skipped; capped at 4 KiB'),
    output: z.string().describe('its output and stack trace; capped at 64 KiB'),
    file: z.string(),
    new: z.boolean().describe('a failure of a test that passed on the branch’s previous build'),
    quarantined: z.boolean().describe('it was quarantined when it ran'),
  })
  .strict()
  .describe('one run of a test in a build');

export const testCountsSchema = z
  .object({
    total: int.min(0),
    passed: int.min(0),
    failed: int.min(0).describe('failed and errored, quarantined ones included'),
    skipped: int.min(0),
    quarantined: int.min(0).describe('failures of quarantined tests'),
    new: int.min(0).describe('failures of tests that passed on the branch’s previous build'),
    flaky: int.min(0).describe('tests of the build seen flaky in the last 14 days'),
  })
  .strict();

export const buildTestsSchema = z
  .object({
    counts: testCountsSchema.describe('the whole build’s, whatever the filter'),
    matching: int.min(0).describe('tests the filter selects, over every page'),
    tests: z.array(testResultSchema).describe('failures first (new ones first), then skipped, then passed'),
  })
  .strict();

export const testHistorySchema = z
  .object({
    build: int.min(1).describe('the build’s number'),
    commit: z.string(),
    attempt: int.min(1),
    status,
    duration_ms: int.min(0),
    new: z.boolean(),
    quarantined: z.boolean(),
    created: seconds,
  })
  .strict()
  .describe('one result of the test, newest first');

export const quarantineChangeSchema = z
  .object({
    quarantined: z.boolean().describe('true: quarantined; false: lifted'),
    login: z.string().describe('who did it'),
    comment: z.string(),
    created: seconds,
  })
  .strict();

export const testCaseDetailSchema = testCaseSchema
  .extend({ quarantine_log: z.array(quarantineChangeSchema).describe('newest first') })
  .strict();

export const flakyTestSchema = testCaseSchema
  .extend({
    evidence: z
      .array(
        z
          .object({
            commit: z.string(),
            results: z.array(
              z.object({ build: int.min(1), attempt: int.min(1), status, created: seconds }).strict(),
            ),
          })
          .strict(),
      )
      .describe('the commits it both failed and passed on, with those results'),
  })
  .strict();

export const testSettingsSchema = z
  .object({
    quarantine: z
      .boolean()
      .describe('quarantined tests’ failures leave their steps green (opt-in, off by default)'),
    login: z.string().describe('who changed the settings last; empty when never'),
    updated: seconds,
  })
  .strict();
