import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseSecret } from '../../../core/secret-key.js';
import type { Store } from '../../../core/store.js';
import { hashApiToken } from '../../../server/auth/api-token.js';
import { openStore } from '../../../store/index.js';
import { testDialects, type TestDatabase, type TestDialect } from '../../../../test/support/databases.js';
import {
  droneProducts,
  type DroneProduct,
  type DroneTestDatabase,
} from '../../../../test/support/drone-database.js';
import {
  DRONE_KEY,
  DRONE_TOKENS,
  HELLO_UID,
  OTHER_KEY,
  seedDrone,
  T0,
  VALUES,
} from '../../../../test/support/drone-seed.js';
import { DroneFieldCipher } from './cipher.js';
import { openDroneDatabase } from './database.js';
import { parseDroneDatasource } from './datasource.js';
import { checkDrone, DroneKeyError, importDrone } from './importer.js';
import type { ImportReport } from './report.js';

const SVC_KEY = parseDatabaseSecret('0123456789abcdef0123456789abcdef') as Uint8Array;
const [sqliteDrone, mariadbDrone, postgresDrone] = droneProducts() as [
  DroneProduct,
  DroneProduct,
  DroneProduct,
];
const [sqliteSvc] = testDialects() as [TestDialect];

/** Drone on SQLite into svc on each database; Drone on MariaDB and PostgreSQL into svc on SQLite. */
const PAIRS: { drone: DroneProduct; svc: TestDialect }[] = [
  ...testDialects().map((svc) => ({ drone: sqliteDrone, svc })),
  { drone: mariadbDrone, svc: sqliteSvc },
  { drone: postgresDrone, svc: sqliteSvc },
];

/** Runs the import from `drone` into `svc` with Drone's key (or `key`), collecting the progress lines. */
async function runImport(
  drone: DroneTestDatabase,
  svc: Store,
  options: { key?: string; history?: boolean } = {},
): Promise<{ report: ImportReport; progress: string[] }> {
  const from = parseDroneDatasource(drone.from, drone.driver, process.cwd());
  if (typeof from === 'string') throw new Error(from);
  const source = await openDroneDatabase(from);
  const progress: string[] = [];
  try {
    const checked = await checkDrone(source, new DroneFieldCipher(Buffer.from(options.key ?? DRONE_KEY)));
    const report = await importDrone(checked, svc, {
      scm: 'scmc',
      history: options.history ?? true,
      progress: (line) => progress.push(line),
      now: () => T0 * 1000,
    });
    return { report, progress };
  } finally {
    await source.close();
  }
}

/** A fresh Drone database of `product` with the seed, and a fresh svc store, for one describe block. */
function useDatabases(product: DroneProduct, dialect: TestDialect) {
  let drone: DroneTestDatabase | undefined;
  let target: TestDatabase | undefined;
  let store: Store | undefined;
  beforeAll(async () => {
    drone = await product.create();
    await seedDrone(drone);
    target = await dialect.create();
    store = await openStore({ datasource: target.datasource, secretKey: SVC_KEY });
  });
  afterAll(async () => {
    await store?.close();
    await target?.drop();
    await drone?.drop();
  });
  return { drone: () => drone!, svc: () => store! };
}

