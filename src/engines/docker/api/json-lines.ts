import type { Readable } from 'node:stream';

/**
 * The JSON objects of a progress stream (image pull), one per line as Docker writes them. A chunk
 * may end inside an object, so the unfinished line waits for the next chunk.
 */
export async function* jsonLines<T>(stream: Readable): AsyncGenerator<T> {
  let pending = '';
  stream.setEncoding('utf8');
  for await (const chunk of stream) {
    const lines = (pending + (chunk as string)).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() !== '') yield JSON.parse(line) as T;
    }
  }
  if (pending.trim() !== '') yield JSON.parse(pending) as T;
}
