/*
 * A TCP proxy for fault tests: a client (a runner, or the server talking to a provider double)
 * connects to the proxy instead of its target, and the test breaks the path between them the way
 * networks break — bytes held up for a while, connections closed or reset — or holds one chosen
 * request or its answer, to stop a process at an exact point of the protocol. Loopback only:
 * it listens on 127.0.0.1 and forwards to a loopback address, never beyond this machine.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** What a hold keeps from its side: the matching request itself, or the answer to it. */
export type HoldWhat = 'request' | 'answer';

/** A connection caught by `hold`. */
export interface Held {
  /** The text of the client's bytes that matched (latin1), for the test's messages. */
  readonly matched: string;
  /**
   * For an `answer` hold: resolves when the target's first bytes of answer reached the proxy (and
   * were kept from the client) — the target did the work and answered. For a `request` hold:
   * resolves at once (the target never got the request whole).
   */
  readonly answered: Promise<void>;
  /** Closes both ends of the connection, discarding what was held. */
  drop(): void;
  /** Resets both ends (TCP RST), discarding what was held. */
  reset(): void;
}

interface Trigger {
  when: RegExp;
  /** Undefined: only tell the test (`watch`), hold nothing. */
  what: HoldWhat | undefined;
  resolve(held: Held): void;
}

/** One proxied connection: the client's socket and the one to the target. */
interface Pair {
  client: Socket;
  upstream: Socket;
  /** The client's bytes since the last hold on this connection (latin1, tail only). */
  text: string;
  holding: HoldWhat | undefined;
  onAnswer?: () => void;
}

/**
 * A pattern for `hold` and `watch` that matches one HTTP/1.1 request: `method` on a path matching
 * `path`, whose headers or body contain `body` — within that request, not across the several
 * requests a kept-alive connection carries (no other request line may come in between).
 */
export function httpRequest(method: string, path: RegExp, body = ''): RegExp {
  const within = '(?:(?! HTTP/1\\.1\\r\\n)[^])*?';
  const escaped = body.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`${method} ${path.source}(?:\\?\\S*)? HTTP/1\\.1\\r\\n${within}${escaped}`);
}

