import { DEFAULT_EMBEDDED_DATASOURCE } from '../datasource.js';
import { SERVER } from '../kinds.js';
import { databaseDriver, databaseSecret, datasource, defaultDatasource } from '../values/datasource.js';
import { duration } from '../values/duration.js';
import { memorySize } from '../values/memory.js';
import { httpUrl } from '../values/network.js';
import { boolean, text } from '../values/scalars.js';
import { group, setting } from './define.js';

const HOUR = 3_600_000;

/** The database and the object store for logs. */
export const serverStorage = group(
  'Server: storage',
  'The database holding all durable state, an optional object store for build logs and caches, and where caches are kept otherwise.',
  [
    setting('SVC_DATABASE_DRIVER', SERVER, databaseDriver, {
      default: 'embedded_sql',
      description:
        'The database: embedded_sql (a SQLite file), sql_a (MySQL or MariaDB) or sql_b (PostgreSQL).',
    }),
    setting('SVC_DATABASE_DATASOURCE', SERVER, datasource, {
      whenUnset: defaultDatasource,
      defaultDoc: `\`${DEFAULT_EMBEDDED_DATASOURCE}\` with embedded_sql; required with sql_a and sql_b`,
      secret: true,
      description:
        'Where the database is, in the form the driver needs (see "Datasources" above). Only the password part is secret: `svc config print` shows the rest.',
    }),
    setting('SVC_DATABASE_SECRET', SERVER, databaseSecret, {
      secret: true,
      defaultDoc: 'none: secrets, provider tokens, signing keys and hook secrets are stored unencrypted',
      description:
        'The AES-256 key encrypting secrets, provider tokens, repository signing keys and webhook secrets in the database, each value bound to its row (see "The database secret" above). API tokens are hashed with or without it. Set it before first use; added later, it encrypts the existing values at the next start.',
    }),
    setting('SVC_OBJSTORE_BUCKET', SERVER, text('a bucket name'), {
      description:
        'Stores finished step logs in this OBJSTORE (S3 or S3-compatible) bucket instead of the database, one object per step; live lines stay in the database until the step ends, an upload that keeps failing leaves the log in the database, and logs stored before stay readable. Credentials come from the AWS SDK chain (AWS_ACCESS_KEY_ID, AWS_PROFILE, roles). Checked at start (docs/database.md).',
    }),
    setting('SVC_OBJSTORE_ENDPOINT', SERVER, httpUrl('https://s3.example.com'), {
      description:
        'Endpoint of an S3-compatible object store; unset means Amazon S3. Needs SVC_OBJSTORE_BUCKET.',
    }),
    setting('SVC_OBJSTORE_PATH_STYLE', SERVER, boolean, {
      description:
        'Addresses the bucket in the URL path (https://host/bucket/key) rather than as a subdomain, as many S3-compatible stores need. Needs SVC_OBJSTORE_BUCKET.',
    }),
    setting('SVC_OBJSTORE_PREFIX', SERVER, text('a key prefix such as logs/'), {
      defaultDoc: 'none: logs are stored at the root of the bucket',
      description:
        'A folder (key prefix) inside the bucket for log files; caches go under `<prefix>/caches/` and artifacts under `<prefix>/artifacts/`. Needs SVC_OBJSTORE_BUCKET.',
    }),
    setting('SVC_STORAGE_DIR', SERVER, text('a folder'), {
      addition: true,
      defaultDoc:
        '`storage` in the data folder (next to the SQLite database; `data/storage` with the other databases)',
      description:
        'Where the server keeps build caches and artifacts on its own disk when SVC_OBJSTORE_BUCKET is not set (docs/caches.md, docs/artifacts.md). With a bucket, they go to the bucket and this folder is not used.',
    }),
    setting('SVC_CACHE_MAX_SIZE', SERVER, memorySize, {
      addition: true,
      default: 10 * 2 ** 30,
      description:
        "How much a repository's caches may take together (compressed); beyond it the least recently used go. One cache larger than this is refused.",
    }),
    setting('SVC_CACHE_MAX_AGE', SERVER, duration(HOUR), {
      addition: true,
      default: 30 * 24 * HOUR,
      description: 'How long a cache may go unrestored before it is removed.',
    }),
    setting('SVC_ARTIFACT_MAX_SIZE', SERVER, memorySize, {
      addition: true,
      default: 5 * 2 ** 30,
      description:
        "How large one artifact's files may be together (uncompressed); a larger upload is refused (docs/artifacts.md).",
    }),
    setting('SVC_ARTIFACT_MAX_AGE', SERVER, duration(), {
      addition: true,
      default: 30 * 24 * HOUR,
      description:
        "How long an artifact is kept when its step's `expire_in` says nothing; 0 keeps artifacts as long as their build. Artifacts go with their build when it is purged.",
    }),
  ],
);
