import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Repo } from '../../src/core/repo.js';
import { decryptSecret } from '../../src/server/signing/secret-box.js';
import { hasValidSignature } from '../../src/server/signing/signature.js';
import { call, enable, loginAs, type BrowserSession } from './client.js';
import { startHarness, type Harness } from './harness.js';

const FILE = `kind: pipeline
type: docker
name: default
steps:
- name: test
  image: alpine
  commands:
  - echo test
`;

describe('pipeline file helpers: encrypt and sign', () => {
  let h: Harness;
  let owner: BrowserSession;
  let writer: BrowserSession;
  let reader: BrowserSession;
  const post = (session: BrowserSession, path: string, body: unknown) =>
    call(h, `/api/repos/octocat/${path}`, { method: 'POST', session, csrf: session.csrf, body });

  async function stored(name: string): Promise<Repo> {
    const repo = await h.store.repos.findSlug('octocat', name);
    if (repo === undefined) throw new Error(`octocat/${name} is not stored`);
    return repo;
  }

  beforeAll(async () => {
    h = await startHarness();
    for (const login of ['octocat', 'writer', 'reader']) h.github.addUser({ login });
    for (const name of ['app', 'other', 'guarded', 'racy']) {
      h.github.addRepo({
        owner: 'octocat',
        name,
        admins: ['octocat'],
        writers: ['writer'],
        readers: ['reader'],
      });
    }
    owner = await loginAs(h, 'octocat');
    writer = await loginAs(h, 'writer');
    reader = await loginAs(h, 'reader');
    for (const session of [owner, writer, reader]) await call(h, '/api/user/repos', { session });
    for (const name of ['app', 'other', 'guarded', 'racy']) await enable(h, owner, `octocat/${name}`);
  });
  afterAll(() => h.close());

  describe('POST …/encrypt', () => {
    it('encrypts with the repository’s own key, made once on first use and never shown', async () => {
      expect((await stored('app')).signingKey).toBe('');
      const first = await post(writer, 'app/encrypt', { data: 'hunter2' });
      expect(first.status, first.text).toBe(200);
      const { data } = first.json as { data: string };
      expect(data).not.toContain('hunter2');
      const { signingKey } = await stored('app');
      expect(signingKey).toHaveLength(32);
      expect(decryptSecret(data, signingKey)).toBe('hunter2');

      // Drone's alias and Drone's body (a whole drone.Secret): the same key again.
      const alias = await post(writer, 'app/encrypt/secret', { name: 'password', data: 'second' });
      expect(alias.status, alias.text).toBe(200);
      expect(decryptSecret((alias.json as { data: string }).data, signingKey)).toBe('second');
      expect((await stored('app')).signingKey).toBe(signingKey);

      const shown = await call(h, '/api/repos/octocat/app', { session: owner });
      expect(shown.text).not.toContain(signingKey);
    });

    it('gives each repository its own key: a value for one does not decrypt for another', async () => {
      const answer = await post(writer, 'other/encrypt', { data: 'only for other' });
      const { data } = answer.json as { data: string };
      const [app, other] = [await stored('app'), await stored('other')];
      expect(other.signingKey).not.toBe(app.signingKey);
      expect(() => decryptSecret(data, app.signingKey)).toThrow(/not encrypted with this repository’s key/);
    });

    it('makes one key when first uses race: every answer decrypts with the key that stays', async () => {
      const answers = await Promise.all(
        ['a', 'b', 'c', 'd'].map((value) => post(writer, 'racy/encrypt', { data: value })),
      );
      const { signingKey } = await stored('racy');
      expect(
        answers.map((answer) => decryptSecret((answer.json as { data: string }).data, signingKey)),
      ).toEqual(['a', 'b', 'c', 'd']);
    });

    it('refuses readers and a missing value, naming the field', async () => {
      expect((await post(reader, 'app/encrypt', { data: 'x' })).status).toBe(403);
      const empty = await post(writer, 'app/encrypt', {});
      expect(empty.status).toBe(400);
      expect((empty.json as { message: string }).message).toMatch(/^data: /);
      const wrongType = await post(writer, 'app/encrypt', { data: 42 });
      expect(wrongType.status).toBe(400);
      expect((wrongType.json as { message: string }).message).toMatch(/^data: /);
    });
  });

  describe('POST …/sign', () => {
    it('answers Drone’s HMAC and the file with its kind: signature document', async () => {
      const answer = await post(writer, 'app/sign', { data: FILE });
      expect(answer.status, answer.text).toBe(200);
      const { data, file } = answer.json as { data: string; file: string };
      expect(data).toMatch(/^[0-9a-f]{64}$/);
      expect(file).toBe(`---\n${FILE}---\nkind: signature\nhmac: ${data}\n\n...\n`);
      expect(hasValidSignature(file, (await stored('app')).signingKey)).toBe(true);
    });

    it('refuses readers and a file that is not YAML documents, naming the field', async () => {
      expect((await post(reader, 'app/sign', { data: FILE })).status).toBe(403);
      const broken = await post(writer, 'app/sign', { data: `${FILE}---\nsteps: [unclosed\n` });
      expect(broken.status).toBe(400);
      expect((broken.json as { message: string }).message).toMatch(/^data: document 2: /);
      expect((await post(writer, 'app/sign', { data: '' })).status).toBe(400);
    });
  });

  describe('a protected repository', () => {
    it('builds a signed file at once, and holds an unsigned or altered one for approval', async () => {
      const slug = 'octocat/guarded';
      const repo = await stored('guarded');
      await h.store.repos.update({ ...repo, protected: true });
      const signed = (await post(writer, 'guarded/sign', { data: FILE })).json as { file: string };
      const tampered = signed.file.replace('echo test', 'echo pwned');
      const otherKey = (await post(writer, 'other/sign', { data: FILE })).json as { file: string };
      // Past the signed file's `...` end, or on a `---` line: the parser reads what the HMAC skips.
      const evil = 'kind: pipeline\nname: evil\nsteps:\n- name: x\n  image: alpine\n  commands: [id]\n';
      const inline = '--- {kind: pipeline, name: evil, steps: [{name: x, image: alpine, commands: [id]}]}\n';
      const cases = [
        { file: signed.file, status: 'pending' },
        { file: FILE, status: 'blocked' },
        { file: tampered, status: 'blocked' },
        { file: otherKey.file, status: 'blocked' },
        { file: `${signed.file}---\n${evil}`, status: 'blocked' },
        { file: `${inline}${signed.file}`, status: 'blocked' },
      ];
      for (const [index, { file, status }] of cases.entries()) {
        h.github.commit(slug, 'main', { '.drone.yml': file }, `change ${index}`);
        expect(await h.github.push(slug, 'main', `${h.url}/hook`)).toBe(200);
        const build = await h.store.builds.findNumber(repo.id, index + 1);
        expect(build?.status, `case ${index}`).toBe(status);
        const stages = await h.store.stages.list(build?.id ?? 0);
        expect(stages.length, `case ${index}`).toBeGreaterThan(0);
        expect(new Set(stages.map((stage) => stage.status))).toEqual(new Set([status]));
      }
    });
  });
});