/** Client text kept per connection for matching: enough for a request's line, headers and body. */
const TEXT_KEPT = 256 * 1024;

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export class TcpProxy {
  readonly #server: Server;
  readonly #target: { host: string; port: number };
  readonly #pairs = new Set<Pair>();
  #triggers: Trigger[] = [];
  #stalled = false;

  private constructor(server: Server, target: { host: string; port: number }) {
    this.#server = server;
    this.#target = target;
  }

  /** Starts a proxy on a free loopback port that forwards to `target` (a loopback address). */
  static async start(target: { host?: string; port: number }): Promise<TcpProxy> {
    const host = target.host ?? '127.0.0.1';
    if (!LOOPBACK.has(host)) throw new Error(`the test proxy forwards to loopback only, not to "${host}"`);
    if (!Number.isInteger(target.port) || target.port <= 0 || target.port > 65_535)
      throw new Error(`the test proxy needs a TCP port, not ${target.port}`);
    const server = createServer();
    const proxy = new TcpProxy(server, { host, port: target.port });
    server.on('connection', (client) => proxy.#accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    return proxy;
  }

  /** The port the proxy listens on (on 127.0.0.1). */
  get port(): number {
    const address = this.#server.address();
    if (address === null || typeof address === 'string') throw new Error('the proxy is not listening');
    return address.port;
  }

  /** Connections open right now. */
  get open(): number {
    return this.#pairs.size;
  }

  /**
   * Holds every byte, both ways and on new connections too, for `ms`, then lets it all through in
   * order: a network that stops moving without closing anything. Resolves when traffic flows again.
   */
  async stall(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) throw new Error(`a stall lasts a number of milliseconds, not ${ms}`);
    this.#stalled = true;
    for (const pair of this.#pairs) this.#pause(pair);
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.#stalled = false;
    for (const pair of this.#pairs) this.#resume(pair);
  }

  /** Closes every open connection (FIN both ways); what was in flight is lost. Returns how many. */
  drop(): number {
    const pairs = [...this.#pairs];
    for (const pair of pairs) this.#close(pair, false);
    return pairs.length;
  }

  /** Resets every open connection (TCP RST both ways). Returns how many. */
  reset(): number {
    const pairs = [...this.#pairs];
    for (const pair of pairs) this.#close(pair, true);
    return pairs.length;
  }

  /**
   * Catches the next connection whose client sends bytes matching `when` (the text since the last
   * hold of that connection, so a request line, headers and body split over several packets still
   * match): with `request` those bytes and all that follow are kept from the target; with
   * `answer` they go through and the target's answer is kept from the client. The connection stays
   * caught until the test drops or resets it, or either side closes it.
   */
  hold(when: RegExp, what: HoldWhat): Promise<Held> {
    checkPattern(when);
    return new Promise((resolve) => this.#triggers.push({ when, what, resolve }));
  }

  /** Resolves with the matching text when a client next sends bytes matching `when`; holds nothing. */
  async watch(when: RegExp): Promise<string> {
    checkPattern(when);
    const seen = await new Promise<Held>((resolve) =>
      this.#triggers.push({ when, what: undefined, resolve }),
    );
    return seen.matched;
  }

  /** Stops listening and resets every connection. */
  async close(): Promise<void> {
    this.reset();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(client: Socket): void {
    const upstream = connect(this.#target.port, this.#target.host);
    const pair: Pair = { client, upstream, text: '', holding: undefined };
    this.#pairs.add(pair);
    if (this.#stalled) this.#pause(pair);
    client.on('data', (chunk: Buffer) => this.#fromClient(pair, chunk));
    upstream.on('data', (chunk: Buffer) => this.#fromUpstream(pair, chunk));
    // An error ends the whole connection; a close lets the other side have what already came.
    client.on('error', () => this.#close(pair, true));
    upstream.on('error', () => this.#close(pair, true));
    client.on('close', () => this.#closed(pair, upstream));
    upstream.on('close', () => this.#closed(pair, client));
  }

  /** One side closed: the other gets the bytes already passed on, then the close (none if held). */
  #closed(pair: Pair, other: Socket): void {
    if (!this.#pairs.delete(pair)) return;
    if (pair.holding !== undefined) {
      other.destroy();
      return;
    }
    other.end();
    // A peer that never closes its side must not keep the test's process alive.
    setTimeout(() => other.destroy(), 1_000).unref();
  }

  #fromClient(pair: Pair, chunk: Buffer): void {
    if (pair.holding === 'request') return;
    if (pair.holding === undefined && this.#triggers.length > 0) {
      pair.text = (pair.text + chunk.toString('latin1')).slice(-TEXT_KEPT);
      const index = this.#triggers.findIndex((trigger) => trigger.when.test(pair.text));
      const trigger = this.#triggers[index];
      if (trigger !== undefined) {
        this.#triggers.splice(index, 1);
        pair.holding = trigger.what;
        const matched = pair.text;
        pair.text = '';
        trigger.resolve(this.#held(pair, matched));
        if (pair.holding === 'request') return;
      }
    }
    pair.upstream.write(chunk);
  }

  #fromUpstream(pair: Pair, chunk: Buffer): void {
    if (pair.holding === 'answer') {
      pair.onAnswer?.();
      return;
    }
    pair.client.write(chunk);
  }

  #held(pair: Pair, matched: string): Held {
    const answered =
      pair.holding === 'answer'
        ? new Promise<void>((resolve) => (pair.onAnswer = resolve))
        : Promise.resolve();
    return {
      matched,
      answered,
      drop: () => this.#close(pair, false),
      reset: () => this.#close(pair, true),
    };
  }

  #close(pair: Pair, reset: boolean): void {
    if (!this.#pairs.delete(pair)) return;
    for (const socket of [pair.client, pair.upstream]) {
      // A socket still connecting cannot be reset; destroying it is all there is to do then.
      if (reset && !socket.connecting && !socket.destroyed) socket.resetAndDestroy();
      else socket.destroy();
    }
  }

  #pause(pair: Pair): void {
    pair.client.pause();
    pair.upstream.pause();
  }

  #resume(pair: Pair): void {
    pair.client.resume();
    pair.upstream.resume();
  }
}

/** A global or sticky pattern keeps state between tests (`lastIndex`), and would miss matches. */
function checkPattern(when: RegExp): void {
  if (when.global || when.sticky)
    throw new Error(`hold and watch take a pattern without the g or y flag, not ${String(when)}`);
}
