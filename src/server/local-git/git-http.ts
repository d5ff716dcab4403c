import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ForgeAccount, ForgeRepo } from '../../scm/local/forge-state.js';
import { raisePushHooks } from '../../scm/local/forge-ops.js';
import { GIT_ENV } from '../../scm/local/git-repo.js';
import type { LocalGitProvider } from '../../scm/local/provider.js';
import { parseCgiHead } from './cgi.js';
import { authenticateGit, type GitCredentialDeps } from './git-auth.js';

/** What the built-in provider's git endpoint needs. */
export interface GitHttpDeps extends GitCredentialDeps {
  readonly provider: LocalGitProvider;
  /** svc's address, for the links in the pushes' webhooks. */
  readonly publicUrl: string;
}

const SERVICES = new Set(['git-upload-pack', 'git-receive-pack']);

/**
 * Git's Smart HTTP protocol for the built-in provider's repositories, at `/git/<owner>/<name>.git`,
 * served by the real `git http-backend` (CGI): clone and fetch need read access (anonymous for a
 * public repository), push needs write access. Credentials are HTTP basic: the account's password,
 * or an access token — the provider's own or the account's svc API token — as the password. When a
 * push has landed, the repository's webhooks are raised from the refs it changed.
 */
export function gitHttpRoutes(app: FastifyInstance, deps: GitHttpDeps): void {
  void app.register((scope, _options, done) => {
    // The packs go to git as they arrive, never buffered whole: a push may be hundreds of megabytes.
    scope.addContentTypeParser(
      ['application/x-git-upload-pack-request', 'application/x-git-receive-pack-request'],
      (_request, payload, parsed) => parsed(null, payload),
    );
    scope.get('/git/:owner/:repo/info/refs', (request, reply) => {
      const service = (request.query as { service?: string }).service ?? '';
      return serve(request, reply, deps, service);
    });
    for (const service of SERVICES) {
      scope.post(`/git/:owner/:repo/${service}`, (request, reply) => serve(request, reply, deps, service));
    }
    done();
  });
}

async function serve(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GitHttpDeps,
  service: string,
): Promise<void> {
  const { owner, repo: raw } = request.params as { owner: string; repo: string };
  const name = raw.replace(/\.git$/, '');
  if (!SERVICES.has(service)) {
    return void reply.code(403).type('text/plain').send('svc serves git over the smart HTTP protocol only\n');
  }
  const repo = deps.provider.state.repo(owner, name);
  const account = await authenticateGit(request.headers.authorization, deps);
  if (account === 'refused') return challenge(reply, 'wrong user name, password or token\n');
  const needs = service === 'git-receive-pack' ? 'write' : 'read';
  const role = repo === undefined ? undefined : deps.provider.roleOf(account, repo);
  if (repo === undefined || role === undefined) {
    // Unknown and private look the same to whoever may not read them.
    if (account === undefined) return challenge(reply, 'log in to reach this repository\n');
    return void reply.code(404).type('text/plain').send(`repository ${owner}/${name} not found\n`);
  }
  if (needs === 'write' && role === 'read') {
    if (account === undefined) return challenge(reply, 'log in to push\n');
    return void reply
      .code(403)
      .type('text/plain')
      .send(`${account.login} may not push to ${repo.owner}/${repo.name}\n`);
  }
  await runBackend(request, reply, deps, repo, account, service);
}

function challenge(reply: FastifyReply, message: string): void {
  void reply
    .code(401)
    .header('www-authenticate', 'Basic realm="svc git", charset="UTF-8"')
    .type('text/plain')
    .send(message);
}

async function runBackend(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GitHttpDeps,
  repo: ForgeRepo,
  account: ForgeAccount | undefined,
  service: string,
): Promise<void> {
  const git = deps.provider.repository(repo);
  const pushing = request.method === 'POST' && service === 'git-receive-pack';
  const before = pushing ? await git.refs() : undefined;
  // The path git-http-backend serves, from the route matched, never from the raw URL.
  const rest = request.method === 'GET' ? '/info/refs' : `/${service}`;
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      ...GIT_ENV,
      GIT_PROJECT_ROOT: join(git.path, '..', '..'),
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: `/${repo.owner}/${repo.name}.git${rest}`,
      REQUEST_METHOD: request.method,
      QUERY_STRING: new URL(request.url, 'http://svc').search.slice(1),
      CONTENT_TYPE: request.headers['content-type'] ?? '',
      HTTP_CONTENT_ENCODING: request.headers['content-encoding'] ?? '',
      GIT_PROTOCOL: String(request.headers['git-protocol'] ?? ''),
      REMOTE_ADDR: request.ip,
      // http-backend takes pushes only from an authenticated user: the check above is svc's.
      ...(account === undefined ? {} : { REMOTE_USER: account.login }),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  reply.hijack();
  const response = reply.raw;
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const body = request.body as Readable | undefined;
  if (body !== undefined && typeof body.pipe === 'function') body.pipe(child.stdin);
  else child.stdin.end();
  child.stdin.on('error', () => undefined);
  const head = await parseCgiHead(child.stdout).catch(() => undefined);
  if (head === undefined) {
    child.kill();
    request.log.error({ stderr }, 'git http-backend answered nothing');
    if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
    response.end('git failed\n');
    return;
  }
  response.writeHead(head.status, head.headers);
  response.write(head.rest);
  child.stdout.pipe(response);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0)
    request.log.warn({ code, stderr, repo: `${repo.owner}/${repo.name}` }, 'git http-backend failed');
  if (before !== undefined && account !== undefined) {
    const after = await git.refs();
    const link = `${deps.publicUrl.replace(/\/+$/, '')}/${repo.owner}/${repo.name}`;
    void raisePushHooks(deps.provider, repo, account.login, before, after, link).then(
      (sent) => {
        for (const { ref, statuses } of sent)
          if (statuses.some((status) => status !== 200 && status !== 204))
            request.log.warn({ ref, statuses }, 'a webhook of the push was not taken');
      },
      (error: unknown) => request.log.error({ err: error }, 'raising the webhooks of a push failed'),
    );
  }
}
