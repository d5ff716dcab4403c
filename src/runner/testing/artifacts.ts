import { Readable } from 'node:stream';
import { createZstdCompress } from 'node:zlib';
import * as tar from 'tar-stream';
import type { ExecArtifacts } from '../../core/engine.js';
import type { ArtifactTransport } from '../artifacts/transport.js';

/** A step's `artifacts:` as the engines' tests use them: two path globs and a JUnit report glob. */
export const TEST_ARTIFACTS: ExecArtifacts = {
  name: 'out',
  paths: ['dist/**', 'build/app'],
  expireIn: 0,
  always: false,
  reports: { junit: ['reports/*.xml'] },
};

/** A transport that keeps what is uploaded, by name, as entry → content; fetch answers `fetched`. */
export function keepingArtifacts(
  fetched?: Record<string, string>,
): ArtifactTransport & { uploads: Map<string, Record<string, string>> } {
  const uploads = new Map<string, Record<string, string>>();
  return {
    uploads,
    async upload({ name, tar: stream }) {
      const extract = tar.extract();
      stream.pipe(extract);
      const files: Record<string, string> = {};
      for await (const entry of extract) {
        const chunks: Buffer[] = [];
        for await (const chunk of entry) chunks.push(chunk as Buffer);
        files[entry.header.name] =
          entry.header.type === 'symlink' ? `-> ${entry.header.linkname}` : Buffer.concat(chunks).toString();
      }
      uploads.set(name, files);
      return { files: Object.keys(files).length, size: 0 };
    },
    fetch() {
      if (fetched === undefined) return Promise.resolve(undefined);
      const pack = tar.pack();
      for (const [name, content] of Object.entries(fetched))
        pack.entry({ name: `w/${name}`, mode: 0o644 }, content);
      pack.finalize();
      return Promise.resolve(Readable.from(pack).pipe(createZstdCompress()));
    },
  };
}
