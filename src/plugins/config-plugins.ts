import { SvcError } from '../core/errors.js';
import type { ConvertPlugin, PipelineFileRequest, ValidatePlugin, Validation } from '../core/plugins.js';
import { buildToWire, repoToWire } from '../runner/client/wire/convert.js';
import { answerMessage, type PluginClient } from './plugin-client.js';

/** The request body Drone's convert and validate plugins read: `{repo, build, config: {data}}`. */
function requestBody(request: PipelineFileRequest): Record<string, unknown> {
  return {
    repo: repoToWire(request.repo),
    build: buildToWire(request.build),
    config: { data: request.text },
  };
}

/**
 * Drone's conversion plugin protocol: the answer is `{"data": "<new file>"}`, or 204 to keep the
 * file. With `extension` set, only files whose path ends with it are sent.
 */
export class RemoteConvertPlugin implements ConvertPlugin {
  constructor(
    private readonly client: PluginClient,
    private readonly extension: string | undefined,
  ) {}

  async convert(request: PipelineFileRequest): Promise<string | undefined> {
    if (this.extension !== undefined && this.extension !== '' && !request.path.endsWith(this.extension)) {
      return undefined;
    }
    const answer = await this.client.post('application/vnd.drone.convert.v1+json', requestBody(request));
    if (answer.status === 204) return undefined;
    if (answer.status !== 200) {
      throw new SvcError(
        'INVALID_INPUT',
        `the conversion plugin refused ${request.path}: ${answer.status} ${answerMessage(answer)}`,
      );
    }
    let data: unknown;
    try {
      data = (JSON.parse(answer.text) as { data?: unknown }).data;
    } catch {
      data = undefined;
    }
    if (typeof data !== 'string') {
      throw new SvcError(
        'INVALID_INPUT',
        `the conversion plugin answered ${request.path} without {"data": "<file>"}`,
      );
    }
    return data === '' ? undefined : data;
  }
}

/** Drone's validation plugin protocol: 2xx valid, 498 skip the build, 499 block it, else invalid. */
export class RemoteValidatePlugin implements ValidatePlugin {
  constructor(private readonly client: PluginClient) {}

  async validate(request: PipelineFileRequest): Promise<Validation> {
    const answer = await this.client.post('application/vnd.drone.validate.v1+json', requestBody(request));
    if (answer.status >= 200 && answer.status < 300) return { verdict: 'valid' };
    const message = answerMessage(answer);
    if (answer.status === 498)
      return { verdict: 'skip', reason: `the validation plugin skips it${message ? `: ${message}` : ''}` };
    if (answer.status === 499) return { verdict: 'block', reason: message };
    return {
      verdict: 'invalid',
      message: `the validation plugin refused ${request.path}: ${message || `status ${answer.status}`}`,
    };
  }
}
