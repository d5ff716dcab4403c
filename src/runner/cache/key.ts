import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import * as tar from 'tar-stream';
import type { StepFiles } from '../../core/engine.js';

const CHECKSUM = /\{\{\s*checksum\s+"([^"]+)"\s*\}\}/g;

/** Longest key svc keeps (lint checks the written one; a checksum makes it longer). */
export const MAX_KEY_LENGTH = 512;

/**
 * A cache key with each `{{ checksum "FILE" }}` replaced by the SHA-256 (hex) of the workspace's
 * file as it is when the step is about to run — so a changed lock file makes a new key. Throws,
 * naming the file, when it is not there or is not a file.
 */
export async function resolveKey(template: string, files: StepFiles, workspacePath: string): Promise<string> {
  let key = '';
  let at = 0;
  for (const match of template.matchAll(CHECKSUM)) {
    const file = match[1] ?? '';
    key += template.slice(at, match.index) + (await checksum(files, posix.join(workspacePath, file), file));
    at = match.index + match[0].length;
  }
  key += template.slice(at);
  if (key.length > MAX_KEY_LENGTH) throw new Error(`the key is longer than ${MAX_KEY_LENGTH} characters`);
  if ([...key].some((c) => c < ' ' || c === '\u007f')) throw new Error('the key has control characters');
  return key;
}

async function checksum(files: StepFiles, path: string, written: string): Promise<string> {
  const archive = await files.get(path);
  if (archive === undefined) throw new Error(`checksum "${written}": no such file in the workspace`);
  const hash = await firstFileHash(archive);
  if (hash === undefined) throw new Error(`checksum "${written}": not a file`);
  return hash;
}

/** The SHA-256 of the tar's first entry when it is a file; the rest is read and dropped. */
async function firstFileHash(archive: Readable): Promise<string | undefined> {
  const extract = tar.extract();
  archive.pipe(extract);
  archive.once('error', (error) => extract.destroy(error));
  let hash: string | undefined;
  let first = true;
  for await (const entry of extract) {
    if (first && entry.header.type === 'file') {
      const sha = createHash('sha256');
      for await (const chunk of entry) sha.update(chunk as Buffer);
      hash = sha.digest('hex');
    } else entry.resume();
    first = false;
  }
  return hash;
}
