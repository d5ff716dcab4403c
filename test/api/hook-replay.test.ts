/**
 * Replayed webhooks (issue 30, fault 7): a delivery captured on its way to svc — validly signed by
 * the provider — and sent again must not make another build, for every provider, also when the
 * copy names a new delivery id (no provider signs that header), and also when it reaches another
 * server of the same database. Deliveries that fail verification use nothing up; a delivery whose
 * build could not be made is taken when the provider sends it again; a week later it is forgotten.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Repo } from '../../src/core/repo.js';
import type { ScmProvider, ScmToken } from '../../src/core/scm.js';
import type { Store } from '../../src/core/store.js';
import type { ForgeDoubleLike } from '../../src/scm/provider-harness.case.js';
import { DeliveryPruner, DELIVERY_RETENTION_MS } from '../../src/server/hook/index.js';
import { newRepo, newUser } from '../../src/store/cases/fixtures.case.js';
import { openStore } from '../../src/store/index.js';
import { testDialects, type TestDatabase } from '../support/databases.js';
import { pino } from 'pino';
import { FORGES, type Forge } from './hooks/forges.js';
import {
  send,
  startEavesdropper,
  startHookServer,
  type Captured,
  type Eavesdropper,
  type HookServer,
} from './hooks/hook-server.js';

const PIPELINE = `kind: pipeline
type: docker
name: default
steps:
- name: test
  image: alpine
  commands:
  - echo hi
`;
const FULL_NAME = 'alice/replay';

/** A repository of alice's at the provider, enabled in svc with a hook that an eavesdropper watches. */
interface Enabled {
  double: ForgeDoubleLike;
  provider: ScmProvider;
  repo: Repo;
  token: ScmToken;
}

async function enable(store: Store, forge: Forge): Promise<Enabled> {
  const { double, provider } = await forge.start();
  const scmToken = double.addUser({ login: 'alice' }).token;
  double.addRepo({ owner: 'alice', name: 'replay', admins: ['alice'] });
  double.commit(FULL_NAME, 'main', { '.drone.yml': PIPELINE }, 'first');
  const token: ScmToken = { token: scmToken, refresh: '', expiry: 0 };
  const found = await provider.findRepo(token, { namespace: 'alice', name: 'replay' });
  const user = await store.users.create(newUser({ login: 'alice', scmToken, scmRefresh: '', scmExpiry: 0 }));
  const repo = await store.repos.create(
    newRepo({
      uid: found.uid,
      namespace: found.namespace,
      name: found.name,
      slug: `${found.namespace}/${found.name}`,
      userId: user.id,
      scm: provider.name,
      cloneUrl: found.cloneUrl,
      defaultBranch: found.defaultBranch,
      hookSecret: randomBytes(32).toString('hex'),
    }),
  );
  return { double, provider, repo, token };
}

/** Points the provider's hook at `url` (the eavesdropper in front of svc), as enabling does. */
async function hookTo({ provider, repo, token }: Enabled, url: string): Promise<void> {
  await provider.createHook(
    token,
    { namespace: repo.namespace, name: repo.name },
    { url, secret: repo.hookSecret },
  );
}

async function builds(store: Store, repo: Repo): Promise<number> {
  return (await store.builds.list(repo.id, { page: 1, perPage: 100 })).length;
}

/** The last delivery the eavesdropper saw. */
function last(spy: Eavesdropper): Captured {
  const captured = spy.captured.at(-1);
  if (captured === undefined) throw new Error('no delivery was captured');
  return captured;
}

const result = (text: string): unknown => (JSON.parse(text) as { result?: unknown }).result;

