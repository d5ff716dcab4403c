import { describe, expect, it } from 'vitest';
import { skipDirective } from './skip.js';

describe('skipDirective', () => {
  it('finds the markers anywhere in the message, in any case', () => {
    for (const message of ['docs [skip ci]', '[CI SKIP] typo', 'x ***NO_CI*** y']) {
      expect(skipDirective({ event: 'push', message, title: '' })).toBe(true);
    }
    expect(skipDirective({ event: 'push', message: 'skip ci please', title: '' })).toBe(false);
  });

  it('reads the title of pull requests too', () => {
    expect(skipDirective({ event: 'pull_request', message: 'work', title: 'WIP [skip ci]' })).toBe(true);
  });

  it('never skips tags, cron or custom builds', () => {
    for (const event of ['tag', 'cron', 'custom'] as const) {
      expect(skipDirective({ event, message: '[skip ci]', title: '' })).toBe(false);
    }
  });
});
