/*
 * Repository secrets through HTTP: Drone's routes and shapes, write access, names validated, the
 * value never in any answer and encrypted at rest when the server has a database secret.
 */
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, enable, loginAs, tokenOf, type Answer } from './client.js';
import { startHarness, type Harness } from './harness.js';

const VALUE = 'hunter2-correct-horse-battery-staple';
const BASE = '/api/repos/octocat/hello/secrets';

describe('repository secrets', () => {
  let h: Harness;
  const tokens: Record<string, string> = {};
  const as = (who: string, method: string, path: string, body?: unknown): Promise<Answer> =>
    call(h, path, { method, token: tokens[who], body });
  /** Every answer of these tests, to check that none carried the value. */
  const answers: Answer[] = [];
  const sent = async (answer: Promise<Answer>): Promise<Answer> => {
    answers.push(await answer);
    return answers[answers.length - 1]!;
  };

  beforeAll(async () => {
    h = await startHarness({ secretKey: randomBytes(32) });
    for (const login of ['octocat', 'writer', 'reader']) h.github.addUser({ login });
    h.github.addRepo({ owner: 'octocat', name: 'hello', writers: ['writer'], readers: ['reader'] });
    for (const login of ['octocat', 'writer', 'reader']) {
      const session = await loginAs(h, login);
      tokens[login] = await tokenOf(h, session);
      if (login === 'octocat') await enable(h, session, 'octocat/hello');
    }
    // svc learns the readers' and writers' permissions when they list their repositories.
    for (const login of ['writer', 'reader'])
      expect((await as(login, 'GET', '/api/user/repos')).status).toBe(200);
  });
  afterAll(() => h.close());

  it('adds, lists, finds, changes and deletes a secret in Drone’s shape, never with its value', async () => {
    const created = await sent(as('writer', 'POST', BASE, { name: 'docker_password', data: VALUE }));
    expect(created.status, created.text).toBe(200);
    const repo = await h.store.repos.findSlug('octocat', 'hello');
    expect(created.json).toEqual({
      id: expect.any(Number) as unknown,
      repo_id: repo?.id,
      name: 'docker_password',
      pull_request: false,
      pull_request_push: false,
    });
    await sent(as('writer', 'POST', BASE, { name: 'npm.token-2', data: 'n', pull_request: true }));

    const listed = await sent(as('writer', 'GET', BASE));
    expect(listed.status).toBe(200);
    expect((listed.json as { name: string }[]).map((s) => s.name)).toEqual([
      'docker_password',
      'npm.token-2',
    ]);
    const found = await sent(as('writer', 'GET', `${BASE}/docker_password`));
    expect(found.json).toEqual(created.json);

    const changed = await sent(
      as('writer', 'PATCH', `${BASE}/docker_password`, { data: `${VALUE}-rotated`, pull_request: true }),
    );
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json).toMatchObject({
      name: 'docker_password',
      pull_request: true,
      pull_request_push: false,
    });

    for (const answer of answers) {
      expect(answer.text).not.toContain(VALUE);
      expect(answer.text).not.toContain('"data"');
    }
    const stored = await h.store.secrets.findName({ kind: 'repo', repoId: repo!.id }, 'docker_password');
    expect(stored?.data).toBe(`${VALUE}-rotated`);

    const deleted = await as('writer', 'DELETE', `${BASE}/docker_password`);
    expect(deleted.status).toBe(204);
    expect((await as('writer', 'GET', `${BASE}/docker_password`)).status).toBe(404);
    expect((await as('writer', 'DELETE', `${BASE}/docker_password`)).status).toBe(404);
  });

  it('changes only the fields a PATCH gives', async () => {
    await as('octocat', 'POST', BASE, {
      name: 'partial',
      data: 'v1',
      pull_request: true,
      pull_request_push: true,
    });
    const flagOnly = await as('octocat', 'PATCH', `${BASE}/partial`, { pull_request_push: false });
    expect(flagOnly.json).toMatchObject({ pull_request: true, pull_request_push: false });
    const repo = await h.store.repos.findSlug('octocat', 'hello');
    const scope = { kind: 'repo', repoId: repo!.id } as const;
    expect((await h.store.secrets.findName(scope, 'partial'))?.data).toBe('v1');
    // drone-cli sends the name along; the same name is fine, another one is a rename.
    const valueOnly = await as('octocat', 'PATCH', `${BASE}/partial`, { name: 'partial', data: 'v2' });
    expect(valueOnly.json).toMatchObject({ pull_request: true, pull_request_push: false });
    expect((await h.store.secrets.findName(scope, 'partial'))?.data).toBe('v2');
    const rename = await as('octocat', 'PATCH', `${BASE}/partial`, { name: 'other' });
    expect(rename.status).toBe(400);
    expect((rename.json as { message: string }).message).toMatch(/^name: /);
    expect((await as('octocat', 'PATCH', `${BASE}/nothing-here`, { data: 'x' })).status).toBe(404);
  });

  it('refuses a bad name, an empty value and unknown fields with a 400 naming the field', async () => {
    for (const name of ['has space', 'slash/name', 'dollar$', '', 'x'.repeat(256)]) {
      const bad = await as('writer', 'POST', BASE, { name, data: 'v' });
      expect(bad.status, name).toBe(400);
      expect(bad.json).toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(/^name: /) as unknown,
      });
    }
    const noValue = await as('writer', 'POST', BASE, { name: 'empty' });
    expect(noValue.status).toBe(400);
    expect((noValue.json as { message: string }).message).toMatch(/^data: /);
    const typo = await as('writer', 'POST', BASE, { name: 'typo', data: 'v', pullRequest: true });
    expect(typo.status).toBe(400);
    expect((typo.json as { message: string }).message).toMatch(/pullRequest/);
    const emptyValue = await as('writer', 'PATCH', `${BASE}/typo`, { data: '' });
    expect(emptyValue.status).toBe(400);
  });

  it('accepts the extra fields drone-cli sends', async () => {
    const drone = await as('writer', 'POST', BASE, {
      name: 'from_cli',
      data: 'v',
      type: '',
      id: 0,
      repo_id: 0,
    });
    expect(drone.status, drone.text).toBe(200);
  });

  it('answers 409 for a name the repository already has', async () => {
    expect((await as('writer', 'POST', BASE, { name: 'twice', data: 'a' })).status).toBe(200);
    const again = await as('writer', 'POST', BASE, { name: 'twice', data: 'b' });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ code: 'CONFLICT' });
    expect(again.text).not.toContain('"b"');
  });

  it('needs write access, as in Drone', async () => {
    expect((await as('reader', 'GET', BASE)).status).toBe(403);
    expect((await as('reader', 'POST', BASE, { name: 'nope', data: 'v' })).status).toBe(403);
    expect((await call(h, BASE)).status).toBe(401);
  });

  it('keeps the value encrypted at rest when the server has a database secret', async () => {
    await as('octocat', 'POST', BASE, { name: 'at_rest', data: VALUE });
    if (h.datasource.driver !== 'embedded_sql') throw new Error('this suite runs on SQLite');
    const db = new Database(h.datasource.path, { readonly: true });
    try {
      const rows = db.prepare("SELECT data FROM secrets WHERE name = 'at_rest'").all() as { data: string }[];
      expect(rows).toHaveLength(1);
      expect(rows[0]!.data).not.toContain(VALUE);
      expect(rows[0]!.data).not.toBe('');
    } finally {
      db.close();
    }
  });
});
