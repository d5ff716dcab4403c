import { connect, type Socket } from 'node:net';

/** What a viewer saw of a log stream. */
export interface RawSeen {
  /** Bytes of the answer's body as sent (chunked framing included: the same for every viewer). */
  bytes: number;
  /** The `end` event came. */
  ended: boolean;
  /** `pos` of the last line event before the end; -1 when none was seen. */
  lastPos: number;
  /** The timed lines: [line, printed, arrived] (epoch ms), each once. */
  samples: [number, number, number][];
  error?: string;
}

/** A viewer reading a log stream on a bare socket; see followRaw. */
export interface RawViewer {
  /** Wall-clock time (epoch ms) the answer's head arrived: the viewer was subscribed from then on. */
  readonly opened: Promise<number>;
  readonly done: Promise<RawSeen>;
  close(): void;
}

/** One read buffer for every viewer of the process: reads are handled at once, never kept. */
const READ = Buffer.allocUnsafe(256 * 1024);
/** Bytes kept across reads: a timed line's `NNNNNNN t=<16 digits> ` cut by a read, the last event. */
const KEEP = 512;
const MARK = Buffer.from(' t=');
const SAMPLE = /(\d{7}) t=(\d{16}) /g;
const LAST_POS = /^[^]*"pos":(\d+)/;
/** The chunked body's last chunk (the server closes the stream after the `end` event). */
const LAST_CHUNK = '0\r\n\r\n';

/**
 * GETs `path` from the server at `port` (loopback, http) on a bare socket and reads the
 * server-sent events as cheaply as Node can: into one shared buffer (net's `onread`), with no HTTP
 * parser, stream or per-read allocation; counts the bytes, finds the timed lines with a native
 * search, and keeps the last KEEP bytes to tell at the end whether the `end` event and the last
 * line came. Hundreds of these on a step printing 10,000 lines a second must not cost more than
 * the server that feeds them.
 */
export function followRaw(port: number, path: string, token: string, clock: () => number): RawViewer {
  const opened = Promise.withResolvers<number>();
  const done = Promise.withResolvers<RawSeen>();
  const found = new Map<number, [number, number, number]>();
  let head: string | undefined = '';
  let bytes = 0;
  let kept = '';
  const seen = (error?: string): RawSeen => ({
    bytes,
    ended: kept.includes('event: end'),
    lastPos: Number(LAST_POS.exec(kept)?.[1] ?? -1),
    samples: [...found.values()],
    ...(error === undefined ? {} : { error }),
  });
  const timed = (text: string, arrived: number): void => {
    for (const match of text.matchAll(SAMPLE)) {
      const line = Number(match[1]);
      if (!found.has(line)) found.set(line, [line, Number(match[2]) / 1000, arrived]);
    }
  };
  const onBody = (body: Buffer, arrived: number): void => {
    bytes += body.length;
    // A timed line cut by the previous read: its start is in `kept`.
    const joined = kept.slice(-40) + body.toString('latin1', 0, Math.min(body.length, 40));
    if (joined.includes(' t=')) timed(joined, arrived);
    for (let at = body.indexOf(MARK); at >= 0; at = body.indexOf(MARK, at + MARK.length)) {
      timed(body.toString('latin1', Math.max(0, at - 7), Math.min(body.length, at + 20)), arrived);
    }
    kept = (kept + body.toString('latin1', Math.max(0, body.length - KEEP))).slice(-KEEP);
    if (kept.endsWith(LAST_CHUNK) && kept.includes('event: end')) socket.end();
  };
  const onRead = (length: number): void => {
    const arrived = clock();
    // The data is in READ until the next read of any socket of the process: used here and now.
    const data = READ.subarray(0, length);
    if (head === undefined) return onBody(data, arrived);
    head += data.toString('latin1');
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) {
      if (head.length > 16_384) socket.destroy(new Error('no end to the answer head'));
      return;
    }
    if (!head.startsWith('HTTP/1.1 200')) {
      socket.destroy(new Error(`the server answered ${head.split('\r\n')[0]}`));
      return;
    }
    const rest = Buffer.from(head.slice(end + 4), 'latin1');
    head = undefined;
    opened.resolve(arrived);
    if (rest.length > 0) onBody(rest, arrived);
  };
  const socket: Socket = connect({
    port,
    host: '127.0.0.1',
    onread: {
      buffer: READ,
      callback: (length) => {
        onRead(length);
        return true;
      },
    },
  });
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n` +
      'Accept: text/event-stream\r\nConnection: close\r\n\r\n',
  );
  socket.on('error', (error: Error) => {
    opened.reject(error);
    done.resolve(seen(error.message));
  });
  socket.on('close', () => {
    opened.reject(new Error('closed before the answer'));
    done.resolve(seen());
  });
  opened.promise.catch(() => undefined);
  return { opened: opened.promise, done: done.promise, close: () => socket.destroy() };
}
