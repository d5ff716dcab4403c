import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { messageOf } from './load.js';

interface LogLine {
  pos: number;
  out: string;
}

/** The log's lines: read once for a finished step, streamed for a running one (undefined: not known yet). */
export function useLogLines(path: string, running: boolean | undefined) {
  const [lines, setLines] = useState<string[]>([]);
  const [error, setError] = useState<string>();
  const [live, setLive] = useState(false);
  useEffect(() => {
    if (running === undefined) return;
    setLines([]);
    if (!running) {
      api<LogLine[] | undefined>('GET', path).then(
        (log) => setLines(splitLines(log ?? [])),
        (failure: unknown) => setError(messageOf(failure)),
      );
      return;
    }
    const source = new EventSource(`${path}/stream`);
    let pending: string[] = [];
    // Lines come one event each: add them to the page at most once a frame, not once a line.
    let frame = 0;
    const flush = () => {
      frame = 0;
      const add = pending;
      pending = [];
      setLines((current) => current.concat(add));
    };
    setLive(true);
    // After a lost connection the event source reconnects by itself and the stream starts again
    // with the stored lines: the ones already shown are skipped by their position.
    let lastPos = -1;
    source.onmessage = (event: MessageEvent<string>) => {
      const line = JSON.parse(event.data) as LogLine;
      if (line.pos <= lastPos) return;
      lastPos = line.pos;
      pending.push(...splitLines([line]));
      if (frame === 0) frame = requestAnimationFrame(flush);
    };
    source.addEventListener('end', () => {
      source.close();
      if (frame !== 0) cancelAnimationFrame(frame);
      flush();
      setLive(false);
    });
    return () => {
      source.close();
      if (frame !== 0) cancelAnimationFrame(frame);
    };
  }, [path, running]);
  return { lines, error, live };
}

/** Stored log entries as lines of text (an entry may hold several, or end without a newline). */
function splitLines(log: readonly LogLine[]): string[] {
  const lines: string[] = [];
  for (const line of log) {
    const text = line.out.endsWith('\n') ? line.out.slice(0, -1) : line.out;
    for (const part of text.split('\n')) lines.push(part);
  }
  return lines;
}
