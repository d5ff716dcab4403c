import { describe, expect, it } from 'vitest';
import { encodeSetting, pluginEnviron, pluginVariable } from './settings.js';

describe('plugin settings', () => {
  it.each([
    ['repo', 'PLUGIN_REPO'],
    ['auto_tag', 'PLUGIN_AUTO_TAG'],
    ['build-args', 'PLUGIN_BUILD_ARGS'],
    ['dryRun', 'PLUGIN_DRYRUN'],
  ])('%s is read from %s', (name, variable) => {
    expect(pluginVariable(name)).toBe(variable);
  });

  it.each([
    ['octocat/hello', 'octocat/hello'],
    [true, 'true'],
    [false, 'false'],
    [42, '42'],
    [1.1, '1.1'],
    [null, ''],
    [['latest', '1.0', 2], 'latest,1.0,2'],
    [[], ''],
    [{ GO_VERSION: '1.22', CGO: 0 }, '{"GO_VERSION":"1.22","CGO":0}'],
    [[{ url: 'https://mirror' }], '[{"url":"https://mirror"}]'],
    [[['a', 'b'], 'c'], '[["a","b"],"c"]'],
  ])('%j is encoded as %j', (value, encoded) => {
    expect(encodeSetting(value)).toBe(encoded);
  });

  it('splits plain settings from those taken from secrets', () => {
    expect(
      pluginEnviron({
        repo: { kind: 'value', value: 'octocat/hello' },
        tags: { kind: 'value', value: ['a', 'b'] },
        password: { kind: 'secret', secret: 'docker_password' },
      }),
    ).toEqual({
      envs: { PLUGIN_REPO: 'octocat/hello', PLUGIN_TAGS: 'a,b' },
      secrets: { PLUGIN_PASSWORD: 'docker_password' },
    });
  });
});
