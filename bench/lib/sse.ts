import { request } from 'node:http';

const EMPTY = Buffer.alloc(0);
const BLANK_LINE = Buffer.from('\n\n');
const DATA = Buffer.from('data: {');
const END = Buffer.from('event: end');

/** A viewer following a server-sent-events stream, as a browser tailing a log would. */
export interface SseViewer {
  /** Wall-clock time (epoch ms) the answer's headers arrived: the viewer was subscribed from then on. */
  readonly opened: Promise<number>;
  /** Resolves once the stream ended (its `end` event, or the connection closed). */
  readonly done: Promise<{ events: number; ended: boolean; error?: string }>;
  close(): void;
}

/**
 * Opens `url` (http only) with the bearer `token`, counts `data:` events and notices `event: end`;
 * hands each event that holds `mark` to `onEvents`, with the wall-clock time it arrived. Events are
 * separated by a blank line; an event cut by the network waits for its end, so that each is seen
 * exactly once.
 */
export function followSse(
  url: string,
  token: string,
  mark: string,
  onEvents: (text: string, arrived: number) => void,
  clock: () => number,
): SseViewer {
  const MARK = Buffer.from(mark);
  const opened = Promise.withResolvers<number>();
  const done = Promise.withResolvers<{ events: number; ended: boolean; error?: string }>();
  let events = 0;
  let ended = false;
  let rest: Buffer = EMPTY;
  const req = request(
    url,
    { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } },
    (res) => {
      if (res.statusCode !== 200) {
        opened.reject(new Error(`GET ${url} answered ${res.statusCode}`));
        res.resume();
        done.resolve({ events, ended });
        return;
      }
      opened.resolve(clock());
      // Bytes, not text: a viewer that decodes every event would cost the shared machine more
      // than the server it watches. Only events holding `mark` are decoded for `onEvents`.
      res.on('data', (chunk: Buffer) => {
        const arrived = clock();
        const bytes = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
        const cut = bytes.lastIndexOf(BLANK_LINE);
        if (cut < 0) {
          rest = bytes;
          return;
        }
        const whole = bytes.subarray(0, cut + 2);
        rest = cut + 2 === bytes.length ? EMPTY : Buffer.from(bytes.subarray(cut + 2));
        for (let at = whole.indexOf(DATA); at >= 0; at = whole.indexOf(DATA, at + DATA.length)) events++;
        if (whole.includes(END)) ended = true;
        for (let at = whole.indexOf(MARK); at >= 0; at = whole.indexOf(MARK, at + MARK.length)) {
          const start = whole.lastIndexOf(BLANK_LINE, at);
          const stop = whole.indexOf(BLANK_LINE, at);
          onEvents(whole.toString('latin1', start < 0 ? 0 : start, stop < 0 ? whole.length : stop), arrived);
        }
      });
      res.on('end', () => done.resolve({ events, ended }));
      res.on('error', (error) => done.resolve({ events, ended, error: error.message }));
      res.on('aborted', () => done.resolve({ events, ended, error: 'aborted' }));
    },
  );
  req.on('error', (error) => {
    opened.reject(error);
    done.resolve({ events, ended, error: error.message });
  });
  req.end();
  opened.promise.catch(() => undefined);
  return { opened: opened.promise, done: done.promise, close: () => req.destroy() };
}