for (const { drone: product, svc: dialect } of PAIRS) {
  describe.skipIf(product.skip || dialect.skip)(
    `svc migrate drone: Drone on ${product.name} → svc on ${dialect.name}`,
    () => {
      const db = useDatabases(product, dialect);
      let before = '';
      let first: Awaited<ReturnType<typeof runImport>>;

      beforeAll(async () => {
        before = await db.drone().fingerprint();
        first = await runImport(db.drone(), db.svc());
      });

      it('brings users across with their provider tokens and Drone API tokens', async () => {
        expect(first.report.counts('users')).toEqual({ imported: 3, present: 0, skipped: 0 });
        const octocat = await db.svc().users.findLogin('octocat');
        expect(octocat).toMatchObject({
          admin: true,
          scmToken: VALUES.octocatToken,
          scmUid: '',
          lastLogin: (T0 + 1) * 1000,
        });
        expect(await db.svc().users.findLogin('hubot')).toMatchObject({
          scmToken: VALUES.hubotToken,
          scmRefresh: VALUES.hubotRefresh,
          scmExpiry: (T0 + 3600) * 1000,
        });
        expect((await db.svc().users.findTokenHash(hashApiToken(DRONE_TOKENS.hubot)))?.login).toBe('hubot');
        expect(await db.svc().users.findLogin('deploy-bot')).toMatchObject({ machine: true, scmToken: '' });
      });

      it('brings repositories across by provider id, keys and counter kept, and their permissions', async () => {
        const hello = await db.svc().repos.findUid(HELLO_UID);
        const octocat = await db.svc().users.findLogin('octocat');
        expect(hello).toMatchObject({
          slug: 'octocat/hello',
          scm: 'scmc',
          userId: octocat?.id,
          trusted: true,
          timeout: 90,
          throttle: 2,
          configPath: '.drone.yml',
          hookSecret: 'signer-hello',
          signingKey: 'secret-of-hello-0123456789abcd',
          counter: 3,
          approval: 'forks',
        });
        expect(await db.svc().repos.count()).toBe(1);
        const perms = await db.svc().perms.listRepo(hello!.id);
        expect(perms.map((perm) => [perm.userId, perm.admin]).sort()).toEqual(
          [
            [octocat!.id, true],
            [(await db.svc().users.findLogin('hubot'))!.id, false],
          ].sort(),
        );
      });

      it('decrypts secrets with Drone’s key into svc’s store, which gives them back as they were', async () => {
        const hello = (await db.svc().repos.findUid(HELLO_UID))!;
        const scope = { kind: 'repo', repoId: hello.id } as const;
        expect(await db.svc().secrets.findName(scope, 'docker_password')).toMatchObject({
          data: VALUES.dockerPassword,
          pullRequest: true,
        });
        expect((await db.svc().secrets.findName(scope, 'ssh_key'))?.data).toBe(VALUES.multiline);
        expect((await db.svc().secrets.findName(scope, 'old_plain'))?.data).toBe(VALUES.plainOld);
        expect(await db.svc().secrets.findName(scope, 'other_key')).toBeUndefined();
        const org = await db.svc().secrets.findName({ kind: 'namespace', namespace: 'octocat' }, 'npm_token');
        expect(org?.data).toBe(VALUES.npmToken);
      });

      it('brings templates across under their namespace and name', async () => {
        expect(await db.svc().templates.findName('octocat', 'plugin.yaml')).toMatchObject({
          data: 'kind: pipeline\nname: {{ .input.name }}\n',
        });
        expect(first.report.counts('templates')).toEqual({ imported: 1, present: 0, skipped: 0 });
      });

      it('brings cron jobs across with their runs, and the history under its numbers with its logs', async () => {
        const hello = (await db.svc().repos.findUid(HELLO_UID))!;
        expect(await db.svc().crons.findName(hello.id, 'nightly')).toMatchObject({
          expr: '0 0 * * *',
          next: (T0 + 86_400) * 1000,
          prev: T0 * 1000,
        });
        expect(
          (await db.svc().builds.list(hello.id, { page: 1, perPage: 10 })).map((b) => [b.number, b.status]),
        ).toEqual([
          [2, 'failure'],
          [1, 'success'],
        ]);
        const second = (await db.svc().builds.findNumber(hello.id, 2))!;
        expect(second).toMatchObject({
          created: (T0 + 199) * 1000,
          message: 'commit 2 ✨',
          params: { FOO: 'bar' },
        });
        const [stage] = await db.svc().stages.listWithSteps(second.id);
        expect(stage).toMatchObject({ machine: 'drone-runner-1', labels: { zone: 'eu' } });
        expect(stage?.steps.map((step) => [step.name, step.status, step.image])).toEqual([
          ['clone', 'success', 'drone/git'],
          ['step-1', 'failure', 'golang:1.22'],
          ['step-2', 'skipped', 'golang:1.22'],
        ]);
        expect((await db.svc().logs.find(stage!.steps[1]!.id))?.map((line) => line.out)).toEqual([
          '+ make test\n',
          'FAIL\n',
        ]);
        expect((await db.svc().repos.find(hello.id))?.counter).toBe(3);
      });

      it('reports counts per kind and each item it skipped with why, naming secrets only', () => {
        expect(first.report.skippedItems.map(({ kind, item }) => `${kind}: ${item}`)).toEqual([
          'repositories: octocat/ancient',
          'permissions: of octocat on the repository of provider id 999999',
          'secrets: octocat/hello other_key',
          'secrets: octocat/ancient orphan',
          'cron jobs: octocat/hello broken',
          'cron jobs: octocat/ancient ancient-nightly',
          'logs: octocat/hello#2',
          'builds: octocat/hello#3',
        ]);
        const text = first.report.render(['secrets']);
        expect(text).toContain('does not decrypt with --drone-secret (DRONE_DATABASE_SECRET)');
        expect(text).toContain('it was running in Drone');
        for (const value of Object.values(VALUES)) expect(text).not.toContain(value);
        expect(first.progress).toEqual(
          expect.arrayContaining(['users: 3 imported, 0 already present, 0 skipped']),
        );
      });

      it('changes nothing when run again: everything is already present', async () => {
        const again = await runImport(db.drone(), db.svc());
        for (const kind of [
          'users',
          'repositories',
          'permissions',
          'secrets',
          'cron jobs',
          'templates',
          'builds',
        ] as const) {
          expect(again.report.counts(kind).imported, kind).toBe(0);
        }
        expect(again.report.counts('users').present).toBe(3);
        expect(again.report.counts('secrets')).toEqual({ imported: 0, present: 3, skipped: 2 });
        expect(again.report.counts('templates')).toEqual({ imported: 0, present: 1, skipped: 0 });
        expect(again.report.counts('builds')).toEqual({ imported: 0, present: 2, skipped: 1 });
        expect(await db.svc().repos.count()).toBe(1);
      });

      it('never writes to Drone’s database', async () => {
        expect(await db.drone().fingerprint()).toBe(before);
        const from = parseDroneDatasource(db.drone().from, db.drone().driver, process.cwd());
        const source = await openDroneDatabase(from as Exclude<typeof from, string>);
        try {
          // A write that answers rows, which every product takes through a SELECT's path.
          await expect(
            source.select("insert into migrations (name) values ('svc') returning name"),
          ).rejects.toThrow(/read[- ]?only/i);
        } finally {
          await source.close();
        }
        expect(await db.drone().fingerprint()).toBe(before);
      });
    },
  );
}