for (const dialect of testDialects()) {
  describe.skipIf(dialect.skip)(`replayed webhooks on ${dialect.name}`, () => {
    describe.each(FORGES)('$name', (forge) => {
      let database: TestDatabase;
      let store: Store;
      let enabled: Enabled;
      let server: HookServer;
      let spy: Eavesdropper;
      /** Makes the next build fail to be created, once (a database that is briefly gone). */
      const faults = { failNext: false };

      beforeAll(async () => {
        database = await dialect.create();
        store = await openStore({ datasource: database.datasource });
        enabled = await enable(store, forge);
        server = await startHookServer(store, enabled.provider, (trigger) => ({
          trigger(repo, build) {
            if (!faults.failNext) return trigger.trigger(repo, build);
            faults.failNext = false;
            return Promise.reject(new Error('the database went away'));
          },
        }));
        spy = await startEavesdropper(server.hookUrl);
        await hookTo(enabled, spy.url);
      });
      afterAll(async () => {
        await spy?.close();
        await server?.close();
        await enabled?.double.close();
        await store?.close();
        await database?.drop();
      });

      it('makes one build of a captured delivery sent again, also under a new delivery id', async () => {
        const before = await builds(store, enabled.repo);
        expect(await enabled.double.push(FULL_NAME, 'main', spy.url)).toBe(200);
        expect(await builds(store, enabled.repo)).toBe(before + 1);
        const captured = last(spy);
        expect(captured.headers[forge.deliveryHeader]).toMatch(/\S/);

        const again = await send(server.hookUrl, captured);
        expect(again.status).toBe(200);
        expect(result(again.text)).toBe('duplicate');
        const renamed = {
          ...captured,
          headers: { ...captured.headers, [forge.deliveryHeader]: randomUUID() },
        };
        const renamedAgain = await send(server.hookUrl, renamed);
        expect(renamedAgain.status).toBe(200);
        expect(result(renamedAgain.text)).toBe('duplicate');
        expect(await builds(store, enabled.repo)).toBe(before + 1);
      });

      it('lets no unverified delivery use up an id: the genuine delivery with it still builds', async () => {
        enabled.double.commit(FULL_NAME, 'main', { 'README.md': randomUUID() }, 'second');
        spy.hold = true;
        await enabled.double.push(FULL_NAME, 'main', spy.url);
        spy.hold = false;
        const genuine = last(spy);
        const before = await builds(store, enabled.repo);
        // The same id, first without its signature, then with the signature of another body.
        const { [forge.signatureHeader]: _signature, ...unsigned } = genuine.headers;
        expect((await send(server.hookUrl, { ...genuine, headers: unsigned })).status).toBe(401);
        if (forge.signsBody) {
          // A space more: valid JSON still, but not the bytes the provider signed.
          const altered = Buffer.concat([genuine.body, Buffer.from(' ')]);
          expect((await send(server.hookUrl, { ...genuine, body: altered })).status).toBe(401);
        }
        expect(await builds(store, enabled.repo)).toBe(before);

        const taken = await send(server.hookUrl, genuine);
        expect(taken.status).toBe(200);
        expect(result(taken.text)).toBe('created');
        expect(await builds(store, enabled.repo)).toBe(before + 1);
      });

      it('takes a delivery whose build could not be made when the provider sends it again', async () => {
        enabled.double.commit(FULL_NAME, 'main', { 'README.md': randomUUID() }, 'third');
        const before = await builds(store, enabled.repo);
        faults.failNext = true;
        expect(await enabled.double.push(FULL_NAME, 'main', spy.url)).toBe(500);
        expect(await builds(store, enabled.repo)).toBe(before);
        const redelivered = await send(server.hookUrl, last(spy));
        expect(redelivered.status).toBe(200);
        expect(result(redelivered.text)).toBe('created');
        expect(await builds(store, enabled.repo)).toBe(before + 1);
      });
    });
  });
}

const GITHUB = FORGES.find((forge) => forge.name === 'GitHub');
if (GITHUB === undefined) throw new Error('no GitHub forge');

