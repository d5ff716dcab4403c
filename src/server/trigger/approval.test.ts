import { describe, expect, it } from 'vitest';
import type { ApprovalPolicy } from '../../core/repo.js';
import { needsApproval } from './approval.js';

describe('needsApproval', () => {
  const push = { event: 'push', fork: false } as const;
  const pull = { event: 'pull_request', fork: false } as const;
  const forkPull = { event: 'pull_request', fork: true } as const;
  const cases: [ApprovalPolicy, boolean, boolean, boolean][] = [
    // policy, push, pull request, pull request from a fork
    ['none', false, false, false],
    ['forks', false, false, true],
    ['pull_requests', false, true, true],
    ['all', true, true, true],
  ];
  for (const [approval, onPush, onPull, onFork] of cases) {
    it(`holds what the ${approval} policy says`, () => {
      const repo = { approval, protected: false };
      expect([needsApproval(repo, push), needsApproval(repo, pull), needsApproval(repo, forkPull)]).toEqual([
        onPush,
        onPull,
        onFork,
      ]);
    });
  }

  it('holds every build of a protected repository, whatever the policy', () => {
    expect(needsApproval({ approval: 'none', protected: true }, push)).toBe(true);
  });
});
