import { describe, expect, it } from 'vitest';
import { statusContext, targetSlug } from './context.js';

const NAME = 'continuous-integration/svc';

describe('the context of a commit status', () => {
  it('adds the event as Drone does, so that branch protection written for Drone still matches', () => {
    expect(statusContext(NAME, { event: 'push', deployTo: '' })).toBe(`${NAME}/push`);
    expect(statusContext(NAME, { event: 'pull_request', deployTo: '' })).toBe(`${NAME}/pr`);
    expect(statusContext(NAME, { event: 'tag', deployTo: '' })).toBe(`${NAME}/tag`);
    expect(statusContext(NAME, { event: 'promote', deployTo: 'production' })).toBe(
      `${NAME}/promote/production`,
    );
    for (const event of ['cron', 'custom', 'rollback'] as const)
      expect(statusContext(NAME, { event, deployTo: 'production' })).toBe(NAME);
    expect(statusContext('continuous-integration/drone', { event: 'pull_request', deployTo: '' })).toBe(
      'continuous-integration/drone/pr',
    );
  });

  it('writes the promotion target as a slug', () => {
    expect(targetSlug('Production EU')).toBe('production-eu');
    expect(targetSlug('  Staging / Blue  ')).toBe('staging-blue');
    expect(targetSlug('Qualität & Test')).toBe('qualitat-and-test');
    expect(targetSlug('_edge_')).toBe('edge');
    expect(targetSlug('v1.2')).toBe('v1-2');
  });
});
