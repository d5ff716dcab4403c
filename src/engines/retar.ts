import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar-stream';

/** Each entry of `archive` with its header changed, streamed in order; the archive's error fails the result. */
export function retar(archive: Readable, change: (header: tar.Header) => tar.Header): Readable {
  const extract = tar.extract();
  const pack = tar.pack();
  const out = new PassThrough();
  const fail = (error: unknown) => {
    out.destroy(error as Error);
    pack.destroy();
    extract.destroy();
  };
  const feeding = pipeline(archive, extract);
  feeding.catch(() => undefined);
  void (async () => {
    for await (const entry of extract) {
      const header = change(entry.header);
      await new Promise<void>((resolve, reject) => {
        const sink = pack.entry(header, (error) => (error ? reject(error) : resolve()));
        if (header.type === 'file' || header.type === 'contiguous-file') pipeline(entry, sink).catch(reject);
        else entry.resume();
      });
    }
    await feeding;
    pack.finalize();
  })().catch(fail);
  pipeline(pack, out).catch(fail);
  // A reader that gives up lets the archive go (the tar that makes it then stops: its stream closed).
  out.once('close', () => {
    if (!out.readableEnded) archive.destroy();
  });
  return out;
}
