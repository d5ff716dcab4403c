import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcError } from '../core/errors.js';
import { refusalByStatus, ScmRateLimitError } from './errors.js';
import { RestClient, STATUS_CALL } from './rest-client.js';
import { backoff, DEFAULT_RETRY, retryAfterMs, sendWithRetries, type RetryContext } from './retry.js';
import { createTransport, type TransportResponse } from './transport.js';

/** An answer with `status` and headers, as the transport reads it. */
function answer(status: number, headers: Record<string, string> = {}): TransportResponse {
  return { status, header: (name) => headers[name.toLowerCase()], text: '{}' };
}

/** Runs sendWithRetries over `script` (answers, or errors thrown as "no answer"), recording the waits. */
async function run(script: (TransportResponse | Error)[], context: Partial<RetryContext> = {}) {
  const waits: number[] = [];
  let calls = 0;
  let clock = 0;
  const outcome = sendWithRetries(
    {
      policy: DEFAULT_RETRY,
      safety: 'idempotent',
      now: () => clock,
      sleep: (ms) => {
        waits.push(ms);
        clock += ms;
        return Promise.resolve();
      },
      random: () => 0.5,
      ...context,
    },
    () => {
      const next = script[Math.min(calls, script.length - 1)];
      calls += 1;
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next as TransportResponse);
    },
  );
  return {
    outcome: await outcome.then(
      (r) => r,
      (e: unknown) => e,
    ),
    waits,
    calls: () => calls,
  };
}

const refusedError = () => Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });

describe('sendWithRetries', () => {
  it('retries 500, 502, 503 and 504 of an idempotent call with doubling waits, then answers the success', async () => {
    const { outcome, waits } = await run([answer(502), answer(503), answer(200)]);
    expect(outcome).toMatchObject({ response: { status: 200 }, attempts: 3 });
    expect(waits).toEqual([500, 1000]);
    for (const status of [500, 504]) {
      expect((await run([answer(status), answer(201)])).outcome).toMatchObject({ attempts: 2 });
    }
  });

  it('gives up after the policy’s attempts with the last answer', async () => {
    const { outcome, calls } = await run([answer(503)]);
    expect(outcome).toMatchObject({ response: { status: 503 }, attempts: 3 });
    expect(calls()).toBe(3);
  });

  it('never retries a refusal that another attempt cannot change (4xx but 429)', async () => {
    for (const status of [400, 401, 403, 404, 422]) {
      const { outcome, calls } = await run([answer(status), answer(200)]);
      expect(outcome).toMatchObject({ response: { status }, attempts: 1 });
      expect(calls()).toBe(1);
    }
  });

  it('waits what Retry-After asks up to the cap, and hands back a longer wait at once', async () => {
    const short = await run([answer(429, { 'retry-after': '2' }), answer(200)]);
    expect(short.outcome).toMatchObject({ response: { status: 200 }, attempts: 2 });
    expect(short.waits).toEqual([2000]);
    const long = await run([answer(429, { 'retry-after': '60' }), answer(200)]);
    expect(long.outcome).toMatchObject({ response: { status: 429 }, attempts: 1 });
    expect(long.waits).toEqual([]);
    // A 503 that says when to come back is waited for the same way.
    expect((await run([answer(503, { 'retry-after': '1' }), answer(200)])).waits).toEqual([1000]);
  });

  it('takes a provider’s own rate-limit reset (GitHub’s 403 with no requests remaining)', async () => {
    const limited = answer(403, { 'x-ratelimit-remaining': '0' });
    const { outcome, waits } = await run([limited, answer(200)], {
      waitAsked: (response) => (response.status === 403 ? 3000 : undefined),
    });
    expect(outcome).toMatchObject({ response: { status: 200 } });
    expect(waits).toEqual([3000]);
  });

  it('retries a call that must not run twice only when the provider surely did not act', async () => {
    const unprocessed = { safety: 'unprocessed' as const };
    expect((await run([answer(502), answer(200)], unprocessed)).outcome).toMatchObject({
      response: { status: 502 },
      attempts: 1,
    });
    const reset = new Error('socket hang up');
    expect((await run([reset, answer(200)], unprocessed)).outcome).toBe(reset);
    expect((await run([refusedError(), answer(200)], unprocessed)).outcome).toMatchObject({ attempts: 2 });
    expect(
      (await run([answer(429, { 'retry-after': '1' }), answer(200)], unprocessed)).outcome,
    ).toMatchObject({ attempts: 2 });
  });

  it('throws the last transport error, saying how many attempts were made', async () => {
    const { outcome } = await run([new Error('socket hang up')]);
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as { attempts?: number }).attempts).toBe(3);
  });

  it('starts no retry past the budget (a call that timed out after 30 s is not made again)', async () => {
    let clock = 0;
    const slow = await run([new Error('timeout'), answer(200)], {
      now: () => clock,
      sleep: () => Promise.resolve(),
      // The first attempt "took" 30 s.
      random: () => ((clock = 30_000), 0.5),
    });
    expect(slow.outcome).toBeInstanceOf(Error);
    expect(slow.calls()).toBe(1);
  });
});

