import { describe, expect, it } from 'vitest';
import { isLatest } from './pull.js';

describe('isLatest', () => {
  it('is true without a tag or with the tag latest, also behind a registry with a port', () => {
    expect(isLatest('busybox')).toBe(true);
    expect(isLatest('local/busybox:latest')).toBe(true);
    expect(isLatest('registry.test:5000/team/app')).toBe(true);
  });

  it('is false for another tag or a digest', () => {
    expect(isLatest('busybox:1.36')).toBe(false);
    expect(isLatest('registry.test:5000/team/app:v2')).toBe(false);
    expect(isLatest('busybox@sha256:0123456789abcdef')).toBe(false);
  });
});
