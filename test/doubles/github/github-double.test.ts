import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScmHookRequest } from '../../../src/core/scm.js';
import { createGitHubProvider } from '../../../src/scm/github/index.js';
import { startReceiver } from '../../../src/scm/provider-harness.case.js';
import { startGitHubDouble, type GitHubDouble } from './index.js';

/*
 * The double's own behaviour where the provider contract does not reach: payload shapes next to
 * real ones, the deliveries other suites use, and the documented refusals.
 */
const examplesFile = createRequire(import.meta.url).resolve(
  '@octokit/webhooks-examples/api.github.com/index.json',
);
const definitions = JSON.parse(readFileSync(examplesFile, 'utf8')) as {
  name: string;
  examples: Record<string, unknown>[];
}[];

function realKeys(event: string, pick: (p: Record<string, unknown>) => boolean): string[] {
  const payload = definitions.find((d) => d.name === event)?.examples.find(pick);
  if (payload === undefined) throw new Error(`no ${event} example`);
  return Object.keys(payload);
}

const json = (request: ScmHookRequest | undefined) => {
  if (request === undefined) throw new Error('no delivery arrived');
  return JSON.parse(request.body.toString('utf8')) as Record<string, unknown>;
};

describe('GitHub double', () => {
  let double: GitHubDouble;
  let token: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${double.apiUrl}${path}`, {
      ...init,
      headers: { authorization: `token ${token}`, 'content-type': 'application/json', ...init.headers },
    });

  beforeAll(async () => {
    double = await startGitHubDouble();
    receiver = await startReceiver();
    token = double.addUser({ login: 'alice' }).token;
    double.addUser({ login: 'mallory' });
    double.addRepo({ owner: 'alice', name: 'demo' });
    double.addRepo({ owner: 'mallory', name: 'demo' });
    double.addRepo({ owner: 'alice', name: 'hidden', private: true });
    double.commit('alice/demo', 'main', { 'README.md': 'hi' }, 'first');
    const hook = await api('/repos/alice/demo/hooks', {
      method: 'POST',
      body: JSON.stringify({
        name: 'web',
        events: ['push', 'pull_request'],
        config: { url: receiver.url, content_type: 'json', secret: 'shh' },
      }),
    });
    expect(hook.status).toBe(201);
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
    await double.close();
  });

  it('sends push payloads with the keys of real ones, signed both ways', async () => {
    expect(await double.push('alice/demo', 'main', receiver.url)).toBe(204);
    const request = receiver.requests.at(-1);
    const payload = json(request);
    for (const key of realKeys('push', (p) => p.ref === 'refs/heads/master')) {
      if (key !== 'installation') expect(payload).toHaveProperty(key);
    }
    const body = request?.body ?? Buffer.alloc(0);
    expect(request?.headers['x-hub-signature-256']).toBe(
      `sha256=${createHmac('sha256', 'shh').update(body).digest('hex')}`,
    );
    expect(request?.headers['x-hub-signature']).toBe(
      `sha1=${createHmac('sha1', 'shh').update(body).digest('hex')}`,
    );
    expect(request?.headers['x-github-event']).toBe('push');
    expect(request?.headers['x-github-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    expect(payload).toMatchObject({ ref: 'refs/heads/main', created: true, before: '0'.repeat(40) });
  });

  it('reports the previous head as `before` once the branch exists', async () => {
    const first = await fetch(`${double.apiUrl}/repos/alice/demo/branches/main`).then(
      (r) => r.json() as Promise<{ commit: { sha: string } }>,
    );
    const second = double.commit('alice/demo', 'main', { 'README.md': 'hello' });
    await double.push('alice/demo', 'main', receiver.url);
    expect(json(receiver.requests.at(-1))).toMatchObject({
      before: first.commit.sha,
      after: second,
      created: false,
      head_commit: { id: second, modified: ['README.md'] },
    });
  });

  it('sends tag pushes and pull requests, fork heads readable from the base repository', async () => {
    const scm = createGitHubProvider({
      clientId: double.clientId,
      clientSecret: double.clientSecret,
      scopes: [],
      server: double.url,
      apiUrl: double.apiUrl,
      skipVerify: false,
      gitAlwaysAuth: false,
      gitUsername: null,
      gitPassword: null,
    });
    const secretOf = () => Promise.resolve('shh');
    const tagged = double.tag('alice/demo', 'v1.0.0');
    await double.pushTag('alice/demo', 'v1.0.0', receiver.url);
    const tag = await scm.parseHook(
      receiver.requests.at(-1) ?? { headers: {}, body: Buffer.alloc(0) },
      secretOf,
    );
    expect(tag).toMatchObject({
      kind: 'build',
      build: { event: 'tag', after: tagged, ref: 'refs/tags/v1.0.0' },
    });

    const forkSha = double.commit('mallory/demo', 'patch', { 'evil.txt': 'x' });
    const pr = await double.pullRequest('alice/demo', 'patch', receiver.url, { fork: 'mallory/demo' });
    expect(pr).toMatchObject({ number: 1, sha: forkSha, status: 204 });
    const payload = json(receiver.requests.at(-1));
    for (const key of realKeys('pull_request', (p) => p.action === 'opened')) {
      if (key !== 'installation') expect(payload).toHaveProperty(key);
    }
    const built = await scm.parseHook(
      receiver.requests.at(-1) ?? { headers: {}, body: Buffer.alloc(0) },
      secretOf,
    );
    expect(built).toMatchObject({
      kind: 'build',
      build: {
        event: 'pull_request',
        fork: true,
        sourceRepo: 'mallory/demo',
        after: forkSha,
        ref: 'refs/pull/1/head',
      },
    });
    const ownerToken = { token, refresh: '', expiry: 0 };
    expect(
      await scm.fileContents(ownerToken, { namespace: 'alice', name: 'demo' }, 'evil.txt', forkSha),
    ).toBe('x');
  });

  it('refuses to deliver what the hook does not subscribe to', async () => {
    double.addRepo({ owner: 'alice', name: 'quiet' });
    double.commit('alice/quiet', 'main', { a: '1' });
    await expect(double.push('alice/quiet', 'main', receiver.url)).rejects.toThrow(/no hook/);
    expect(await double.push('alice/quiet', 'main', receiver.url, { secret: 'given' })).toBe(204);
  });

  it('validates hooks as GitHub does', async () => {
    const post = (body: unknown) =>
      api('/repos/alice/demo/hooks', { method: 'POST', body: JSON.stringify(body) });
    expect((await post({ config: { url: receiver.url } })).status).toBe(422);
    expect((await post({ config: {} })).status).toBe(422);
    expect((await post({ config: { url: 'https://x.example/h' }, events: ['bogus'] })).status).toBe(422);
    expect((await api('/repos/alice/demo/hooks', { method: 'POST', body: '{' })).status).toBe(400);
    const list = (await (await api('/repos/alice/demo/hooks')).json()) as {
      config: Record<string, string>;
    }[];
    expect(list.map((h) => h.config)).toEqual([
      { url: receiver.url, content_type: 'json', insecure_ssl: '0', secret: '********' },
    ]);
  });

  it('pages lists with Link headers and reports rate limits on every answer', async () => {
    const pat = double.addUser({ login: 'pat' }).token;
    for (const name of ['a', 'b', 'c']) double.addRepo({ owner: 'pat', name });
    const response = await fetch(`${double.apiUrl}/user/repos?per_page=1&page=2`, {
      headers: { authorization: `token ${pat}` },
    });
    expect(((await response.json()) as { full_name: string }[]).map((r) => r.full_name)).toEqual(['pat/b']);
    expect(response.headers.get('link')).toBe(
      [
        `<${double.apiUrl}/user/repos?per_page=1&page=1>; rel="prev"`,
        `<${double.apiUrl}/user/repos?per_page=1&page=3>; rel="next"`,
        `<${double.apiUrl}/user/repos?per_page=1&page=3>; rel="last"`,
        `<${double.apiUrl}/user/repos?per_page=1&page=1>; rel="first"`,
      ].join(', '),
    );
    expect(Number(response.headers.get('x-ratelimit-remaining'))).toBeLessThan(5000);
    expect(response.headers.get('x-ratelimit-limit')).toBe('5000');
  });

  it('hides private repositories from anonymous callers and refuses unknown tokens', async () => {
    expect((await fetch(`${double.apiUrl}/repos/alice/hidden`)).status).toBe(404);
    expect((await fetch(`${double.apiUrl}/repos/alice/demo`)).status).toBe(200);
    const bad = await fetch(`${double.apiUrl}/user`, { headers: { authorization: 'Bearer nope' } });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ message: 'Bad credentials' });
    expect((await fetch(`${double.apiUrl}/user`)).status).toBe(401);
  });

  it('answers the token exchange form-encoded unless JSON is asked for', async () => {
    const response = await fetch(`${double.url}/login/oauth/access_token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${double.clientId}:${double.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ code: double.authorizationCode('alice') }).toString(),
    });
    const answer = new URLSearchParams(await response.text());
    expect(answer.get('access_token')).toMatch(/^gho_/);
    expect(answer.get('token_type')).toBe('bearer');
  });

  it('answers injected failures to matching requests, for a number of times or until it recovers', async () => {
    double.fail({ method: 'GET', path: '/user', answer: 503, retryAfter: 7, times: 1 });
    double.fail({ method: 'POST', path: '/statuses/', answer: 'close' });
    const failed = await api('/user');
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('7');
    expect(await failed.json()).toEqual({ message: 'Service Unavailable' });
    expect((await api('/user')).status).toBe(200);
    await expect(api('/repos/alice/x/statuses/abc', { method: 'POST', body: '{}' })).rejects.toThrow();
    double.recover();
    expect((await api('/repos/alice/x/statuses/abc', { method: 'POST', body: '{}' })).status).toBe(404);
    expect(double.faultHits().map((hit) => [hit.method, hit.answer])).toEqual([
      ['GET', 503],
      ['POST', 'close'],
    ]);
  });
});
