import type {
  QuarantineChange,
  TestCase,
  TestHistoryEntry,
  TestResultOfCase,
  TestSettings,
} from '../../../core/test-report.js';
import { FLAKY_WINDOW_MS } from '../../tests/recorder.js';
import type { Places } from '../json/artifact.js';

const seconds = (ms: number) => Math.floor(ms / 1000);
const GONE = { number: 0, name: '' };

/** Whether a case counts as flaky at `now`: seen failing and passing on one commit within 14 days. */
export function isFlaky(flakySeen: number, now: number): boolean {
  return flakySeen > 0 && flakySeen >= now - FLAKY_WINDOW_MS;
}

export function testCaseJson(
  testCase: Pick<TestCase, 'suite' | 'name' | 'quarantined' | 'flakySeen'> & { id: number },
  now: number,
): Record<string, unknown> {
  return {
    id: testCase.id,
    suite: testCase.suite,
    name: testCase.name,
    quarantined: testCase.quarantined,
    flaky: isFlaky(testCase.flakySeen, now),
    flaky_seen: seconds(testCase.flakySeen),
  };
}

/** A build's result; its case's quarantine is the case's now, the result's says how it ran. */
export function testResultJson(
  result: TestResultOfCase,
  places: Places,
  now: number,
): Record<string, unknown> {
  return {
    id: result.id,
    case: testCaseJson({ ...result, id: result.caseId, quarantined: result.caseQuarantined }, now),
    stage: places.stages.get(result.stageId) ?? GONE,
    step: places.steps.get(result.stepId) ?? GONE,
    attempt: result.attempt,
    status: result.status,
    duration_ms: result.durationMs,
    message: result.message,
    output: result.output,
    file: result.file,
    new: result.isNew,
    quarantined: result.quarantined,
  };
}

export function testHistoryJson(entry: TestHistoryEntry): Record<string, unknown> {
  return {
    build: entry.buildNumber,
    commit: entry.commit,
    attempt: entry.attempt,
    status: entry.status,
    duration_ms: entry.durationMs,
    new: entry.isNew,
    quarantined: entry.quarantined,
    created: seconds(entry.created),
  };
}

export function testSettingsJson(settings: TestSettings): Record<string, unknown> {
  return { quarantine: settings.quarantine, login: settings.login, updated: seconds(settings.updated) };
}

export function quarantineChangeJson(change: QuarantineChange): Record<string, unknown> {
  return {
    quarantined: change.quarantined,
    login: change.login,
    comment: change.comment,
    created: seconds(change.created),
  };
}
