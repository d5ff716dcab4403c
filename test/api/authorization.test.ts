/*
 * The authorization matrix: every route of the API's table, sent by every kind of caller, must
 * answer as its declared access rule says — the denial status for callers the rule keeps out,
 * anything but a denial for those it lets in. Generated from the table, so a new route is covered
 * the moment it exists, and a route registered outside the table fails the first test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Access, ApiRoute } from '../../src/server/api/index.js';
import { hashApiToken } from '../../src/server/auth/api-token.js';
import { enable, loginAs, tokenOf } from './client.js';
import { testDialects } from '../support/databases.js';
import { startHarness, type Harness } from './harness.js';
import { fillPath, send, type Sent } from './matrix-request.js';
import { stageSource, upload } from './artifacts-support.js';

type Who = 'anonymous' | 'outsider' | 'reader' | 'writer' | 'repoAdmin' | 'machine' | 'svcAdmin';
const EVERYONE: readonly Who[] = [
  'anonymous',
  'outsider',
  'reader',
  'writer',
  'repoAdmin',
  'machine',
  'svcAdmin',
];
type Visibility = 'private' | 'public';
type Expected = 'allow' | 401 | 403 | 404;

/** What a rule answers `who` (for repository rules, on a repository of that visibility). */
function expected(access: Access, who: Who, visibility: Visibility): Expected {
  if (access.kind === 'anyone') return 'allow';
  if (access.kind === 'repo' && access.need === 'read' && visibility === 'public') return 'allow';
  if (who === 'anonymous') return 401;
  switch (access.kind) {
    case 'user':
      return 'allow';
    case 'admin':
      return who === 'svcAdmin' ? 'allow' : 403;
    case 'namespace':
      // The namespace of the matrix is the organization `acme`, whose members svc does not know.
      return who === 'svcAdmin' ? 'allow' : 404;
    case 'repo': {
      const rank = { read: 1, write: 2, admin: 3 }[access.need];
      if (access.atProvider === true) {
        // Asked afresh at the provider: svc administrators are nobody special, machine accounts cannot.
        if (who === 'machine') return 403;
        if (who === 'svcAdmin' || who === 'outsider') return visibility === 'private' ? 404 : 403;
      } else if (who === 'svcAdmin') return 'allow';
      const has = { outsider: 0, machine: 0, svcAdmin: 0, reader: 1, writer: 2, repoAdmin: 3 }[who];
      if (has >= rank) return 'allow';
      const canRead = has >= 1 || visibility === 'public';
      return canRead ? 403 : 404;
    }
  }
}

const PIPELINE = `kind: pipeline
type: docker
name: build
steps:
- name: test
  image: busybox
  commands: [echo ok]
`;

