import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar-stream';
import { ZIP_LIMITS } from './format.js';
import { TarEntryChecker } from './tar-entries.js';
import { ZipWriter, type ZipSummary, type ZipWriterOptions } from './zip-writer.js';

/** A zip being made from a tar. */
export interface TarToZip {
  /** The zip's bytes; fails with the error that stops it. */
  zip: Readable;
  /**
   * The summary once the zip's last byte is handed to `zip`; rejects with the same error as `zip`
   * (UnsafeEntryError for a refused entry), or when `zip` is closed before it is whole.
   */
  done: Promise<ZipSummary>;
}

/**
 * The zip of a tar, made while both stream: one entry per file, folder and symbolic link (a hard
 * link becomes a symbolic link to its first name), in the tar's order, each checked as
 * TarEntryChecker says. Memory stays flat whatever the entries' sizes: only the central directory
 * is kept, and the writer's limits bound it. Reading `zip` drives the work: nothing is read from
 * `input` faster than `zip` is read. `input` is destroyed when the zip fails or is closed early.
 */
export function tarToZip(input: Readable, options: ZipWriterOptions = {}): TarToZip {
  const writer = new ZipWriter(options);
  const checker = new TarEntryChecker((options.limits ?? ZIP_LIMITS).maxNameBytes);
  let settled = false;
  let resolve!: (summary: ZipSummary) => void;
  let reject!: (error: Error) => void;
  const done = new Promise<ZipSummary>((yes, no) => {
    resolve = (summary) => ((settled = true), yes(summary));
    reject = (error) => ((settled = true), no(error));
  });
  // A caller that only watches `zip` must not meet an unhandled rejection.
  done.catch(() => undefined);

  async function* zipBytes(): AsyncGenerator<Buffer> {
    const extract = tar.extract();
    const feeding = pipeline(input, extract);
    feeding.catch(() => undefined);
    try {
      for await (const entry of extract) {
        const spec = checker.check(entry.header);
        if (spec?.kind !== 'file') entry.resume();
        if (spec === undefined) continue;
        switch (spec.kind) {
          case 'file':
            yield* writer.file(spec, spec.size, entry as AsyncIterable<Buffer>);
            break;
          case 'directory':
            yield* writer.directory(spec);
            break;
          case 'symlink':
            yield* writer.symlink(spec, spec.target);
            break;
        }
      }
      await feeding;
      yield* writer.finish();
      resolve(writer.summary);
    } catch (error) {
      // Destroying `zip` throws its own AbortError in here: say what happened instead.
      reject(zip.destroyed ? closedEarly(error) : (error as Error));
      throw error;
    } finally {
      extract.destroy();
    }
  }

  const zip = Readable.from(zipBytes(), { objectMode: false });
  zip.once('close', () => {
    if (settled) return;
    reject(closedEarly());
    input.destroy();
  });
  return { zip, done };
}

function closedEarly(cause?: unknown): Error {
  return new Error('the zip stream was closed before it was whole', { cause });
}
