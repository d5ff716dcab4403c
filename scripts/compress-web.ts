/*
 * Writes a gzip and a brotli copy next to every asset of the built web UI (web/dist/assets), at the
 * highest levels: done once at build time, so that the server sends compressed assets without
 * compressing anything per request. Run by `npm run build` after `vite build web`.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { WEB_DIST } from '../src/server/web/web-app.js';

const dir = join(WEB_DIST, 'assets');
let before = 0;
let after = 0;
for (const file of readdirSync(dir)) {
  if (!/\.(js|css|svg|map)$/.test(file)) continue;
  const raw = readFileSync(join(dir, file));
  const brotli = brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
  writeFileSync(join(dir, `${file}.gz`), gzipSync(raw, { level: 9 }));
  writeFileSync(join(dir, `${file}.br`), brotli);
  before += raw.length;
  after += brotli.length;
}
console.log(`web assets: ${before} bytes, ${after} with brotli`);
