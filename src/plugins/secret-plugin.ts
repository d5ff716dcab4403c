import { SvcError } from '../core/errors.js';
import type { ExternalSecretRequest, SecretPlugin } from '../core/plugins.js';
import { answerMessage, type PluginClient } from './plugin-client.js';

/**
 * Drone's secret plugin protocol (drone-vault, drone-amazon-secrets, …): a signed POST of
 * `{path, name, repo, build}`; the answer is `{"data": "…", "pull_request": bool}`, or 404 when
 * the plugin has no such secret.
 */
export class RemoteSecretPlugin implements SecretPlugin {
  constructor(private readonly client: PluginClient) {}

  async find(request: ExternalSecretRequest): Promise<{ data: string; pullRequest: boolean } | undefined> {
    const answer = await this.client.post('application/vnd.drone.secret.v1+json', request);
    if (answer.status === 404 || answer.status === 204) return undefined;
    const what = `secret ${request.path} ${request.name}`;
    if (answer.status !== 200) {
      throw new SvcError(
        'INTERNAL',
        `the secret plugin refused ${what}: ${answer.status} ${answerMessage(answer)}`,
      );
    }
    let parsed: { data?: unknown; pull_request?: unknown };
    try {
      parsed = JSON.parse(answer.text) as typeof parsed;
    } catch {
      parsed = {};
    }
    if (typeof parsed.data !== 'string') {
      throw new SvcError('INTERNAL', `the secret plugin answered ${what} without {"data": "<value>"}`);
    }
    return { data: parsed.data, pullRequest: parsed.pull_request === true };
  }
}
