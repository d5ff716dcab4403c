/* Test support for the HTTP fuzzing targets: one in-process request (fastify inject), bounded in time. */
import type { FastifyInstance } from 'fastify';

/** A request as a fuzzing target generates it. */
export interface Sent {
  readonly method: string;
  /** Path and query, already encoded. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | undefined;
}

/** The answer, read to its end (an event stream: its head only). */
export interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  /** The body as JSON; undefined when it is not JSON. */
  readonly json: unknown;
}

/**
 * Sends `sent` through `app.inject` — no socket, no network — and fails when no whole answer came
 * within `limitMs`: "never hangs" is part of every HTTP target's promise. Event streams (which
 * never end while their build runs) are judged by their head: the reply is then destroyed, as a
 * client that leaves would, so that the server ends the stream and forgets its watcher.
 */
export async function send(app: FastifyInstance, sent: Sent, limitMs: number): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${sent.method} ${sent.url} gave no answer within ${limitMs} ms`)),
      limitMs,
    );
  });
  try {
    return await Promise.race([answer(app, sent), late]);
  } finally {
    clearTimeout(timer);
  }
}

async function answer(app: FastifyInstance, sent: Sent): Promise<Answer> {
  const response = await app.inject({
    method: sent.method as 'GET',
    url: sent.url,
    headers: sent.headers,
    ...(sent.body === undefined ? {} : { payload: sent.body }),
    payloadAsStream: true,
  });
  const contentType = String(response.headers['content-type'] ?? '');
  // An event stream is judged by its head: it may stay silent, and open, for as long as a build runs.
  if (contentType.startsWith('text/event-stream')) {
    response.raw.res.destroy();
    return { status: response.statusCode, contentType, text: '', json: undefined };
  }
  const chunks: Buffer[] = [];
  for await (const chunk of response.stream()) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return { status: response.statusCode, contentType, text, json: parseJson(text) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
