/*
 * The Bitbucket Server double itself: its OAuth 1.0a verifier (against an independent signer written
 * here), the three-legged dance, paging, the webhook version gate, signed deliveries, rate limiting.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { get as httpsGet } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBitbucketServerDouble, type BitbucketServerDouble } from './index.js';
import { problemOf, receiver, signed } from './test-client.js';

describe('Bitbucket Server double', () => {
  let double: BitbucketServerDouble;
  let alice: { login: string; token: string };
  const api = (path: string) => `${double.url}/rest/api/1.0${path}`;

  beforeAll(async () => {
    double = await startBitbucketServerDouble();
    alice = double.addUser({ login: 'alice', orgAdmin: ['PRJ'] });
    double.addUser({ login: 'bob' });
    for (const name of ['one', 'two', 'three']) double.addRepo({ owner: 'PRJ', name, private: true });
    double.commit('PRJ/one', 'main', { '.drone.yml': 'kind: pipeline\n' }, 'first', 'alice');
  });
  afterAll(() => double.close());

  it('accepts a correctly signed request and names its user', async () => {
    const res = await signed(double, 'GET', `${double.url}/plugins/servlet/applinks/whoami`, {
      token: alice.token,
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('alice');
    expect(res.headers.get('x-ausername')).toBe('alice');
    const user = await signed(double, 'GET', api('/users/alice?avatarSize=32'), { token: alice.token });
    expect(await user.json()).toMatchObject({
      name: 'alice',
      slug: 'alice',
      displayName: 'Alice',
      type: 'NORMAL',
    });
    const anonymous = await fetch(`${double.url}/plugins/servlet/applinks/whoami`);
    expect(await anonymous.text()).toBe('');
  });

  it('refuses a tampered signature, an unknown consumer, an old timestamp and a reused nonce', async () => {
    const tampered = await signed(double, 'GET', api('/repos?limit=2'), {
      token: alice.token,
      signedUrl: api('/repos?limit=1'),
    });
    expect(tampered.status).toBe(401);
    expect(tampered.headers.get('www-authenticate')).toContain('oauth_problem="signature_invalid"');
    expect(await problemOf(tampered)).toBe('signature_invalid');
    const stranger = await signed(double, 'GET', api('/repos'), { token: alice.token, consumerKey: 'other' });
    expect([stranger.status, await problemOf(stranger)]).toEqual([401, 'consumer_key_unknown']);
    const old = await signed(double, 'GET', api('/repos'), {
      token: alice.token,
      timestamp: Math.floor(Date.now() / 1000) - 600,
    });
    expect([old.status, await problemOf(old)]).toEqual([400, 'timestamp_refused']);
    const nonce = randomBytes(8).toString('hex');
    const timestamp = Math.floor(Date.now() / 1000);
    const first = await signed(double, 'GET', api('/repos'), { token: alice.token, nonce, timestamp });
    expect(first.status).toBe(200);
    const again = await signed(double, 'GET', api('/repos'), { token: alice.token, nonce, timestamp });
    expect([again.status, await problemOf(again)]).toEqual([401, 'nonce_used']);
    const unknown = await signed(double, 'GET', api('/repos'), { token: 'nope' });
    expect([unknown.status, await problemOf(unknown)]).toEqual([401, 'token_rejected']);
  });

  it('plays the three-legged dance, with a callback that has a query, and a denial', async () => {
    const callback = 'http://ci.example/login?next=%2F';
    const rejected = await signed(double, 'POST', `${double.url}/plugins/servlet/oauth/request-token`, {
      oauth: { oauth_callback: 'oob' },
    });
    expect([rejected.status, await problemOf(rejected)]).toEqual([400, 'parameter_rejected']);
    const temporary = async () => {
      const res = await signed(double, 'POST', `${double.url}/plugins/servlet/oauth/request-token`, {
        oauth: { oauth_callback: callback },
      });
      expect(res.status).toBe(200);
      const fields = new URLSearchParams(await res.text());
      expect(fields.get('oauth_callback_confirmed')).toBe('true');
      return fields.get('oauth_token') ?? '';
    };
    const exchange = (token: string, verifier: string) =>
      signed(double, 'POST', `${double.url}/plugins/servlet/oauth/access-token`, {
        token,
        oauth: { oauth_verifier: verifier },
      });

    const token = await temporary();
    const early = await exchange(token, 'abcdef');
    expect(await problemOf(early)).toBe('permission_unknown');
    const page = await fetch(`${double.url}/plugins/servlet/oauth/authorize?oauth_token=${token}&login=bob`, {
      redirect: 'manual',
    });
    expect(page.status).toBe(302);
    const back = new URL(page.headers.get('location') ?? '');
    expect(back.href.startsWith(`${callback}&oauth_token=`)).toBe(true);
    expect(back.searchParams.get('oauth_token')).toBe(token);
    const granted = await exchange(token, back.searchParams.get('oauth_verifier') ?? '');
    expect(granted.status).toBe(200);
    const access = new URLSearchParams(await granted.text());
    expect(access.get('oauth_expires_in')).toBe('157680000');
    expect(access.get('oauth_authorization_expires_in')).toBe('160272000');
    const me = await signed(double, 'GET', `${double.url}/plugins/servlet/applinks/whoami`, {
      token: access.get('oauth_token') ?? '',
    });
    expect(await me.text()).toBe('bob');
    expect(await problemOf(await exchange(token, 'again'))).toBe('token_rejected');

    const refused = await temporary();
    const denied = await double.authorize(
      `${double.url}/plugins/servlet/oauth/authorize?oauth_token=${refused}`,
      'bob',
      { deny: true },
    );
    expect(denied.searchParams.get('oauth_verifier')).toBe('denied');
    const no = await exchange(refused, 'denied');
    expect([no.status, await problemOf(no)]).toEqual([401, 'permission_denied']);
  });

  it('pages with nextPageStart and hides private repositories from outsiders', async () => {
    const first = await signed(double, 'GET', api('/repos?permission=REPO_READ&limit=2'), {
      token: alice.token,
    });
    expect(await first.json()).toMatchObject({
      size: 2,
      limit: 2,
      isLastPage: false,
      start: 0,
      nextPageStart: 2,
    });
    const last = await signed(double, 'GET', api('/repos?permission=REPO_READ&limit=2&start=2'), {
      token: alice.token,
    });
    const page = (await last.json()) as Record<string, unknown>;
    expect(page).toMatchObject({ size: 1, isLastPage: true, start: 2 });
    expect(page).not.toHaveProperty('nextPageStart');
    const carol = double.addUser({ login: 'carol' });
    const hidden = await signed(double, 'GET', api('/projects/PRJ/repos/one'), { token: carol.token });
    expect(hidden.status).toBe(404);
    expect(await hidden.json()).toMatchObject({
      errors: [{ exceptionName: 'com.atlassian.bitbucket.repository.NoSuchRepositoryException' }],
    });
    const repo = await signed(double, 'GET', api('/projects/PRJ/repos/one'), { token: alice.token });
    const body = (await repo.json()) as { links: { clone: { name: string; href: string }[] } };
    expect(body.links.clone.find((l) => l.name === 'http')?.href).toBe(
      `${double.url.replace('//', '//alice@')}/scm/prj/one.git`,
    );
    const raw = await signed(double, 'GET', api('/projects/PRJ/repos/one/raw/.drone.yml?at=main'), {
      token: alice.token,
    });
    expect(await raw.text()).toBe('kind: pipeline\n');
  });

  it('shows a personal repository under its ~USER project', async () => {
    double.addRepo({ owner: '~alice', name: 'dots', private: true });
    const res = await signed(double, 'GET', api('/projects/~ALICE/repos/dots'), { token: alice.token });
    expect(await res.json()).toMatchObject({
      slug: 'dots',
      project: { key: '~ALICE', type: 'PERSONAL', owner: { slug: 'alice' } },
      links: { self: [{ href: `${double.url}/users/alice/repos/dots/browse` }] },
    });
    const form = await signed(double, 'POST', `${double.url}/plugins/servlet/oauth/request-token`, {
      oauth: { oauth_callback: 'https://ci.example/cb' },
      form: { note: 'a b+c' },
    });
    expect(form.status).toBe(200);
  });

  it('signs deliveries with HMAC-SHA256 of the hook secret and posts build statuses', async () => {
    const hook = await receiver();
    try {
      const created = await signed(double, 'POST', api('/projects/PRJ/repos/two/webhooks'), {
        token: alice.token,
        json: {
          name: 'svc',
          url: hook.url,
          active: true,
          events: ['repo:refs_changed', 'pr:opened', 'pr:from_ref_updated'],
          configuration: { secret: 's3cret' },
        },
      });
      expect(created.status).toBe(201);
      double.commit('PRJ/two', 'main', { a: '1' }, 'one', 'alice');
      expect(await double.push('PRJ/two', 'main', hook.url)).toBe(200);
      const [delivery] = hook.got;
      const expected = createHmac('sha256', 's3cret')
        .update(delivery?.body ?? '')
        .digest('hex');
      expect(delivery?.headers['x-hub-signature']).toBe(`sha256=${expected}`);
      expect(delivery?.headers['x-event-key']).toBe('repo:refs_changed');
      const payload = JSON.parse(delivery?.body ?? '{}') as { date: string; changes: { type: string }[] };
      expect(payload.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000$/);
      expect(payload.changes[0]?.type).toBe('ADD');

      double.commit('PRJ/two', 'feature', { b: '2' }, 'two', 'alice');
      const opened = await double.pullRequest('PRJ/two', 'feature', hook.url);
      const sha = double.commit('PRJ/two', 'feature', { b: '3' }, 'three', 'alice');
      const updated = await double.updatePullRequest('PRJ/two', opened.id, hook.url);
      expect(updated).toEqual({ sha, status: 200 });
      const last = JSON.parse(hook.got.at(-1)?.body ?? '{}') as Record<string, unknown>;
      expect(last).toMatchObject({ eventKey: 'pr:from_ref_updated', previousFromHash: opened.sha });

      const posted = await signed(double, 'POST', `${double.url}/rest/build-status/1.0/commits/${sha}`, {
        token: alice.token,
        json: { state: 'INPROGRESS', key: 'svc', url: 'http://ci/1' },
      });
      expect(posted.status).toBe(204);
      expect(double.statuses(sha)).toEqual([
        { state: 'INPROGRESS', key: 'svc', name: '', url: 'http://ci/1', description: '' },
      ]);
    } finally {
      await hook.close();
    }
  });

  it('answers 429 while rate limited, and records unknown calls', async () => {
    const ghost = await signed(double, 'GET', api('/nothing-here'), { token: alice.token });
    expect(ghost.status).toBe(404);
    expect(double.unknownCalls()).toContain('GET /rest/api/1.0/nothing-here');
    double.exhaustRateLimit(new Date(Date.now() + 30_000));
    const limited = await signed(double, 'GET', api('/repos'), { token: alice.token });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(25);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    double.exhaustRateLimit(new Date(0));
  });

  it('expires access tokens with its clock', async () => {
    const dave = double.addUser({ login: 'dave' });
    double.advance(157_680_001_000);
    const res = await signed(double, 'GET', api('/repos'), {
      token: dave.token,
      timestamp: Math.floor((Date.now() + 157_680_001_000) / 1000),
    });
    expect([res.status, await problemOf(res)]).toEqual([401, 'token_expired']);
  });
});

describe('Bitbucket Server double variants', () => {
  it('rejects pr:from_ref_updated when creating a webhook before 7.0', async () => {
    const old = await startBitbucketServerDouble({ version: '6.10.0' });
    try {
      const { token } = old.addUser({ login: 'admin', orgAdmin: ['PRJ'] });
      old.addRepo({ owner: 'PRJ', name: 'repo' });
      const res = await signed(old, 'POST', `${old.url}/rest/api/1.0/projects/PRJ/repos/repo/webhooks`, {
        token,
        json: { name: 'svc', url: 'http://ci/hook', events: ['repo:refs_changed', 'pr:from_ref_updated'] },
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        errors: [
          {
            context: 'events[1].id',
            message: 'the event pr:from_ref_updated is unknown',
            exceptionName: null,
          },
        ],
      });
    } finally {
      await old.close();
    }
  });

  it('serves https with a self-signed certificate', async () => {
    const secure = await startBitbucketServerDouble({ https: true });
    try {
      expect(secure.url).toMatch(/^https:/);
      const status = await new Promise<number>((resolve, reject) =>
        httpsGet(`${secure.url}/plugins/servlet/applinks/whoami`, { rejectUnauthorized: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).on('error', reject),
      );
      expect(status).toBe(200);
    } finally {
      await secure.close();
    }
  });
});
