import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/** Proxies drop connections that stay silent; a comment line every so often keeps them open. */
const KEEPALIVE_MS = 25_000;
/**
 * A viewer whose connection has this much unsent data is too slow to follow: it is disconnected
 * instead of letting its backlog grow without bound (browsers' EventSource reconnects by itself).
 */
export const MAX_BACKLOG_BYTES = 1 << 20;

/** Options of one event stream; tests shorten the keepalive. */
export interface SseOptions {
  readonly keepaliveMs?: number;
  readonly maxBacklogBytes?: number;
  /** Called once when the stream ends, whoever ends it. */
  readonly onEnd: () => void;
}

/**
 * One server-sent-event stream on a hijacked reply: headers, a first comment so that the client
 * sees the answer at once, keepalive comments, and an end that runs once — when the client leaves,
 * when the server closes, or when the client falls too far behind.
 */
export class SseStream {
  readonly #response: ServerResponse;
  readonly #maxBacklog: number;
  readonly #keepalive: NodeJS.Timeout;
  readonly #onEnd: () => void;
  #ended = false;

  constructor(reply: FastifyReply, options: SseOptions) {
    reply.hijack();
    this.#response = reply.raw;
    this.#maxBacklog = options.maxBacklogBytes ?? MAX_BACKLOG_BYTES;
    this.#onEnd = options.onEnd;
    this.#response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    this.#response.write(': ping\n\n');
    this.#keepalive = setInterval(() => this.#write(': keepalive\n\n'), options.keepaliveMs ?? KEEPALIVE_MS);
    this.#response.on('close', () => this.#stop());
    // A HEAD request gets the head and nothing else: left open, the stream (whose events the
    // client never reads) would hold its connection until the client gives up.
    if (reply.request.method === 'HEAD') {
      this.#response.end();
      this.#stop();
    }
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Sends one `data:` event (the text must be one line, as JSON is). */
  send(data: string): void {
    this.#write(`data: ${data}\n\n`);
  }

  /** Ends the stream with Drone's closing event, which tells clients not to expect more. */
  end(): void {
    if (this.#ended) return;
    this.#response.end('event: error\ndata: eof\n\n');
    this.#stop();
  }

  #write(text: string): void {
    if (this.#ended) return;
    if (this.#response.writableLength > this.#maxBacklog) {
      // Ending (rather than waiting for the backlog to drain) bounds the memory a viewer can hold.
      this.#response.destroy();
      this.#stop();
      return;
    }
    this.#response.write(text);
  }

  #stop(): void {
    if (this.#ended) return;
    this.#ended = true;
    clearInterval(this.#keepalive);
    this.#onEnd();
  }
}
