import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ForbiddenError } from '../../core/errors.js';
import { addSamplePipeline, createAccount, createRepository } from '../../scm/local/forge-ops.js';
import { GIT_ENV } from '../../scm/local/git-repo.js';
import { LocalGitProvider } from '../../scm/local/provider.js';
import { handleError } from '../http-errors.js';
import { localRefsRoute } from './refs-route.js';

describe('GET /api/local/repos/:owner/:name/refs', async () => {
  const provider = new LocalGitProvider({
    root: mkdtempSync(join(tmpdir(), 'svc-refs-route-')),
    publicUrl: 'http://ci.local:8080',
    gitAlwaysAuth: false,
    gitUsername: null,
    gitPassword: null,
  });
  const ada = await createAccount(provider, { login: 'ada', password: 'ada-password-1', admin: false });
  const bob = await createAccount(provider, { login: 'bob', password: 'bob-password-1', admin: false });
  const repo = await createRepository(provider, ada, { name: 'hello', private: true });
  const first = await addSamplePipeline(provider, repo, ada, 'alpine:3', 'http://ci.local:8080/ada/hello');
  const gitDir = provider.repository(repo).path;
  const git = (...args: string[]) =>
    execFileSync('git', ['--git-dir', gitDir, ...args], {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        ...GIT_ENV,
        GIT_COMMITTER_NAME: 'a',
        GIT_COMMITTER_EMAIL: 'a@b',
      },
    }).trim();
  git('tag', '-a', '-m', 'the first release', 'v1', first);
  // Statuses as svc posts them: the newest of each context is the one shown.
  for (const [context, state] of [
    ['continuous-integration/svc/push', 'pending'],
    ['continuous-integration/svc/push', 'success'],
    ['continuous-integration/svc/tag', 'failure'],
  ] as const)
    provider.state.putStatus(repo.id, { sha: first, context, state, description: state, targetUrl: 'u' });

  const app = Fastify({ logger: false });
  app.setErrorHandler(handleError);
  // The caller by a header here; the server takes it from the session (caller-account.ts).
  localRefsRoute(app, provider, (request) => {
    const account = provider.state.account(String(request.headers['x-login']));
    return account === undefined
      ? Promise.reject(new ForbiddenError('no account'))
      : Promise.resolve(account);
  });
  const get = (login: string, path = '/api/local/repos/ada/hello/refs') =>
    app.inject({ method: 'GET', url: path, headers: { 'x-login': login } });

  it('lists branches and tags with their commits and the newest status of each context', async () => {
    const answer = await get(ada.login);
    expect(answer.statusCode, answer.body).toBe(200);
    const refs =
      answer.json<{ name: string; kind: string; sha: string; subject: string; statuses: unknown[] }[]>();
    expect(refs.map((ref) => [ref.name, ref.kind, ref.sha, ref.subject]).sort()).toEqual([
      ['main', 'branch', first, 'Add a sample pipeline'],
      ['v1', 'tag', first, 'Add a sample pipeline'],
    ]);
    const main = refs.find((ref) => ref.name === 'main');
    expect(main?.statuses).toEqual([
      expect.objectContaining({ context: 'continuous-integration/svc/tag', state: 'failure' }),
      expect.objectContaining({ context: 'continuous-integration/svc/push', state: 'success' }),
    ]);
  });

  it('tells someone who may not read the repository nothing, not even that it exists', async () => {
    const hidden = await get(bob.login);
    const missing = await get(bob.login, '/api/local/repos/ada/nothing/refs');
    expect([hidden.statusCode, missing.statusCode]).toEqual([404, 404]);
    expect(hidden.json()).toEqual({ ...missing.json(), message: expect.any(String) as unknown });
    expect(hidden.body).not.toContain('sample');
  });
});