// On every database: every route's answer, and its schema, must not depend on the SQL dialect.
for (const dialect of testDialects()) {
  describe.skipIf(dialect.skip)(`authorization matrix on ${dialect.name}`, () => {
    let h: Harness;
    const tokens = new Map<Who, string>();
    beforeAll(async () => {
      h = await startHarness({ dialect });
      const logins: Partial<Record<Who, string>> = {
        outsider: 'outsider',
        reader: 'reader',
        writer: 'writer',
        repoAdmin: 'boss',
        svcAdmin: 'root',
      };
      for (const login of Object.values(logins)) h.github.addUser({ login });
      for (const name of ['private', 'public']) {
        h.github.addRepo({
          owner: 'acme',
          name,
          private: name === 'private',
          admins: ['boss'],
          writers: ['writer'],
          readers: ['reader'],
        });
      }
      for (const [who, login] of Object.entries(logins) as [Who, string][]) {
        const session = await loginAs(h, login);
        tokens.set(who, await tokenOf(h, session));
        if (who === 'repoAdmin') {
          for (const name of ['private', 'public']) {
            await enable(h, session, `acme/${name}`);
            h.github.commit(`acme/${name}`, 'main', { '.drone.yml': PIPELINE }, 'first');
            expect(await h.github.push(`acme/${name}`, 'main', `${h.url}/hook`)).toBe(200);
          }
        }
      }
      // A cron job in each repository, so that the cron routes answer admitted callers with a job.
      for (const name of ['private', 'public']) {
        const repo = await h.store.repos.findSlug('acme', name);
        if (repo === undefined) throw new Error(`acme/${name} is not enabled`);
        const cron = { name: 'nightly', expr: '@daily', next: Date.now() + 86_400_000, prev: 0 };
        await h.store.crons.create({
          ...cron,
          repoId: repo.id,
          event: 'push',
          branch: 'main',
          target: '',
          disabled: false,
        });
        // And a build cache, so that the list's answer is checked against its schema with an entry.
        const now = Date.now();
        await h.store.caches.put({
          repoId: repo.id,
          scope: 'refs/heads/main',
          key: 'npm-abc',
          size: 3,
          blob: `caches/${repo.id}/matrix`,
          created: now,
          used: now,
        });
        // And an artifact of build 1 with one file (ids 1 and 2: matrix-request.ts fills them in).
        await upload(h, await stageSource(h, `acme/${name}`, 1, 1), 'binaries', [
          { path: 'dist/app.txt', content: 'ok' },
        ]);
      }
      const root = await h.store.users.findLogin('root');
      if (root === undefined) throw new Error('root did not log in');
      await h.store.users.update({ ...root, admin: true });
      await h.store.users.create({
        login: 'robot',
        email: '',
        avatar: '',
        machine: true,
        admin: false,
        active: true,
        tokenHash: hashApiToken('r'.repeat(32)),
        scmToken: '',
        scmRefresh: '',
        scmExpiry: 0,
        scmUid: '',
        lastLogin: 0,
      });
      tokens.set('machine', 'r'.repeat(32));
      // Everyone asks for their repositories once, so that svc knows their permissions.
      for (const who of ['outsider', 'reader', 'writer', 'repoAdmin'] as const) {
        expect((await send(h, 'GET', '/api/user/repos', tokens.get(who))).status).toBe(200);
      }
    });
    afterAll(() => h.close());

    it('covers every API route the server registers, and every route declares a rule', () => {
      const table = new Set(h.routes.map((r) => `${r.method} ${r.path}`));
      const api = h.registered.filter((r) => r.url.startsWith('/api') && r.method !== 'HEAD');
      expect(api.length).toBeGreaterThan(0);
      for (const r of api)
        expect(table, `${r.method} ${r.url} is not in the route table`).toContain(`${r.method} ${r.url}`);
      for (const r of h.routes)
        expect(['anyone', 'user', 'admin', 'repo', 'namespace']).toContain(r.access.kind);
    });

    it('answers every caller of every route as the route’s rule says', async () => {
      const failures: string[] = [];
      for (const route of h.routes) {
        const visibilities: Visibility[] = route.path.includes(':owner')
          ? ['private', 'public']
          : ['private'];
        for (const visibility of visibilities) {
          const path = fillPath(route.path, visibility);
          // Denied callers first: a denial changes nothing, so the one allowed call may act last.
          const order = [...EVERYONE].sort(
            (a, b) => allowedFirst(route, a, visibility) - allowedFirst(route, b, visibility),
          );
          for (const who of order) {
            const want = expected(route.access, who, visibility);
            const got = await send(h, route.method, path, tokens.get(who));
            const problem = judge(route, want, got);
            if (problem !== undefined) failures.push(`${route.method} ${path} as ${who}: ${problem}`);
          }
        }
      }
      expect(failures).toEqual([]);
    });
  });

  function allowedFirst(route: ApiRoute, who: Who, visibility: Visibility): number {
    return expected(route.access, who, visibility) === 'allow' ? 1 : 0;
  }

  /** Undefined when the answer fits the rule; else what is wrong with it. */
  function judge(route: ApiRoute, want: Expected, got: Sent): string | undefined {
    if (want !== 'allow') {
      return got.status === want
        ? undefined
        : `expected ${want}, got ${got.status} ${got.text.slice(0, 200)}`;
    }
    if (got.status === 401 || got.status === 403)
      return `expected to be let in, got ${got.status} ${got.text}`;
    if (got.status === 404 && /^(repository|namespace)\b/.test(got.message))
      return `expected to be let in, got 404 ${got.message}`;
    if (got.status >= 500) return `server error ${got.status} ${got.text.slice(0, 200)}`;
    const { schema } = route.response;
    if (got.status === (route.response.status ?? 200) && schema !== undefined && got.json !== undefined) {
      const parsed = schema.safeParse(got.json);
      if (!parsed.success)
        return `answer does not match the route's schema: ${parsed.error.message.slice(0, 500)}`;
    }
    return undefined;
  }
}
