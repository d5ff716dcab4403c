import type { Readable } from 'node:stream';

/** A CGI program's answer head: its status, its headers, and the body bytes read past them. */
export interface CgiHead {
  status: number;
  headers: Record<string, string>;
  rest: Buffer;
}

/** Longest head taken: git's are a few lines. */
const MAX_HEAD = 64 * 1024;

/**
 * Reads the head of a CGI answer (RFC 3875: header lines, `Status: 404 Not Found` among them, then
 * a blank line) from `stdout`, and stops reading there: the caller pipes the rest on. Rejects when
 * the program ends, or writes more than a head's worth, before the blank line.
 */
export function parseCgiHead(stdout: Readable): Promise<CgiHead> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      const crlf = buffered.indexOf('\r\n\r\n');
      const lf = buffered.indexOf('\n\n');
      const end = crlf >= 0 && (lf < 0 || crlf < lf) ? crlf : lf;
      if (end < 0) {
        if (buffered.length > MAX_HEAD) finish(new Error('the CGI head is too long'));
        return;
      }
      const separator = end === crlf ? 4 : 2;
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of buffered.subarray(0, end).toString('latin1').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number(/^\d{3}/.exec(value)?.[0] ?? 500);
        else headers[name] = value;
      }
      finish(undefined, { status, headers, rest: buffered.subarray(end + separator) });
    };
    const onEnd = (): void => finish(new Error('the CGI program ended before its head'));
    const finish = (error: Error | undefined, head?: CgiHead): void => {
      stdout.off('data', onData);
      stdout.off('end', onEnd);
      stdout.off('error', finish);
      stdout.pause();
      if (error !== undefined || head === undefined) reject(error ?? new Error('no CGI head'));
      else resolve(head);
    };
    stdout.on('data', onData);
    stdout.on('end', onEnd);
    stdout.on('error', finish);
  });
}