describe('svc migrate drone: the key', () => {
  const db = useDatabases(sqliteDrone, sqliteSvc);

  it('stops before writing anything when none of Drone’s values decrypts, naming the flag and variable', async () => {
    const wrong = runImport(db.drone(), db.svc(), { key: OTHER_KEY.replace(/f/g, 'e') });
    await expect(wrong).rejects.toThrow(DroneKeyError);
    await expect(wrong).rejects.toThrow(
      /--drone-secret \(DRONE_DATABASE_SECRET\) is not the key Drone encrypted its values with: none of the \d+ encrypted values decrypts/,
    );
    expect(await db.svc().users.count()).toBe(0);
  });
});

describe('svc migrate drone: a repository svc already has under the same provider id', () => {
  const db = useDatabases(sqliteDrone, sqliteSvc);

  it('is matched under its new name instead of made again; a build number of its own is not overwritten', async () => {
    const { newBuild, newRepo } = await import('../../../store/cases/fixtures.case.js');
    const renamed = await db.svc().repos.create({ ...newRepo({ name: 'hello-renamed' }), uid: HELLO_UID });
    await db.svc().builds.create(newBuild(renamed.id, { status: 'success', after: 'svc-own-commit' }), []);
    const { report } = await runImport(db.drone(), db.svc());
    expect(report.counts('repositories')).toEqual({ imported: 0, present: 1, skipped: 1 });
    expect(await db.svc().repos.count()).toBe(1);
    expect((await db.svc().repos.find(renamed.id))?.counter).toBe(3);
    expect((await db.svc().secrets.list({ kind: 'repo', repoId: renamed.id })).map((s) => s.name)).toEqual([
      'docker_password',
      'old_plain',
      'ssh_key',
    ]);
    expect(report.skippedItems).toContainEqual({
      kind: 'builds',
      item: 'octocat/hello-renamed#1',
      why: 'svc has its own build #1 of octocat/hello-renamed',
    });
    expect((await db.svc().builds.findNumber(renamed.id, 1))?.after).toBe('svc-own-commit');
    expect((await db.svc().builds.findNumber(renamed.id, 2))?.after).toBe('sha-2');
  });
});

describe('svc migrate drone: another repository under Drone’s name', () => {
  const db = useDatabases(sqliteDrone, sqliteSvc);

  it('is not Drone’s: Drone’s is skipped with both ids, and what belongs to it with it', async () => {
    const { newRepo } = await import('../../../store/cases/fixtures.case.js');
    const other = await db.svc().repos.create({ ...newRepo({ name: 'hello' }), uid: '42' });
    const { report } = await runImport(db.drone(), db.svc());
    expect(report.skippedItems).toContainEqual({
      kind: 'repositories',
      item: 'octocat/hello',
      why: `svc has another repository under this name, with the provider id 42 (Drone's has ${HELLO_UID})`,
    });
    expect(report.counts('secrets')).toEqual({ imported: 0, present: 0, skipped: 5 });
    expect(await db.svc().secrets.list({ kind: 'repo', repoId: other.id })).toEqual([]);
    expect(await db.svc().builds.findNumber(other.id, 1)).toBeUndefined();
  });
});
