import { describe, expect, it } from 'vitest';
import { chooseApiVersion, compareVersions } from './api-version.js';

const WHERE = 'unix:///var/run/docker.sock';

describe('the API version svc speaks to an engine', () => {
  it('keeps 1.41 for every engine that still serves it (Docker 20.10 to 28, 29.7.2 on)', () => {
    expect(chooseApiVersion({ ApiVersion: '1.41', MinAPIVersion: '1.12' }, WHERE)).toBe('1.41');
    expect(chooseApiVersion({ ApiVersion: '1.49', MinAPIVersion: '1.24' }, WHERE)).toBe('1.41');
    expect(chooseApiVersion({ ApiVersion: '1.54', MinAPIVersion: '1.40' }, WHERE)).toBe('1.41');
  });

  it('takes the oldest an engine serves when 1.41 is below it (Docker 29.0: 1.52, minimum 1.44)', () => {
    expect(chooseApiVersion({ ApiVersion: '1.52', MinAPIVersion: '1.44' }, WHERE)).toBe('1.44');
  });

  it('keeps 1.41 when the engine does not name a minimum', () => {
    expect(chooseApiVersion({ ApiVersion: '1.41' }, WHERE)).toBe('1.41');
  });

  it('refuses an engine too old for svc, naming it and what to do', () => {
    expect(() => chooseApiVersion({ ApiVersion: '1.40', MinAPIVersion: '1.12' }, WHERE)).toThrow(
      'the Docker engine at unix:///var/run/docker.sock serves API versions up to 1.40; svc needs 1.41 (Docker 20.10) or later: upgrade the engine',
    );
  });

  it('refuses an answer without a version', () => {
    expect(() => chooseApiVersion({}, WHERE)).toThrow(/did not say which API versions it serves/);
    expect(() => chooseApiVersion({ ApiVersion: 'latest' }, WHERE)).toThrow(/ApiVersion "latest"/);
  });

  it('compares minor versions as numbers', () => {
    expect(compareVersions('1.9', '1.41')).toBeLessThan(0);
    expect(compareVersions('1.44', '1.41')).toBeGreaterThan(0);
    expect(compareVersions('2.0', '1.99')).toBeGreaterThan(0);
    expect(compareVersions('1.41', '1.41')).toBe(0);
  });
});
