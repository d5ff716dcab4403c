/*
 * Templates through HTTP, as Drone's API has them (handler/api/template, handler/api/api.go):
 * membership asked from the git provider (the GitHub double's organization members and
 * administrators), every rule tried by someone it should stop, and a template added through the
 * API rendered into a build of a repository of its namespace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, enable, loginAs, tokenOf, type Answer } from './client.js';
import { startHarness, type Harness } from './harness.js';

const PLUGIN = `kind: pipeline
type: docker
name: {{ .input.name }}
steps:
- name: test
  image: {{ .input.image }}
  commands: [{{ range .input.commands }}"{{ . }}", {{ end }}]
`;

describe('templates', () => {
  let h: Harness;
  const tokens: Record<string, string> = {};
  const as = (who: string, method: string, path: string, body?: unknown): Promise<Answer> =>
    call(h, path, { method, token: tokens[who], body });

  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'owner', orgAdmin: ['acme', 'beta'] });
    h.github.addUser({ login: 'member', orgs: ['acme'] });
    h.github.addUser({ login: 'stranger', orgs: ['other-org'] });
    h.github.addUser({ login: 'root' });
    for (const login of ['owner', 'member', 'stranger', 'root'])
      tokens[login] = await tokenOf(h, await loginAs(h, login));
    const root = await h.store.users.findLogin('root');
    await h.store.users.update({ ...root!, admin: true });
  });
  afterAll(() => h.close());

  it('lets the namespace’s administrators add, change and delete, and its members read', async () => {
    const created = await as('owner', 'POST', '/api/templates/acme', { name: 'plugin.yaml', data: PLUGIN });
    expect(created.status, created.text).toBe(200);
    expect(created.json).toEqual({
      id: expect.any(Number) as unknown,
      namespace: 'acme',
      name: 'plugin.yaml',
      data: PLUGIN,
      created: expect.any(Number) as unknown,
      updated: expect.any(Number) as unknown,
    });
    const listed = await as('member', 'GET', '/api/templates/acme');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json).toEqual([created.json]);
    const found = await as('member', 'GET', '/api/templates/acme/plugin.yaml');
    expect(found.json).toEqual(created.json);

    for (const [method, path, body] of [
      ['POST', '/api/templates/acme', { name: 'mine.yaml', data: 'x' }],
      ['PATCH', '/api/templates/acme/plugin.yaml', { data: 'x' }],
      ['PUT', '/api/templates/acme/plugin.yaml', { data: 'x' }],
      ['PATCH', '/api/templates/acme/plugin.yaml', { namespace: 'member' }],
      ['DELETE', '/api/templates/acme/plugin.yaml', undefined],
    ] as const) {
      const refused = await as('member', method, path, body);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.json).toMatchObject({ message: 'administering the namespace acme is needed' });
    }
    expect((await h.store.templates.findName('acme', 'plugin.yaml'))?.data).toBe(PLUGIN);

    const patched = await as('owner', 'PATCH', '/api/templates/acme/plugin.yaml', { data: `${PLUGIN}# 2\n` });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({ name: 'plugin.yaml', namespace: 'acme', data: `${PLUGIN}# 2\n` });
    // drone template update sends drone-go's Template: its name and data.
    const put = await as('owner', 'PUT', '/api/templates/acme/plugin.yaml', {
      name: 'plugin.yaml',
      data: PLUGIN,
    });
    expect(put.status, put.text).toBe(200);
    expect((await h.store.templates.findName('acme', 'plugin.yaml'))?.data).toBe(PLUGIN);

    expect((await as('owner', 'POST', '/api/templates/acme', { name: 'gone.star', data: 'x' })).status).toBe(
      200,
    );
    expect((await as('owner', 'DELETE', '/api/templates/acme/gone.star')).status).toBe(204);
    expect((await as('member', 'GET', '/api/templates/acme/gone.star')).status).toBe(404);
    expect((await as('owner', 'DELETE', '/api/templates/acme/gone.star')).status).toBe(404);
  });

  it('answers 404 to everyone else, so that namespaces do not leak, and 401 without a login', async () => {
    for (const [method, path] of [
      ['GET', '/api/templates/acme'],
      ['GET', '/api/templates/acme/plugin.yaml'],
      ['POST', '/api/templates/acme'],
      ['PATCH', '/api/templates/acme/plugin.yaml'],
      ['PUT', '/api/templates/acme/plugin.yaml'],
      ['DELETE', '/api/templates/acme/plugin.yaml'],
    ] as const) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : { name: 'x.yaml', data: 'y' };
      const answer = await as('stranger', method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.json).toMatchObject({ code: 'NOT_FOUND', message: 'namespace acme not found' });
      expect((await call(h, path, { method, body })).status, `${method} ${path} anonymously`).toBe(401);
    }
    expect((await h.store.templates.findName('acme', 'plugin.yaml'))?.data).toBe(PLUGIN);
  });

  it('lets users keep templates for their own namespace, and nobody else see them', async () => {
    const own = await as('stranger', 'POST', '/api/templates/stranger', {
      name: 'mine.star',
      data: 'def main(ctx): pass',
    });
    expect(own.status, own.text).toBe(200);
    expect((await as('stranger', 'GET', '/api/templates/stranger')).json).toEqual([own.json]);
    expect((await as('member', 'GET', '/api/templates/stranger')).status).toBe(404);
    expect((await as('member', 'GET', '/api/templates/stranger/mine.star')).status).toBe(404);
  });

  it('refuses names that are not one file name with a template extension, and bad text', async () => {
    const post = (body: unknown) => as('owner', 'POST', '/api/templates/acme', body);
    const cases: [unknown, RegExp][] = [
      [
        { name: 'plugin.txt', data: 'x' },
        /^name: "plugin\.txt" has no template extension; expected \.yml or \.yaml/,
      ],
      [{ name: 'plugin', data: 'x' }, /^name: "plugin" has no template extension/],
      [
        { name: '../../etc/plugin.yaml', data: 'x' },
        /^name: "\.\.\/\.\.\/etc\/plugin\.yaml" is not a single file name/,
      ],
      [{ name: 'a\\b.yaml', data: 'x' }, /^name: .* is not a single file name/],
      [{ name: 'tab\there.yaml', data: 'x' }, /^name: control characters are not allowed/],
      [{ name: '', data: 'x' }, /^name: a template needs a name/],
      [{ name: 'empty.yaml', data: '' }, /^data: a template needs its text/],
      [{ name: 'big.yaml', data: 'x'.repeat(1_000_001) }, /^data: at most 1000000 bytes/],
      [
        { name: 'x.yaml', data: 'x', namespace: 'beta' },
        /^namespace: "beta" is not the namespace of the path/,
      ],
      [{ name: 'x.yaml', data: 'x', owner: 'me' }, /owner/],
      [{ data: 'x' }, /^name: /],
    ];
    for (const [body, message] of cases) {
      const answer = await post(body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect((answer.json as { message: string }).message).toMatch(message);
    }
    expect(await h.store.templates.list('beta')).toEqual([]);
    // Drone's extensions, each its language.
    for (const name of ['a.yml', 'b.yaml', 'c.star', 'd.starlark', 'e.script', 'f.jsonnet'])
      expect((await post({ name, data: 'x' })).status, name).toBe(200);
    expect((await post({ name: 'a.yml', data: 'again' })).status).toBe(409);
    // A name that cannot be one is simply not there.
    expect((await as('owner', 'GET', '/api/templates/acme/..%2F..%2Fetc%2Fpasswd.yaml')).status).toBe(404);
  });

  it('moves a template only to a namespace its caller administers too, and never renames one', async () => {
    await as('owner', 'POST', '/api/templates/acme', { name: 'move.yaml', data: 'kind: pipeline' });
    const away = await as('owner', 'PATCH', '/api/templates/acme/move.yaml', { namespace: 'other-org' });
    expect(away.status).toBe(404);
    expect(away.json).toMatchObject({ message: 'namespace other-org not found' });
    expect(await h.store.templates.findName('acme', 'move.yaml')).toBeDefined();
    const renamed = await as('owner', 'PATCH', '/api/templates/acme/move.yaml', { name: 'other.yaml' });
    expect(renamed.status).toBe(400);
    expect((renamed.json as { message: string }).message).toMatch(/^name: a template cannot be renamed/);

    const moved = await as('owner', 'PATCH', '/api/templates/acme/move.yaml', { namespace: 'beta' });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json).toMatchObject({ namespace: 'beta', name: 'move.yaml' });
    expect(await h.store.templates.findName('acme', 'move.yaml')).toBeUndefined();
    expect((await as('owner', 'GET', '/api/templates/beta/move.yaml')).status).toBe(200);
    await as('owner', 'POST', '/api/templates/acme', { name: 'move.yaml', data: 'again' });
    expect((await as('owner', 'PATCH', '/api/templates/acme/move.yaml', { namespace: 'beta' })).status).toBe(
      409,
    );
  });

  it('lists every namespace’s templates for svc administrators only', async () => {
    const all = await as('root', 'GET', '/api/templates');
    expect(all.status).toBe(200);
    const names = (all.json as { namespace: string; name: string }[]).map((t) => `${t.namespace}/${t.name}`);
    expect(names).toContain('acme/plugin.yaml');
    expect(names).toContain('stranger/mine.star');
    expect(names).toEqual([...names].sort());
    // drone template ls without a namespace asks drone-go for /api/templates/.
    expect((await as('root', 'GET', '/api/templates/')).json).toEqual(all.json);
    for (const who of ['owner', 'member', 'stranger']) {
      expect((await as(who, 'GET', '/api/templates')).status, who).toBe(403);
      expect((await as(who, 'GET', '/api/templates/')).status, who).toBe(403);
    }
    expect((await call(h, '/api/templates')).status).toBe(401);
    // svc administrators may act on any namespace.
    expect((await as('root', 'GET', '/api/templates/acme/plugin.yaml')).status).toBe(200);
    expect((await as('root', 'POST', '/api/templates/acme', { name: 'root.yml', data: 'x' })).status).toBe(
      200,
    );
  });

  it('renders a template of the namespace into the build of a push', async () => {
    h.github.addRepo({ owner: 'acme', name: 'app', admins: ['owner'] });
    await enable(h, await loginAs(h, 'owner'), 'acme/app');
    const file =
      'kind: template\nload: plugin.yaml\ndata:\n  name: from-template\n  image: alpine\n  commands: [make, make test]\n';
    h.github.commit('acme/app', 'main', { '.drone.yml': file }, 'use a template');
    expect(await h.github.push('acme/app', 'main', `${h.url}/hook`)).toBe(200);
    const builds = await as('owner', 'GET', '/api/repos/acme/app/builds/1');
    expect(builds.status, builds.text).toBe(200);
    expect(builds.json).toMatchObject({
      status: 'pending',
      stages: [{ name: 'from-template', status: 'pending' }],
    });
    const repo = await h.store.repos.findSlug('acme', 'app');
    const build = await h.store.builds.findNumber(repo?.id ?? 0, 1);
    expect(build?.config).toContain('commands: ["make", "make test", ]');
  });
});
