import type { ScmStatus } from '../../core/scm.js';
import type { Status } from '../../core/status.js';
import type { TestCounts } from '../../core/test-report.js';

/** The commit status state a build status shows as at the git provider. */
export function commitState(status: Status): ScmStatus['state'] {
  switch (status) {
    case 'pending':
    case 'waiting_on_dependencies':
    case 'blocked':
      return 'pending';
    case 'running':
      return 'running';
    case 'success':
    case 'skipped':
      return 'success';
    case 'failure':
    case 'killed':
      return 'failure';
    case 'error':
    case 'declined':
      return 'error';
  }
}

/** The commit status description: the build status in words, as Drone words it. */
export function describeStatus(status: Status): string {
  switch (status) {
    case 'pending':
      return 'Build is pending';
    case 'waiting_on_dependencies':
      return 'Build is waiting for its dependencies';
    case 'blocked':
      return 'Build is pending approval';
    case 'running':
      return 'Build is running';
    case 'success':
      return 'Build is passing';
    case 'skipped':
      return 'Build was skipped';
    case 'failure':
      return 'Build is failing';
    case 'killed':
      return 'Build was killed';
    case 'error':
      return 'Build is in an error state';
    case 'declined':
      return 'Build was declined';
  }
}

/**
 * The description with the build's test counts, where it has tests: "Build is failing: 412 passed,
 * 3 failed (1 quarantined), 2 skipped". Short enough for every provider (GitHub keeps 140 characters).
 */
export function withTestCounts(description: string, counts: TestCounts): string {
  const failed = counts.failed + counts.error;
  if (counts.passed + failed + counts.skipped === 0) return description;
  const parts = [
    `${counts.passed} passed`,
    `${failed} failed${counts.quarantined > 0 ? ` (${counts.quarantined} quarantined)` : ''}`,
    ...(counts.skipped > 0 ? [`${counts.skipped} skipped`] : []),
  ];
  return `${description}: ${parts.join(', ')}`;
}