describe('backoff and Retry-After', () => {
  it('doubles from the base, jitters by ±25 %, and never passes the cap', () => {
    expect(backoff(DEFAULT_RETRY, 1, () => 0)).toBe(375);
    expect(backoff(DEFAULT_RETRY, 1, () => 1)).toBe(625);
    expect(backoff(DEFAULT_RETRY, 3, () => 0.5)).toBe(2000);
    expect(backoff(DEFAULT_RETRY, 10, () => 0.5)).toBe(5000);
  });

  it('reads delay-seconds and HTTP dates', () => {
    expect(retryAfterMs(answer(503, { 'retry-after': '7' }))).toBe(7000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(answer(503, { 'retry-after': 'Thu, 01 Jan 2026 00:00:04 GMT' }), now)).toBe(4000);
    expect(retryAfterMs(answer(503, { 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(answer(503))).toBeUndefined();
  });
});

/**
 * The RestClient every provider's client is built on, over real HTTP: what a provider's flaky
 * server does to reads, status posts and other writes.
 */
describe('RestClient retries over HTTP', () => {
  let server: Server;
  let root = '';
  let failures: (number | 'close')[] = [];
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const next = failures.shift();
      if (next === 'close') return void req.socket.destroy();
      res.writeHead(next ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(next === undefined ? { ok: true } : { message: 'Server Error' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const client = (port?: number) =>
    new RestClient({
      provider: 'Forge',
      root: port === undefined ? root : `http://127.0.0.1:${port}`,
      transport: createTransport({ skipVerify: false }),
      headers: () => ({}),
      refusal: (call, response) => refusalByStatus('Forge', call, response.status, ''),
      retry: { ...DEFAULT_RETRY, baseDelayMs: 20 },
    });

  it('reads through a closed connection and a 503, and posts a status through a 502', async () => {
    failures = ['close', 503];
    seen.length = 0;
    await client().send('t', 'GET', '/user');
    expect(seen).toEqual(['GET /user', 'GET /user', 'GET /user']);
    failures = [502];
    seen.length = 0;
    await client().send('t', 'POST', '/statuses/abc', { state: 'success' }, STATUS_CALL);
    expect(seen).toEqual(['POST /statuses/abc', 'POST /statuses/abc']);
  });

  it('does not repeat another write the provider may have done, and says how many attempts a failure took', async () => {
    failures = [502];
    seen.length = 0;
    const once = await client()
      .send('t', 'POST', '/hooks', {})
      .catch((e: unknown) => e);
    expect(once).toMatchObject({ code: 'INTERNAL', message: 'Forge POST /hooks: HTTP 502' });
    expect(seen).toHaveLength(1);
    failures = [503, 503, 503];
    const thrice = await client()
      .send('t', 'GET', '/user')
      .catch((e: unknown) => e);
    expect(thrice).toBeInstanceOf(SvcError);
    expect((thrice as SvcError).message).toBe('Forge GET /user: HTTP 503 (after 3 attempts)');
  });

  it('retries a refused connection, even for a write, and reports it as INTERNAL', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await client(port)
      .send('t', 'POST', '/hooks', {})
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INTERNAL' });
    expect((error as Error).message).toMatch(
      /^Forge POST \/hooks: fetch failed.*ECONNREFUSED.*\(after 3 attempts\)$/,
    );
  });

  it('keeps a rate-limit refusal whose reset is far off as RATE_LIMITED, without waiting', async () => {
    const limited = new RestClient({
      provider: 'Forge',
      root,
      transport: () => Promise.resolve(answer(429)),
      headers: () => ({}),
      refusal: (call) => new ScmRateLimitError('Forge', call, new Date(Date.now() + 3600_000)),
    });
    const started = Date.now();
    await expect(limited.send('t', 'GET', '/user')).rejects.toBeInstanceOf(ScmRateLimitError);
    expect(Date.now() - started).toBeLessThan(500);
  });
});
