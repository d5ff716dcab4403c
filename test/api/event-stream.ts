/* Test support: a client of svc's server-sent-event streams that keeps what it received. */
import type { Harness } from './harness.js';

/** One event as received: its type (`message` unless named) and its data. */
export interface ReceivedEvent {
  readonly event: string;
  readonly data: string;
}

/** An open event stream. */
export interface EventStreamClient {
  readonly status: number;
  readonly headers: Headers;
  /** Every event so far, in order. */
  readonly events: ReceivedEvent[];
  /** Comment lines so far (`ping`, `keepalive`). */
  readonly comments: string[];
  /** True once the server ended the stream. */
  readonly ended: boolean;
  /** Waits for an event that `match` accepts (counting those already received); fails after `timeoutMs`. */
  waitFor(match: (event: ReceivedEvent) => boolean, timeoutMs?: number): Promise<ReceivedEvent>;
  /** Waits until the server ends the stream. */
  waitForEnd(timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens `path` as an event stream, with a bearer token when given. */
export async function openEventStream(
  h: Pick<Harness, 'url'>,
  path: string,
  token?: string,
): Promise<EventStreamClient> {
  const controller = new AbortController();
  const response = await fetch(`${h.url}${path}`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  const events: ReceivedEvent[] = [];
  const comments: string[] = [];
  let ended = false;
  let wake = (): void => undefined;
  const reading = (async () => {
    if (response.body === null) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          parseBlock(block, events, comments);
        }
        wake();
      }
    } catch {
      // Aborted by close().
    }
    ended = true;
    wake();
  })();
  const until = async (done: () => boolean, timeoutMs: number, what: string): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline)
        throw new Error(`${what} not received in time; got ${JSON.stringify(events)}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  };
  return {
    status: response.status,
    headers: response.headers,
    events,
    comments,
    get ended() {
      return ended;
    },
    async waitFor(match, timeoutMs = 5_000) {
      let found: ReceivedEvent | undefined;
      await until(() => (found = events.find(match)) !== undefined, timeoutMs, 'the event');
      return found as ReceivedEvent;
    },
    async waitForEnd(timeoutMs = 5_000) {
      await until(() => ended, timeoutMs, 'the end of the stream');
      await reading;
    },
    close() {
      controller.abort();
    },
  };
}

function parseBlock(block: string, events: ReceivedEvent[], comments: string[]): void {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) comments.push(line.slice(1).trim());
    else if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (data.length > 0) events.push({ event, data: data.join('\n') });
}
