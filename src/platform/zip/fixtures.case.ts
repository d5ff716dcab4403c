import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar-stream';
import { readCentralDirectory, type ZipEntry } from './central-directory.js';
import { entryStream } from './entry-stream.js';
import { tarToZip } from './tar-to-zip.js';
import { zipBlobOfBuffer, type ZipBlob } from './zip-blob.js';
import type { ZipSummary, ZipWriterOptions } from './zip-writer.js';

/** Test helpers of the zip suites: tars to feed, zips to read, the real tools to ask. */

export interface TarEntry {
  name: string;
  type?: tar.Header['type'];
  content?: string | Buffer;
  /** A large file's data, streamed, with its size. */
  stream?: { size: number; data: () => Readable };
  linkname?: string;
  mode?: number;
  mtime?: Date;
}

export const MTIME = new Date('2024-05-06T07:08:10Z');

/** A tar of `entries`, as a runner or an attacker would send it. */
export function tarOf(entries: readonly TarEntry[]): Readable {
  const pack = tar.pack();
  void (async () => {
    for (const entry of entries) {
      const type = entry.type ?? 'file';
      const content = typeof entry.content === 'string' ? Buffer.from(entry.content) : entry.content;
      const header: tar.Header = {
        name: entry.name,
        type,
        mode: entry.mode ?? (type === 'directory' ? 0o755 : 0o644),
        mtime: entry.mtime ?? MTIME,
        size: entry.stream?.size ?? content?.length ?? 0,
        linkname: entry.linkname ?? '',
        uid: 0,
        gid: 0,
        uname: '',
        gname: '',
        devmajor: 0,
        devminor: 0,
      };
      if (entry.stream !== undefined) {
        const done = new Promise<void>((resolve, reject) => {
          const sink = pack.entry(header, (error) => (error ? reject(error) : resolve()));
          pipeline(entry.stream?.data() ?? Readable.from([]), sink as unknown as NodeJS.WritableStream).catch(
            reject,
          );
        });
        await done;
      } else if (type === 'file') pack.entry(header, content ?? Buffer.alloc(0));
      else pack.entry(header);
    }
    pack.finalize();
  })().catch((error: unknown) => pack.destroy(error as Error));
  return Readable.from(pack);
}

/** The zip of a tar, whole in memory. */
export async function zipOf(
  input: Readable,
  options?: ZipWriterOptions,
): Promise<{ bytes: Buffer; summary: ZipSummary }> {
  const { zip, done } = tarToZip(input, options);
  const chunks: Buffer[] = [];
  for await (const chunk of zip as AsyncIterable<Buffer>) chunks.push(chunk);
  return { bytes: Buffer.concat(chunks), summary: await done };
}

/** The zip of a tar, written to `path`. */
export async function writeZip(
  input: Readable,
  path: string,
  options?: ZipWriterOptions,
): Promise<ZipSummary> {
  const { zip, done } = tarToZip(input, options);
  await pipeline(zip, createWriteStream(path));
  return done;
}

export async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Every entry of a zip with its bytes, through the range reader. */
export async function readZip(blob: ZipBlob): Promise<Map<string, { entry: ZipEntry; data: Buffer }>> {
  const read = new Map<string, { entry: ZipEntry; data: Buffer }>();
  for (const entry of await readCentralDirectory(blob))
    read.set(entry.name, { entry, data: await bytesOf(await entryStream(blob, entry)) });
  return read;
}

export async function readZipBytes(bytes: Buffer): Promise<Map<string, { entry: ZipEntry; data: Buffer }>> {
  return readZip(zipBlobOfBuffer(bytes));
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end, in a UTF-8 locale (for unzip's names); never rejects for an exit code. */
export function run(command: string, args: readonly string[], options: { cwd?: string } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, LC_ALL: 'C.UTF-8' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** An entry as Python's zipfile sees it. */
export interface PythonEntry {
  name: string;
  mode: number;
  size: number;
  method: number;
  date: number[];
  zip64: boolean;
}

const PYTHON_CHECK = `
import json, struct, sys, zipfile

def zip64(extra):
    at = 0
    while at + 4 <= len(extra):
        tag, length = struct.unpack('<HH', extra[at:at + 4])
        if tag == 1:
            return True
        at += 4 + length
    return False

with zipfile.ZipFile(sys.argv[1]) as z:
    bad = z.testzip()
    entries = [dict(name=i.filename, mode=i.external_attr >> 16, size=i.file_size, method=i.compress_type,
                    date=list(i.date_time), zip64=zip64(i.extra)) for i in z.infolist()]
    print(json.dumps(dict(bad=bad, entries=entries)))
`;

/** Python's zipfile: the first entry failing its CRC (null for none), and the entries. */
export async function pythonRead(path: string): Promise<{ bad: string | null; entries: PythonEntry[] }> {
  const ran = await run('python3', ['-c', PYTHON_CHECK, path]);
  if (ran.code !== 0) throw new Error(`python3 zipfile failed: ${ran.stderr}`);
  return JSON.parse(ran.stdout) as { bad: string | null; entries: PythonEntry[] };
}

/** A fresh temporary folder, and its removal. */
export async function temporaryFolder(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'svc-zip-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

const JAVA_STREAM_CHECK = `
import java.io.*;
import java.util.zip.*;

public class StreamCheck {
  public static void main(String[] args) throws IOException {
    try (ZipInputStream zip = new ZipInputStream(new BufferedInputStream(new FileInputStream(args[0])))) {
      byte[] buffer = new byte[65536];
      for (ZipEntry entry; (entry = zip.getNextEntry()) != null; ) {
        long size = 0;
        for (int read; (read = zip.read(buffer)) > 0; ) size += read;
        System.out.println(entry.getName() + "\\t" + size);
      }
    }
  }
}
`;

/** Whether `java` runs here, for the streaming reader below. */
export async function hasJava(): Promise<boolean> {
  return run('java', ['-version']).then(
    (ran) => ran.code === 0,
    () => false,
  );
}

/**
 * The entries as Java's ZipInputStream reads them: front to back, through local headers and data
 * descriptors, never the central directory — it checks each entry's CRC and sizes on the way.
 */
export async function javaStreamRead(path: string, scratch: string): Promise<string[]> {
  const source = join(scratch, 'StreamCheck.java');
  await writeFile(source, JAVA_STREAM_CHECK);
  const ran = await run('java', [source, path]);
  if (ran.code !== 0) throw new Error(`java ZipInputStream failed: ${ran.stderr}`);
  return ran.stdout.split('\n').filter((line) => line !== '');
}
