/* Test support for the authorization matrix: path filling and one request per (route, caller). */
import type { Harness } from './harness.js';

/**
 * A route's path with its parameters filled: the matrix's repositories, build 1, stage 1, step 1,
 * its artifact and a file of it (a wildcard ending).
 */
export function fillPath(path: string, visibility: 'private' | 'public'): string {
  const values: Record<string, string> = {
    owner: 'acme',
    name: visibility,
    namespace: 'acme',
    number: '1',
    stage: '1',
    step: '1',
    login: 'nobody-such',
    cron: 'nightly',
    key: 'npm-abc',
    // The matrix uploads one artifact to each repository's build 1: the private one's first.
    id: visibility === 'private' ? '1' : '2',
  };
  return path
    .replace(/:([A-Za-z_]+)/g, (_match, name: string) => values[name] ?? 'no-such-thing')
    .replace(/\/\*$/, '/dist/app.txt');
}

/** An answer as the matrix judges it. */
export interface Sent {
  readonly status: number;
  readonly text: string;
  readonly json: unknown;
  readonly message: string;
}

/**
 * Sends one request with an empty body, as `token`'s bearer (anonymous without). Event streams
 * are judged by their status alone and closed at once: they would stay open for as long as a
 * build runs.
 */
export async function send(
  h: Pick<Harness, 'url'>,
  method: string,
  path: string,
  token?: string,
): Promise<Sent> {
  const controller = new AbortController();
  const response = await fetch(`${h.url}${path}`, {
    method,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    signal: controller.signal,
    redirect: 'manual',
  });
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    controller.abort();
    return { status: response.status, text: '', json: undefined, message: '' };
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const message =
    typeof json === 'object' && json !== null && typeof (json as { message?: unknown }).message === 'string'
      ? (json as { message: string }).message
      : '';
  return { status: response.status, text, json, message };
}
