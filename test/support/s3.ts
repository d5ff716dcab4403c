import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/** A real S3-protocol server (s3rver, in process) on loopback, with its buckets and a file store. */
export interface TestS3 {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** Where s3rver keeps the objects as files (tests read what was really stored). */
  readonly directory: string;
  close(): Promise<void>;
}

/**
 * Starts s3rver with `buckets`. It accepts any credentials: the SDK's chain must still find some,
 * so tests set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (s3rver's documented S3RVER/S3RVER).
 */
export async function startS3(buckets: string[]): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'svc-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const address = await server.run();
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    directory,
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
