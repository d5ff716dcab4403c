import { describe, expect, it } from 'vitest';
import { withTestCounts } from './describe.js';

const none = { passed: 0, failed: 0, error: 0, skipped: 0, quarantined: 0, new: 0 };

describe('a commit status description with test counts', () => {
  it('adds the counts of a build with tests, errors counted as failures, skipped only when any', () => {
    expect(withTestCounts('Build is failing', { ...none, passed: 412, failed: 2, error: 1 })).toBe(
      'Build is failing: 412 passed, 3 failed',
    );
    expect(
      withTestCounts('Build is passing', { ...none, passed: 9, failed: 1, quarantined: 1, skipped: 2 }),
    ).toBe('Build is passing: 9 passed, 1 failed (1 quarantined), 2 skipped');
  });

  it('leaves a build without tests as it was, and stays within GitHub’s 140 characters', () => {
    expect(withTestCounts('Build is passing', none)).toBe('Build is passing');
    const big = {
      ...none,
      passed: 999_999_999,
      failed: 999_999_999,
      quarantined: 999_999_999,
      skipped: 999_999_999,
    };
    expect(withTestCounts('Build is in an error state', big).length).toBeLessThanOrEqual(140);
  });
});
