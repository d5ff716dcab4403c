import { describe, expect, it } from 'vitest';
import { boolOption, numberArg, paramsArg, repoArg } from './args.js';
import { UsageError } from './errors.js';

describe('client arguments', () => {
  it('reads owner/name, numbers, KEY=VALUE parameters and true/false options', () => {
    expect(repoArg('octocat/app')).toEqual({ slug: 'octocat/app', path: '/api/repos/octocat/app' });
    expect(numberArg('12', 'the build number')).toBe(12);
    expect(paramsArg({ param: ['A=1', 'B=x=y', 'C='] })).toEqual({ A: '1', B: 'x=y', C: '' });
    expect(boolOption({ trusted: 'false' }, 'trusted')).toBe(false);
    expect(boolOption({}, 'trusted')).toBeUndefined();
  });

  it('says what is wrong as a usage error', () => {
    expect(() => repoArg('octocat')).toThrow(
      new UsageError('"octocat" is not a repository: expected owner/name'),
    );
    expect(() => repoArg(undefined)).toThrow('missing the repository');
    expect(() => numberArg('0', 'the build number')).toThrow(
      'the build number: expected a number from 1, got "0"',
    );
    expect(() => paramsArg({ param: ['=x'] })).toThrow('--param =x: expected KEY=VALUE');
    expect(() => boolOption({ trusted: 'yes' }, 'trusted')).toThrow(
      '--trusted: expected true or false, got "yes"',
    );
  });
});
