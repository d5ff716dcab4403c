import { isTestFailure, type TestReportStore, type TestStatus } from '../../core/test-report.js';

/** Results of a test looked at for alternation: its recent history. */
export const ALTERNATION_RESULTS = 20;
/** Flips between passing and failing among them that make a test flaky. */
export const ALTERNATION_FLIPS = 5;
/** Failing tests of one upload whose history is read: a broken build of thousands reads only these. */
const CHECKED = 100;

/**
 * The failing cases whose recent results, with this failure, flip between passing and failing at
 * least ALTERNATION_FLIPS times among the last ALTERNATION_RESULTS (the second flaky rule: a test
 * that fails now and then on different commits). Skipped results and superseded attempts are left
 * out; only failures are checked, since a passing test's flips were counted when it last failed.
 */
export async function alternating(
  tests: Pick<TestReportStore, 'history'>,
  failing: readonly number[],
): Promise<number[]> {
  const flaky: number[] = [];
  for (const caseId of failing.slice(0, CHECKED)) {
    const history = await tests.history(caseId, ALTERNATION_RESULTS);
    const statuses: TestStatus[] = ['failed'];
    for (const entry of history)
      if (!entry.superseded && entry.status !== 'skipped') statuses.push(entry.status);
    let flips = 0;
    for (let i = 1; i < statuses.length; i++) {
      const [before, after] = [statuses[i - 1], statuses[i]];
      if (before !== undefined && after !== undefined && isTestFailure(before) !== isTestFailure(after))
        flips++;
    }
    if (flips >= ALTERNATION_FLIPS) flaky.push(caseId);
  }
  return flaky;
}
