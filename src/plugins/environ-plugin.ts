import { SvcError } from '../core/errors.js';
import type { EnvironPlugin, PluginVariable } from '../core/plugins.js';
import { answerMessage, type PluginClient } from './plugin-client.js';

/**
 * Drone's environment plugin protocol: a signed POST of `{repo, build}`; the answer is a list of
 * `{"name", "data", "mask"}` (or, from older plugins, an object of names to values), or 204 for none.
 */
export class RemoteEnvironPlugin implements EnvironPlugin {
  constructor(private readonly client: PluginClient) {}

  async list(request: {
    repo: Readonly<Record<string, unknown>>;
    build: Readonly<Record<string, unknown>>;
  }): Promise<PluginVariable[]> {
    const answer = await this.client.post('application/vnd.drone.environ.v1+json', request);
    if (answer.status === 204 || answer.status === 404) return [];
    if (answer.status !== 200) {
      throw new SvcError(
        'INTERNAL',
        `the environment plugin refused: ${answer.status} ${answerMessage(answer)}`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.text);
    } catch {
      parsed = undefined;
    }
    if (Array.isArray(parsed)) {
      return parsed.flatMap((entry: unknown) => {
        const { name, data, mask } = (entry ?? {}) as Record<string, unknown>;
        return typeof name === 'string' && name !== '' && typeof data === 'string'
          ? [{ name, data, mask: mask === true }]
          : [];
      });
    }
    if (parsed !== null && typeof parsed === 'object') {
      return Object.entries(parsed).flatMap(([name, data]) =>
        typeof data === 'string' ? [{ name, data, mask: false }] : [],
      );
    }
    throw new SvcError(
      'INTERNAL',
      'the environment plugin answered without a list of {"name", "data", "mask"}',
    );
  }
}
