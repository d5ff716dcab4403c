import type { Logger } from 'pino';
import type { GaugeSource } from '../core/gauges.js';
import { createTransport, type Transport } from '../scm/transport.js';
import { signatureHeaders } from './http-signature.js';

/** Where and how global webhooks go (SVC_WEBHOOK_*). */
export interface WebhookSenderOptions {
  endpoints: readonly string[];
  /** Signs every delivery; without it deliveries go unsigned (receivers should then refuse them). */
  secret: string | undefined;
  skipVerify: boolean;
  logger: Pick<Logger, 'warn'>;
  /** A receiver that does not answer within this time is given up on (ms). */
  timeoutMs?: number;
  now?: () => Date;
  /** Replaces the HTTP client (tests). */
  transport?: Transport;
}

/**
 * Delivers one event to every webhook endpoint as Drone does: a POST of the JSON payload with
 * `X-Drone-Event: <kind>`, signed (see http-signature.ts). Deliveries run in the background and
 * are not retried; a receiver that fails or answers with an error status is logged, and never holds
 * up or breaks what caused the event.
 */
export class WebhookSender implements GaugeSource {
  readonly #options: WebhookSenderOptions;
  readonly #transport: Transport;
  /** Deliveries under way, so that tests and shutdown can wait for them. */
  readonly #pending = new Set<Promise<void>>();

  constructor(options: WebhookSenderOptions) {
    this.#options = options;
    this.#transport =
      options.transport ??
      createTransport({ skipVerify: options.skipVerify, timeoutMs: options.timeoutMs ?? 10_000 });
  }

  /** Starts delivering `payload` to every endpoint; returns at once. */
  send(kind: string, payload: unknown): void {
    const body = JSON.stringify(payload);
    const now = (this.#options.now ?? (() => new Date()))();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-drone-event': kind,
      ...signatureHeaders(body, this.#options.secret, now),
    };
    for (const url of this.#options.endpoints) {
      const delivery = this.#deliver(url, headers, body, kind);
      this.#pending.add(delivery);
      void delivery.finally(() => this.#pending.delete(delivery));
    }
  }

  sizes(): Record<string, number> {
    return { deliveries: this.#pending.size };
  }

  /** Resolves once every delivery started so far has ended. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  async #deliver(url: string, headers: Record<string, string>, body: string, kind: string): Promise<void> {
    try {
      const answer = await this.#transport({ method: 'POST', url, headers, body });
      if (answer.status >= 300) {
        this.#options.logger.warn(`webhook ${kind} to ${url}: the receiver answered ${answer.status}`);
      }
    } catch (error) {
      this.#options.logger.warn(`webhook ${kind} to ${url} failed: ${(error as Error).message}`);
    }
  }
}
