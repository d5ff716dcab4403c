import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built web UI (web/dist): its page, and its hashed assets with their precompressed forms. */
export interface WebApp {
  readonly html: Buffer;
  readonly assets: ReadonlyMap<string, Asset>;
}

export interface Asset {
  readonly type: string;
  readonly raw: Buffer;
  readonly gzip?: Buffer;
  readonly brotli?: Buffer;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

/** web/dist, the same two levels above this file from the sources (src/…) and the build (dist/…). */
export const WEB_DIST = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

/**
 * Reads the built UI into memory once: it is small (tens of kilobytes) and never changes while the
 * server runs, so answering from memory saves a file read per request. Undefined when the UI was
 * not built (`npm run build` builds it; `npm ci` runs that).
 */
export function loadWebApp(dir = WEB_DIST): WebApp | undefined {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return undefined;
  const assets = new Map<string, Asset>();
  const assetDir = join(dir, 'assets');
  const files = existsSync(assetDir) ? readdirSync(assetDir) : [];
  for (const file of files) {
    const type = TYPES[extname(file)];
    if (type === undefined) continue;
    const raw = readFileSync(join(assetDir, file));
    const variant = (suffix: string) =>
      files.includes(file + suffix) ? readFileSync(join(assetDir, file + suffix)) : undefined;
    const gzip = variant('.gz');
    const brotli = variant('.br');
    assets.set(file, { type, raw, ...(gzip ? { gzip } : {}), ...(brotli ? { brotli } : {}) });
  }
  return { html: readFileSync(index), assets };
}
