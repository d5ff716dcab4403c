import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import type { CacheHit, CacheRefusal, CacheTransport } from './transport.js';

const index = z.record(z.string(), z.object({ file: z.string(), created: z.number(), size: z.number() }));
type Index = z.infer<typeof index>;

/**
 * Caches in a folder of this machine (`svc exec`: local runs are fast too): one
 * `<sha256 of key>.tar.zst` per key and `index.json` naming them. Writes go to a temporary file
 * renamed into place, so an interrupted save leaves the previous entry. One process at a time.
 */
export class LocalCacheTransport implements CacheTransport {
  constructor(
    private readonly dir: string,
    private readonly now: () => number = Date.now,
  ) {}

  async restore(key: string, restoreKeys: readonly string[]): Promise<CacheHit | undefined> {
    const entries = await this.#read();
    const exact = entries[key];
    let found: [string, Index[string]] | undefined = exact === undefined ? undefined : [key, exact];
    for (const prefix of restoreKeys) {
      if (found !== undefined) break;
      found = Object.entries(entries)
        .filter(([name]) => name.startsWith(prefix))
        .sort(([, a], [, b]) => b.created - a.created)[0];
    }
    if (found === undefined) return undefined;
    const [name, entry] = found;
    const path = join(this.dir, entry.file);
    const size = (await stat(path).catch(() => undefined))?.size;
    if (size === undefined) return undefined;
    return { key: name, exact: name === key, size, body: createReadStream(path) };
  }

  async save(key: string, archive: Readable): Promise<{ size: number } | CacheRefusal> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const file = `${createHash('sha256').update(key).digest('hex')}.tar.zst`;
    const unfinished = join(this.dir, `.${randomBytes(8).toString('hex')}.part`);
    try {
      await pipeline(archive, createWriteStream(unfinished, { mode: 0o600 }));
      await rename(unfinished, join(this.dir, file));
    } catch (error) {
      await rm(unfinished, { force: true });
      throw error;
    }
    const { size } = await stat(join(this.dir, file));
    const entries = await this.#read();
    entries[key] = { file, created: this.now(), size };
    const next = join(this.dir, `.index-${randomBytes(8).toString('hex')}`);
    await writeFile(next, JSON.stringify(entries), { mode: 0o600 });
    await rename(next, join(this.dir, 'index.json'));
    return { size };
  }

  async #read(): Promise<Index> {
    try {
      return index.parse(JSON.parse(await readFile(join(this.dir, 'index.json'), 'utf8')));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new Error(`the cache index ${join(this.dir, 'index.json')} is unreadable: remove the folder`, {
        cause: error,
      });
    }
  }
}
