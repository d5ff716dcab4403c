import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * A real image registry for pull tests, small enough to read: one image with one layer, served
 * over the registry HTTP API v2 on the host's loopback behind basic auth. The Docker engine pulls
 * from it itself (it trusts 127.0.0.0/8 registries over plain HTTP), so a pull exercises the
 * credentials svc sends and the progress stream Docker answers with.
 */
export interface TestRegistry {
  /** `127.0.0.1:<port>/svc/hello:1`. */
  image: string;
  address: string;
  close(): Promise<void>;
}

const sha256 = (data: Buffer): string => `sha256:${createHash('sha256').update(data).digest('hex')}`;

/** The image: a layer holding /hello.txt, its config and its manifest. */
function imageBlobs(): { manifest: Buffer; blobs: Map<string, Buffer> } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-registry-'));
  try {
    writeFileSync(join(dir, 'hello.txt'), 'hello\n');
    const tar = execFileSync('tar', ['-c', '-C', dir, 'hello.txt']);
    const layer = gzipSync(tar);
    const config = Buffer.from(
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        config: { Cmd: ['/hello.txt'] },
        rootfs: { type: 'layers', diff_ids: [sha256(tar)] },
      }),
    );
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
        config: {
          mediaType: 'application/vnd.docker.container.image.v1+json',
          size: config.length,
          digest: sha256(config),
        },
        layers: [
          {
            mediaType: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
            size: layer.length,
            digest: sha256(layer),
          },
        ],
      }),
    );
    return {
      manifest,
      blobs: new Map([
        [sha256(config), config],
        [sha256(layer), layer],
      ]),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts the registry; only `username`/`password` may pull. */
export async function startRegistry(username: string, password: string): Promise<TestRegistry> {
  const { manifest, blobs } = imageBlobs();
  const expected = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  const server = http.createServer((req, res) => {
    const send = (status: number, body: Buffer, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'Content-Length': body.length, ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.headers.authorization !== expected) {
      return send(401, Buffer.from('{}'), { 'WWW-Authenticate': 'Basic realm="svc-test"' });
    }
    const path = req.url ?? '';
    if (path === '/v2/') return send(200, Buffer.from('{}'));
    // By tag first; then Docker asks again by the digest the first answer named.
    if (path === '/v2/svc/hello/manifests/1' || path === `/v2/svc/hello/manifests/${sha256(manifest)}`) {
      const type = 'application/vnd.docker.distribution.manifest.v2+json';
      return send(200, manifest, { 'Content-Type': type, 'Docker-Content-Digest': sha256(manifest) });
    }
    const blob = blobs.get(path.replace('/v2/svc/hello/blobs/', ''));
    if (blob) return send(200, blob, { 'Content-Type': 'application/octet-stream' });
    send(404, Buffer.from('{"errors":[{"code":"NOT_FOUND"}]}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    image: `${address}/svc/hello:1`,
    address,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
