/**
 * Issue 32, backups of the object store (docs/database.md, "Backups"): with SVC_OBJSTORE_BUCKET the
 * finished logs live in the bucket, not in the database, so a backup is the database and the bucket.
 * Rehearsed: the bucket copied object by object (what `aws s3 sync` or `rclone copy` does) into
 * another S3 server and the database copied with `svc backup`; a fresh server on both serves the
 * logs. The same database over an empty bucket has no log to show: the bucket's copy is the log.
 */
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { ObjectLogStore, s3Client } from '../../src/store/objects/object-logs.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { runSvc } from '../support/svc-process.js';
import { expectServed, servedLog } from './served.js';
import { FIXTURE_SECRET_KEY, writeUpgradeData } from './upgrade-data.js';

const BUCKET = 'svc-logs';
const PREFIX = 'logs';
const CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

const clientOf = (s3: TestS3): S3Client =>
  s3Client({ bucket: BUCKET, endpoint: s3.endpoint, pathStyle: true, prefix: PREFIX });

/** Copies every object of the bucket from one server to the other, as a sync tool does. */
async function copyBucket(from: S3Client, to: S3Client): Promise<number> {
  let copied = 0;
  let token: string | undefined;
  do {
    const page = await from.send(new ListObjectsV2Command({ Bucket: BUCKET, ContinuationToken: token }));
    for (const { Key } of page.Contents ?? []) {
      const object = await from.send(new GetObjectCommand({ Bucket: BUCKET, Key }));
      const body = await object.Body?.transformToByteArray();
      await to.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: body }));
      copied++;
    }
    token = page.NextContinuationToken;
  } while (token !== undefined);
  return copied;
}

describe('backup and restore of the object store (SVC_OBJSTORE_BUCKET)', () => {
  let live: TestS3;
  let restored: TestS3;
  let empty: TestS3;
  const dir = mkdtempSync(join(tmpdir(), 'svc-backup-bucket-'));

  beforeAll(async () => {
    // The SDK's credential chain reads them from the environment, here and in the servers.
    Object.assign(process.env, CREDENTIALS);
    [live, restored, empty] = await Promise.all([startS3([BUCKET]), startS3([BUCKET]), startS3([BUCKET])]);
  });
  afterAll(async () => {
    await Promise.all([live?.close(), restored?.close(), empty?.close()]);
  });

  it('serves the logs from the bucket’s copy, and none without it', async () => {
    const database = join(dir, 'svc.sqlite');
    const settings = { bucket: BUCKET, endpoint: live.endpoint, pathStyle: true, prefix: PREFIX };
    const store = await openStore({
      datasource: { driver: 'embedded_sql', path: database },
      secretKey: FIXTURE_SECRET_KEY,
      logs: (logs, batches) =>
        new ObjectLogStore(logs, batches, settings, (message, error) => {
          throw new Error(message, { cause: error });
        }),
    });
    await writeUpgradeData(store);
    await store.close();

    // Four steps' logs (two builds of two steps), each one object.
    expect(await copyBucket(clientOf(live), clientOf(restored))).toBe(4);
    const backup = join(dir, 'backup.sqlite');
    expect(
      (await runSvc(['backup', backup], { cwd: dir, env: { SVC_DATABASE_DATASOURCE: database } })).code,
    ).toBe(0);
    const fresh = join(dir, 'restored.sqlite');
    copyFileSync(backup, fresh);

    const objstore = (s3: TestS3) => ({
      SVC_OBJSTORE_BUCKET: BUCKET,
      SVC_OBJSTORE_ENDPOINT: s3.endpoint,
      SVC_OBJSTORE_PATH_STYLE: 'true',
      SVC_OBJSTORE_PREFIX: PREFIX,
      ...CREDENTIALS,
    });
    await expectServed({ driver: 'embedded_sql', path: fresh }, dir, objstore(restored));
    // Without the bucket's copy the database alone has the builds but not their logs.
    expect(await servedLog({ driver: 'embedded_sql', path: fresh }, dir, objstore(empty))).toBe(404);
  }, 120_000);
});
