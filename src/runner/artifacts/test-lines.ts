import type { TestReceipt } from './transport.js';

/** Reports named in a step's log at most; the rest are counted. */
const PROBLEMS_SAID = 10;

/**
 * A step's log lines for the tests its reports held: "tests: 412 passed, 3 failed (1 new,
 * 1 quarantined), 2 skipped; 1 flaky", then each report that could not be read, or only in part.
 */
export function testLines(tests: TestReceipt): string[] {
  const failedNotes = [
    ...(tests.new > 0 ? [`${tests.new} new`] : []),
    ...(tests.quarantined > 0 ? [`${tests.quarantined} quarantined`] : []),
  ];
  const parts = [
    `${tests.passed} passed`,
    `${tests.failed} failed${failedNotes.length > 0 ? ` (${failedNotes.join(', ')})` : ''}`,
    ...(tests.skipped > 0 ? [`${tests.skipped} skipped`] : []),
  ];
  const lines = [
    `tests: ${parts.join(', ')}${tests.flaky > 0 ? `; ${tests.flaky} flaky (failed and passed on this commit)` : ''}` +
      ` — from ${tests.reports} report${tests.reports === 1 ? '' : 's'}`,
  ];
  for (const problem of tests.problems.slice(0, PROBLEMS_SAID)) lines.push(`tests: ${problem}`);
  if (tests.problems.length > PROBLEMS_SAID)
    lines.push(`tests: ${tests.problems.length - PROBLEMS_SAID} more problems with the reports`);
  return lines;
}

/**
 * Whether a failed step passes because of its reports: every failure they hold is of a quarantined
 * test, at least one, and every report was read whole (a report left unread could hide another).
 */
export function failuresAllQuarantined(tests: TestReceipt | undefined): boolean {
  return (
    tests !== undefined &&
    tests.failed > 0 &&
    tests.quarantined === tests.failed &&
    tests.problems.length === 0
  );
}
