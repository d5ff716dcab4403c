import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Build } from '../core/build.js';
import type { PipelineFileRequest } from '../core/plugins.js';
import type { Repo } from '../core/repo.js';
import { newBuild, newRepo } from '../store/cases/fixtures.case.js';
import { RemoteConvertPlugin, RemoteValidatePlugin } from './config-plugins.js';
import { PluginClient } from './plugin-client.js';
import { startTestPlugin, type TestPlugin } from './plugin-server.case.js';

const SECRET = 'plugin-secret';
const repo = { ...newRepo({ namespace: 'octocat', name: 'app' }), id: 4, counter: 0, version: 1 } as Repo;
const build = {
  ...newBuild(4, { after: 'abc123' }),
  id: 0,
  number: 9,
  created: 0,
  updated: 0,
  version: 0,
} as Build;
const request = (path: string, text: string): PipelineFileRequest => ({ repo, build, path, text });

describe('conversion and validation plugins (Drone protocol)', () => {
  let plugin: TestPlugin;
  const client = (path: string) =>
    new PluginClient('test', { endpoint: plugin.url(path), secret: SECRET, skipVerify: false });

  beforeAll(async () => {
    plugin = await startTestPlugin(SECRET, (call) => {
      switch (call.path) {
        case '/convert':
          return {
            status: 200,
            body: JSON.stringify({ data: `# converted\n${call.body.config?.data ?? ''}` }),
          };
        case '/keep':
          return { status: 204 };
        case '/garbage':
          return { status: 200, body: '{"config": 1}' };
        case '/valid':
          return { status: 204 };
        case '/skip':
          return { status: 498, body: 'not on Sundays' };
        case '/block':
          return { status: 499, body: 'needs a maintainer' };
        default:
          return { status: 400, body: JSON.stringify({ message: 'images must come from our registry' }) };
      }
    });
  });
  afterAll(() => plugin.close());

  it('sends Drone’s request, signed, and uses the converted file', async () => {
    const converted = await new RemoteConvertPlugin(client('/convert'), undefined).convert(
      request('.drone.yml', 'kind: pipeline\n'),
    );
    expect(converted).toBe('# converted\nkind: pipeline\n');
    const call = plugin.calls.at(-1);
    expect(call?.verified).toBe(true);
    expect(call?.headers['content-type']).toBe('application/vnd.drone.convert.v1+json');
    expect(call?.headers.accept).toBe('application/vnd.drone.convert.v1+json');
    expect(call?.body).toMatchObject({
      repo: { slug: 'octocat/app' },
      build: { number: 9, after: 'abc123' },
      config: { data: 'kind: pipeline\n' },
    });
  });

  it('keeps the file on 204, sends only files of SVC_CONVERT_PLUGIN_EXTENSION, and refuses a malformed answer', async () => {
    expect(
      await new RemoteConvertPlugin(client('/keep'), undefined).convert(request('.drone.yml', 'x')),
    ).toBeUndefined();
    const before = plugin.calls.length;
    expect(
      await new RemoteConvertPlugin(client('/convert'), '.jsonnet').convert(request('.drone.yml', 'x')),
    ).toBeUndefined();
    expect(plugin.calls).toHaveLength(before);
    expect(
      await new RemoteConvertPlugin(client('/convert'), '.jsonnet').convert(request('.drone.jsonnet', '{}')),
    ).toBe('# converted\n{}');
    await expect(
      new RemoteConvertPlugin(client('/garbage'), undefined).convert(request('.drone.yml', 'x')),
    ).rejects.toThrow('the conversion plugin answered .drone.yml without {"data": "<file>"}');
  });

  it('reads a validation verdict from the status: 2xx valid, 498 skip, 499 block, anything else invalid', async () => {
    const validate = (path: string) =>
      new RemoteValidatePlugin(client(path)).validate(request('.drone.yml', 'x'));
    expect(await validate('/valid')).toEqual({ verdict: 'valid' });
    expect(await validate('/skip')).toEqual({
      verdict: 'skip',
      reason: 'the validation plugin skips it: not on Sundays',
    });
    expect(await validate('/block')).toEqual({ verdict: 'block', reason: 'needs a maintainer' });
    expect(await validate('/refuse')).toEqual({
      verdict: 'invalid',
      message: 'the validation plugin refused .drone.yml: images must come from our registry',
    });
    expect(plugin.calls.at(-1)?.headers['content-type']).toBe('application/vnd.drone.validate.v1+json');
  });

  it('names the plugin when it does not answer', async () => {
    const down = new PluginClient('validation', {
      endpoint: 'http://127.0.0.1:1/',
      secret: SECRET,
      skipVerify: false,
    });
    await expect(new RemoteValidatePlugin(down).validate(request('.drone.yml', 'x'))).rejects.toThrow(
      /^the validation plugin at http:\/\/127\.0\.0\.1:1\/ did not answer: /,
    );
  });
});
