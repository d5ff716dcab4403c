import { describe, expect, it } from 'vitest';
import { serverEvents } from './sse.js';

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

describe('serverEvents', () => {
  it('reads events split across chunks, skips comments, joins data lines, names events', async () => {
    const body = streamOf([
      ': keepalive\n\nda',
      'ta: {"pos":0}\n\r\n',
      'data: a\ndata: b\n\nevent: end\ndata: eof\n\n',
    ]);
    const events = [];
    for await (const event of serverEvents(body)) events.push(event);
    expect(events).toEqual([
      { event: 'message', data: '{"pos":0}' },
      { event: 'message', data: 'a\nb' },
      { event: 'end', data: 'eof' },
    ]);
  });
});
