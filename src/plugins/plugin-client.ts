import { SvcError } from '../core/errors.js';
import { createTransport, type Transport, type TransportResponse } from '../scm/transport.js';
import { signatureHeaders } from './http-signature.js';

/** Where a server-side plugin listens, and how to reach it (SVC_*_PLUGIN_*). */
export interface PluginEndpoint {
  endpoint: string;
  /** Signs every request (SVC_*_PLUGIN_SECRET); unsigned without it. */
  secret: string | undefined;
  skipVerify: boolean;
  /** A plugin that does not answer within this time fails the request (ms). */
  timeoutMs?: number;
  now?: () => Date;
  transport?: Transport;
}

/**
 * POSTs JSON to a Drone-protocol plugin: signed as Drone signs (see http-signature.ts), with the
 * plugin's media type in Accept and Content-Type. Throws an SvcError naming the plugin when no
 * answer arrives; the caller reads the status.
 */
export class PluginClient {
  readonly #options: PluginEndpoint;
  readonly #transport: Transport;

  constructor(
    readonly name: string,
    options: PluginEndpoint,
  ) {
    this.#options = options;
    this.#transport =
      options.transport ??
      createTransport({ skipVerify: options.skipVerify, timeoutMs: options.timeoutMs ?? 60_000 });
  }

  async post(mediaType: string, payload: unknown): Promise<TransportResponse> {
    const body = JSON.stringify(payload);
    const now = (this.#options.now ?? (() => new Date()))();
    const headers: Record<string, string> = {
      accept: mediaType,
      'content-type': mediaType,
      ...signatureHeaders(body, this.#options.secret, now),
    };
    try {
      return await this.#transport({ method: 'POST', url: this.#options.endpoint, headers, body });
    } catch (error) {
      throw new SvcError(
        'INTERNAL',
        `the ${this.name} plugin at ${this.#options.endpoint} did not answer: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  }
}

/** The message of a plugin's error answer: its JSON `message`, else its text, cut short. */
export function answerMessage(answer: TransportResponse): string {
  let message = answer.text.trim();
  try {
    const parsed = JSON.parse(message) as { message?: unknown };
    if (typeof parsed.message === 'string') message = parsed.message;
  } catch {
    // Plain text: drone-go's handlers answer errors with http.Error.
  }
  return message.length > 500 ? `${message.slice(0, 500)}…` : message;
}
