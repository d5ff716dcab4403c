import { SvcError } from '../core/errors.js';
import type { RegistryPlugin } from '../core/plugins.js';
import { answerMessage, type PluginClient } from './plugin-client.js';

/**
 * Drone's registry plugin protocol (drone-registry-plugin, drone-amazon-secrets, …): a signed POST
 * of `{repo, build}`; the answer is a list of `{"address", "username", "password"}`, or 204 for none.
 */
export class RemoteRegistryPlugin implements RegistryPlugin {
  constructor(private readonly client: PluginClient) {}

  async list(request: {
    repo: Readonly<Record<string, unknown>>;
    build: Readonly<Record<string, unknown>>;
  }): Promise<{ address: string; username: string; password: string }[]> {
    const answer = await this.client.post('application/vnd.drone.registry.v1+json', request);
    if (answer.status === 204 || answer.status === 404) return [];
    if (answer.status !== 200) {
      throw new SvcError(
        'INTERNAL',
        `the registry plugin refused: ${answer.status} ${answerMessage(answer)}`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.text);
    } catch {
      parsed = undefined;
    }
    if (!Array.isArray(parsed)) {
      throw new SvcError(
        'INTERNAL',
        'the registry plugin answered without a list of {"address", "username", "password"}',
      );
    }
    return parsed.flatMap((entry: unknown) => {
      const { address, username, password } = (entry ?? {}) as Record<string, unknown>;
      return typeof address === 'string' && typeof username === 'string' && typeof password === 'string'
        ? [{ address, username, password }]
        : [];
    });
  }
}
