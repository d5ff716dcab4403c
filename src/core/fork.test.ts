import { describe, expect, it } from 'vitest';
import { comesFromFork } from './fork.js';

describe('whether a build comes from a fork', () => {
  it('is a pull request from another repository, or from one that is gone', () => {
    expect(comesFromFork({ event: 'pull_request', sourceRepo: 'mallory/site' }, 'acme/site')).toBe(true);
    expect(comesFromFork({ event: 'pull_request', sourceRepo: '' }, 'acme/site')).toBe(true);
  });

  it('is not a pull request from the repository itself, in any letter case, nor another event', () => {
    expect(comesFromFork({ event: 'pull_request', sourceRepo: 'Acme/Site' }, 'acme/site')).toBe(false);
    expect(comesFromFork({ event: 'push', sourceRepo: '' }, 'acme/site')).toBe(false);
    expect(comesFromFork({ event: 'push', sourceRepo: 'acme/site' }, 'acme/site')).toBe(false);
  });
});
