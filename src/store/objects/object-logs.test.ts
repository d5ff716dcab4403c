import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogLine } from '../../core/log.js';
import type { Store } from '../../core/store.js';
import { testDialects } from '../../../test/support/databases.js';
import { startS3, type TestS3 } from '../../../test/support/s3.js';
import { newBuild, newRepo, newStage } from '../cases/fixtures.case.js';
import { openStore } from '../index.js';
import { linesJson } from '../queries/logs.js';
import { ObjectLogStore, s3Client, type ObjectStoreSettings } from './object-logs.js';

// s3rver takes any credentials; the SDK's chain must find some.
process.env.AWS_ACCESS_KEY_ID ??= 'S3RVER';
process.env.AWS_SECRET_ACCESS_KEY ??= 'S3RVER';

const lines = (count: number, width = 20): LogLine[] =>
  Array.from({ length: count }, (_, pos) => ({ pos, out: `line ${pos} ${'x'.repeat(width)}`, time: pos }));

describe('ObjectLogStore on a real S3-protocol server (s3rver), over SQLite', () => {
  let s3: TestS3;
  let store: Store;
  let drop: () => Promise<void>;
  let steps: number[] = [];
  let settings: ObjectStoreSettings;
  const reports: string[] = [];
  let objects: ObjectLogStore;

  beforeAll(async () => {
    s3 = await startS3(['build-logs']);
    settings = { bucket: 'build-logs', endpoint: s3.endpoint, pathStyle: true, prefix: 'svc/logs/' };
    const sqlite = testDialects()[0];
    if (sqlite === undefined) throw new Error('no SQLite dialect');
    const database = await sqlite.create();
    store = await openStore({
      datasource: database.datasource,
      logs: (sql, batches) =>
        (objects = new ObjectLogStore(sql, batches, settings, (message) => reports.push(message))),
    });
    drop = async () => {
      await store.close();
      await database.drop();
    };
    const repo = await store.repos.create(newRepo());
    const { stages } = await store.builds.create(newBuild(repo.id, { status: 'success' }), [newStage(1, 4)]);
    steps = (await store.steps.list(stages[0]?.id ?? 0)).map((step) => step.id);
  });

  afterAll(async () => {
    await drop?.();
    await s3?.close();
  });

  const object = (key: string) =>
    s3Client(settings).send(new GetObjectCommand({ Bucket: settings.bucket, Key: key }));

  it('checks the bucket at start, and says what is wrong with a missing one', async () => {
    await expect(objects.check()).resolves.toBeUndefined();
    const absent = new ObjectLogStore(
      store.logs,
      store.logBatches,
      { ...settings, bucket: 'absent' },
      () => undefined,
    );
    await expect(absent.check()).rejects.toThrow(
      `SVC_OBJSTORE_BUCKET: cannot use the bucket "absent" at ${s3.endpoint}: no such bucket`,
    );
  });

  it('writes a finished log as <prefix>/<step id> (path-style), reads it back, keeps none in the database', async () => {
    const [step] = steps as [number];
    const log = lines(500);
    await store.logs.createJson(step, [Buffer.from(linesJson(log.slice(0, 200)))], log.slice(200));
    const stored = await object(`svc/logs/${step}`);
    expect(stored.ContentType).toBe('application/json');
    expect(JSON.parse((await stored.Body?.transformToString()) ?? '')).toEqual(log);
    expect(await store.logs.find(step)).toEqual(log);
    expect((await store.logs.findJson(step))?.toString('utf8')).toBe(JSON.stringify(log));
  });

  it('uploads a log made of the step’s batches, and leaves the batches for the step’s end to delete', async () => {
    const step = steps[2] ?? 0;
    const log = lines(30);
    await store.logBatches.append(step, 0, log.slice(0, 10));
    await store.logBatches.append(step, 1, log.slice(10, 20));
    expect(await store.logs.createFromBatches(step, 3, [])).toBe(false);
    expect(await store.logs.createFromBatches(step, 2, log.slice(20))).toBe(true);
    const stored = await object(`svc/logs/${step}`);
    expect(JSON.parse((await stored.Body?.transformToString()) ?? '')).toEqual(log);
    expect(await objects.database.find(step)).toBeUndefined();
    await store.logBatches.delete(step);
    expect(await store.logBatches.list(step)).toEqual([]);
    expect(await store.logs.find(step)).toEqual(log);
  });

  it('keeps a log made of batches the bucket refuses in the database, as those batches', async () => {
    const step = steps[3] ?? 0;
    const log = lines(12);
    await store.logBatches.append(step, 0, log.slice(0, 5));
    const broken = new ObjectLogStore(
      objects.database,
      store.logBatches,
      { ...settings, bucket: 'absent' },
      (message) => reports.push(message),
    );
    expect(await broken.createFromBatches(step, 1, log.slice(5))).toBe(true);
    expect(reports.at(-1)).toContain(`cannot upload the log of step ${step} to the bucket "absent"`);
    await store.logBatches.delete(step);
    expect(await objects.database.find(step)).toEqual(log);
    expect((await broken.findJson(step))?.toString('utf8')).toBe(JSON.stringify(log));
  }, 20_000);

  it('reads logs stored in the database before the bucket was configured', async () => {
    const step = steps[1] ?? 0;
    const database = objects.database;
    await database.create(step, lines(3));
    expect(await store.logs.find(step)).toEqual(lines(3));
    expect((await store.logs.findJson(step))?.toString('utf8')).toBe(JSON.stringify(lines(3)));
  });

  it('keeps a log the bucket refuses in the database, and says so', async () => {
    const step = steps[0] ?? 0;
    const broken = new ObjectLogStore(
      objects.database,
      store.logBatches,
      { ...settings, bucket: 'absent' },
      (message) => reports.push(message),
    );
    await broken.create(step, lines(7));
    expect(reports.at(-1)).toBe(
      `cannot upload the log of step ${step} to the bucket "absent" after 3 tries; it stays in the database`,
    );
    expect(await objects.database.find(step)).toEqual(lines(7));
    expect(await broken.find(step)).toEqual(lines(7));
    expect((await broken.findJson(step))?.toString('utf8')).toBe(JSON.stringify(lines(7)));
  }, 20_000);

  it('deletes a log from both places, and the objects of purged steps', async () => {
    const [first, second] = steps as [number, number];
    await store.logs.create(first, lines(2));
    await store.logs.delete(first);
    expect(await store.logs.find(first)).toBeUndefined();
    expect(await store.logs.findJson(first)).toBeUndefined();
    await store.logs.create(second, lines(2));
    await store.logs.purged([second]);
    await expect(
      s3Client(settings).send(new HeadObjectCommand({ Bucket: settings.bucket, Key: `svc/logs/${second}` })),
    ).rejects.toMatchObject({ name: 'NotFound' });
  });

  it('stores a 100 MB log whole (a multipart upload)', async () => {
    const step = steps[0] ?? 0;
    // 100,000 lines of about 1 KB, as 10 batches of JSON.
    const batches = Array.from({ length: 10 }, (_, batch) =>
      Buffer.from(
        linesJson(lines(10_000, 1_000).map((line) => ({ ...line, pos: batch * 10_000 + line.pos }))),
      ),
    );
    const bytes = batches.reduce((sum, batch) => sum + batch.length, 0);
    expect(bytes).toBeGreaterThan(100_000_000);
    await store.logs.createJson(step, batches, []);
    const head = await s3Client(settings).send(
      new HeadObjectCommand({ Bucket: settings.bucket, Key: `svc/logs/${step}` }),
    );
    // Joined as one array: the nine inner brackets give way to commas.
    expect(head.ContentLength).toBe(bytes - 9);
    const read = await store.logs.find(step);
    expect(read).toHaveLength(100_000);
    expect(read?.at(-1)?.pos).toBe(99_999);
  }, 120_000);
});
