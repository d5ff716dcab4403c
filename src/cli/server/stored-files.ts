import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ServerSettings } from '../../config/index.js';
import type { Store } from '../../core/store.js';
import { ArtifactService } from '../../server/artifacts/service.js';
import { StorageJanitor } from '../../server/storage-janitor.js';
import { CacheService } from '../../server/caches/service.js';
import type { BlobStore } from '../../core/blob.js';
import { DiskBlobStore } from '../../store/blobs/disk-blobs.js';
import { S3BlobStore } from '../../store/blobs/s3-blobs.js';
import { s3Client } from '../../store/objects/object-logs.js';
import { dataFolder } from './data-folder.js';

/** Where the server keeps caches' and artifacts' files, and how to sweep what interrupted writes left. */
export interface CacheStorage {
  blobs: BlobStore;
  /** Where, in words, for the log. */
  where: string;
  removeUnfinished?: (idleMs: number) => Promise<number>;
}

/**
 * The bucket of SVC_OBJSTORE_* (under `<SVC_OBJSTORE_PREFIX>caches/` and `…artifacts/`) when one is
 * set, else the folder SVC_STORAGE_DIR, by default `storage` in the data folder.
 */
export function cacheStorage(settings: ServerSettings, cwd: string): CacheStorage {
  const bucket = settings.SVC_OBJSTORE_BUCKET;
  if (bucket !== null) {
    // As the logs' objects: the prefix is a folder, `svc` and `svc/` the same.
    const folder = (settings.SVC_OBJSTORE_PREFIX ?? '').replace(/\/+$/, '');
    const prefix = folder === '' ? '' : `${folder}/`;
    const client = s3Client({
      bucket,
      endpoint: settings.SVC_OBJSTORE_ENDPOINT ?? undefined,
      pathStyle: settings.SVC_OBJSTORE_PATH_STYLE === true,
      prefix,
    });
    return {
      blobs: new S3BlobStore(
        client,
        bucket,
        prefix,
        Math.max(settings.SVC_CACHE_MAX_SIZE, settings.SVC_ARTIFACT_MAX_SIZE),
      ),
      where: `the bucket "${bucket}" under ${prefix}caches/ and ${prefix}artifacts/`,
    };
  }
  const root =
    settings.SVC_STORAGE_DIR === null
      ? join(dataFolder(settings, cwd), 'storage')
      : resolve(cwd, settings.SVC_STORAGE_DIR);
  const disk = new DiskBlobStore(root);
  return {
    blobs: disk,
    where: root,
    removeUnfinished: (idle) => disk.removeUnfinished(idle),
  };
}

/**
 * Steps' caches (SVC_CACHE_*) and artifacts (SVC_ARTIFACT_*) in `storage`, and their hourly clean-up
 * from when the server is ready until it closes.
 */
export function storedFiles(
  app: FastifyInstance,
  settings: ServerSettings,
  store: Store,
  storage: CacheStorage,
  logger: Logger,
): { caches: CacheService; artifacts: ArtifactService } {
  const warn = (message: string, error: unknown) => logger.warn({ err: error }, message);
  const caches = new CacheService({
    store: store.caches,
    blobs: storage.blobs,
    limits: { maxSize: settings.SVC_CACHE_MAX_SIZE, maxAge: settings.SVC_CACHE_MAX_AGE },
    warn,
  });
  const artifacts = new ArtifactService({
    store: store.artifacts,
    blobs: storage.blobs,
    limits: { maxSize: settings.SVC_ARTIFACT_MAX_SIZE, maxAge: settings.SVC_ARTIFACT_MAX_AGE },
    warn,
  });
  const janitor = new StorageJanitor({
    sweeps: [
      { name: 'caches', run: () => caches.expire() },
      { name: 'artifacts', run: () => artifacts.sweep() },
      { name: 'orphaned cache archives', run: () => caches.removeOrphans() },
      { name: 'orphaned artifact zips', run: () => artifacts.removeOrphans() },
    ],
    logger,
    ...(storage.removeUnfinished === undefined ? {} : { removeUnfinished: storage.removeUnfinished }),
  });
  app.addHook('onReady', (done) => {
    janitor.start();
    done();
  });
  app.addHook('onClose', async () => {
    await janitor.stop();
  });
  return { caches, artifacts };
}
