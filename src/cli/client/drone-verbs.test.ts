import { describe, expect, it } from 'vitest';
import { fromDroneVerbs } from './drone-verbs.js';

describe("the drone command's verbs", () => {
  it('become the svc verbs that do the same', () => {
    expect(fromDroneVerbs('build', ['stop', 'octocat/hello', '7'])).toEqual({
      command: 'build',
      args: ['cancel', 'octocat/hello', '7'],
    });
    expect(fromDroneVerbs('build', ['start', 'octocat/hello', '7', '--param', 'A=1'])).toEqual({
      command: 'build',
      args: ['restart', 'octocat/hello', '7', '--param', 'A=1'],
    });
    expect(fromDroneVerbs('log', ['view', 'octocat/hello', '7', '1', '2'])).toEqual({
      command: 'build',
      args: ['logs', 'octocat/hello', '7', '1', '2'],
    });
  });

  it('turn orgsecret’s positional organization, name and value into secret --org', () => {
    expect(fromDroneVerbs('orgsecret', ['add', 'acme', 'token', 's3cr3t', '--allow-pull-request'])).toEqual({
      command: 'secret',
      args: ['add', '--org', 'acme', '--name', 'token', '--data', 's3cr3t', '--allow-pull-request'],
    });
    expect(fromDroneVerbs('orgsecret', ['ls', 'acme'])).toEqual({
      command: 'secret',
      args: ['ls', '--org', 'acme'],
    });
    expect(fromDroneVerbs('orgsecret', ['rm', 'acme', 'token'])).toEqual({
      command: 'secret',
      args: ['rm', '--org', 'acme', '--name', 'token'],
    });
  });

  it('leave svc’s own verbs alone', () => {
    expect(fromDroneVerbs('build', ['ls', 'octocat/hello'])).toEqual({
      command: 'build',
      args: ['ls', 'octocat/hello'],
    });
    expect(fromDroneVerbs('secret', ['add', 'octocat/hello'])).toEqual({
      command: 'secret',
      args: ['add', 'octocat/hello'],
    });
  });
});
