/** One server-sent event: its `event:` name (`message` by default) and its `data:`. */
export interface ServerEvent {
  event: string;
  data: string;
}

/**
 * The events of a `text/event-stream` body as they arrive, by the format's rules: events end at a
 * blank line, `data:` lines join with newlines, lines starting with `:` are comments (keep-alives).
 */
export async function* serverEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = parseBlock(block);
      if (event !== undefined) yield event;
    }
  }
}

function parseBlock(block: string): ServerEvent | undefined {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length === 0 && event === 'message' ? undefined : { event, data: data.join('\n') };
}