for (const dialect of testDialects().filter((d) => d.name !== 'SQLite')) {
  describe.skipIf(dialect.skip)(`replayed webhooks on two servers of one ${dialect.name} database`, () => {
    let database: TestDatabase;
    const stores: Store[] = [];
    let enabled: Enabled;
    const servers: HookServer[] = [];
    let spy: Eavesdropper;

    beforeAll(async () => {
      database = await dialect.create();
      stores.push(await openStore({ datasource: database.datasource }));
      stores.push(await openStore({ datasource: database.datasource }));
      const [a, b] = stores as [Store, Store];
      enabled = await enable(a, GITHUB);
      servers.push(await startHookServer(a, enabled.provider), await startHookServer(b, enabled.provider));
      spy = await startEavesdropper(servers[0]?.hookUrl ?? '');
      await hookTo(enabled, spy.url);
    });
    afterAll(async () => {
      await spy?.close();
      for (const server of servers) await server.close();
      await enabled?.double.close();
      for (const store of stores) await store.close();
      await database?.drop();
    });

    it('answers a delivery taken by server A as a duplicate on server B', async () => {
      const [a] = stores as [Store];
      expect(await enabled.double.push(FULL_NAME, 'main', spy.url)).toBe(200);
      const before = await builds(a, enabled.repo);
      const onB = await send(servers[1]?.hookUrl ?? '', last(spy));
      expect(onB.status).toBe(200);
      expect(result(onB.text)).toBe('duplicate');
      expect(await builds(a, enabled.repo)).toBe(before);
    });

    it('makes one build of a delivery sent to both servers at once', async () => {
      const [a] = stores as [Store];
      enabled.double.commit(FULL_NAME, 'main', { 'README.md': randomUUID() }, 'raced');
      spy.hold = true;
      await enabled.double.push(FULL_NAME, 'main', spy.url);
      spy.hold = false;
      const before = await builds(a, enabled.repo);
      const answers = await Promise.all([0, 1, 0, 1].map((i) => send(servers[i]?.hookUrl ?? '', last(spy))));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
      expect(answers.map((answer) => result(answer.text)).sort()).toEqual([
        'created',
        'duplicate',
        'duplicate',
        'duplicate',
      ]);
      expect(await builds(a, enabled.repo)).toBe(before + 1);
    });
  });
}

describe('remembered deliveries expire', () => {
  let database: TestDatabase;
  let store: Store;
  let enabled: Enabled;
  let server: HookServer;
  let spy: Eavesdropper;
  const logger = pino({ level: 'silent' });

  beforeAll(async () => {
    const [sqlite] = testDialects();
    if (sqlite === undefined) throw new Error('no SQLite dialect');
    database = await sqlite.create();
    store = await openStore({ datasource: database.datasource });
    enabled = await enable(store, GITHUB);
    server = await startHookServer(store, enabled.provider);
    spy = await startEavesdropper(server.hookUrl);
    await hookTo(enabled, spy.url);
  });
  afterAll(async () => {
    await spy?.close();
    await server?.close();
    await enabled?.double.close();
    await store?.close();
    await database?.drop();
  });

  it('keeps a delivery for a week, prunes it after, on the lease holder only', async () => {
    expect(await enabled.double.push(FULL_NAME, 'main', spy.url)).toBe(200);
    const captured = last(spy);
    const taken = Date.now();
    const pruner = (now: number, held = true) =>
      new DeliveryPruner({ deliveries: store.hookDeliveries, logger, leader: { held }, now: () => now });

    expect(await pruner(taken + DELIVERY_RETENTION_MS - 3_600_000).pass()).toBe(0);
    expect(result((await send(server.hookUrl, captured)).text)).toBe('duplicate');
    // Another server holds the jobs' lease: this one leaves the pruning to it.
    expect(await pruner(taken + DELIVERY_RETENTION_MS + 60_000, false).pass()).toBe(0);
    expect(result((await send(server.hookUrl, captured)).text)).toBe('duplicate');

    expect(await pruner(taken + DELIVERY_RETENTION_MS + 60_000).pass()).toBe(2);
    // Forgotten after a week: the same delivery is a new one again (docs/webhooks.md).
    expect(result((await send(server.hookUrl, captured)).text)).toBe('created');
  });

  it('prunes from when the server starts, and a failing database only delays it', async () => {
    let calls = 0;
    const pruner = new DeliveryPruner({
      deliveries: {
        prune: (before) => {
          calls += 1;
          return calls === 1
            ? Promise.reject(new Error('connection lost'))
            : store.hookDeliveries.prune(before);
        },
      },
      logger,
      intervalMs: 20,
    });
    pruner.start();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await pruner.stop();
    expect(calls).toBeGreaterThan(1);
  });
});
