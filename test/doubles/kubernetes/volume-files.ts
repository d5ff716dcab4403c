/*
 * Files of downwardAPI and secret volumes, written as the kubelet's AtomicWriter does: the payload goes
 * into a fresh timestamped directory `..<time>.<random>`, the `..data` symlink is swapped to it with a
 * rename (atomic), and each visible name is a symlink `name -> ..data/name`. A reader in a container
 * therefore sees either the old or the new set of files, never a half-written one.
 *
 * Maps (`metadata.labels`, `metadata.annotations`) are rendered as fieldpath.FormatMap does: one
 * `key="value"` line per key, sorted, the value quoted like Go's strconv.Quote, no final newline. The
 * annotations include the two the kubelet adds to its own copy of a pod (`kubernetes.io/config.seen`,
 * `kubernetes.io/config.source`), which a real cluster shows in this file but never in the API.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fieldValue, type FieldValues } from './env.js';
import type { Pod, Secret, Volume } from './types.js';

export type VolumeFiles = Map<string, { data: Buffer; mode: number }>;

/** Go's strconv.Quote. */
export function goQuote(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    const escaped = SIMPLE_ESCAPES[char];
    if (escaped !== undefined) out += escaped;
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += '\\ufffd';
    else if (code > 0x7f && /[\p{C}\p{Z}]/u.test(char)) {
      out +=
        code < 0x10000
          ? `\\u${code.toString(16).padStart(4, '0')}`
          : `\\U${code.toString(16).padStart(8, '0')}`;
    } else out += char;
  }
  return `${out}"`;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** fieldpath.FormatMap. */
export function formatMap(map: Record<string, string>): string {
  return Object.keys(map)
    .sort()
    .map((key) => `${key}=${goQuote(map[key] ?? '')}`)
    .join('\n');
}

/** The files of a downwardAPI volume for the pod as it is now. */
export function downwardFiles(pod: Pod, volume: Volume, seenAt: string, fields: FieldValues): VolumeFiles {
  const files: VolumeFiles = new Map();
  const source = volume.downwardAPI ?? {};
  for (const item of source.items ?? []) {
    const path = item.fieldRef?.fieldPath;
    if (path === undefined) continue; // resourceFieldRef: not modelled
    let text: string;
    if (path === 'metadata.annotations') {
      text = formatMap({
        ...pod.metadata.annotations,
        'kubernetes.io/config.seen': seenAt,
        'kubernetes.io/config.source': 'api',
      });
    } else if (path === 'metadata.labels') {
      text = formatMap(pod.metadata.labels ?? {});
    } else {
      text = fieldValue(pod, path, fields);
    }
    files.set(item.path, { data: Buffer.from(text), mode: item.mode ?? source.defaultMode ?? 0o644 });
  }
  return files;
}

/** The files of a secret volume (all keys, or the listed `items`). */
export function secretFiles(volume: Volume, secret: Secret | undefined): VolumeFiles {
  const files: VolumeFiles = new Map();
  const source = volume.secret ?? {};
  const data = secret?.data ?? {};
  const items = source.items ?? Object.keys(data).map((key) => ({ key, path: key, mode: undefined }));
  for (const item of items) {
    const value = data[item.key];
    if (value === undefined) continue;
    files.set(item.path, {
      data: Buffer.from(value, 'base64'),
      mode: item.mode ?? source.defaultMode ?? 0o644,
    });
  }
  return files;
}

/** A fingerprint of a file set, to skip rewriting what did not change. */
export function fingerprint(files: VolumeFiles): string {
  return JSON.stringify(
    [...files].sort(([a], [b]) => a.localeCompare(b)).map(([p, f]) => [p, f.mode, f.data.toString('base64')]),
  );
}

/** Writes `files` into `dir` atomically (see the file comment). */
export async function writeAtomically(dir: string, files: VolumeFiles): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const stamp = new Date().toISOString().replace(/[-:T]/g, '_').replace(/\..*$/, '');
  const payload = await mkdtemp(join(dir, `..${stamp}.`));
  await chmod(payload, 0o755);
  for (const [path, file] of files) {
    const target = join(payload, path);
    await mkdir(dirname(target), { recursive: true, mode: 0o755 });
    await writeFile(target, file.data);
    await chmod(target, file.mode);
  }
  const temporary = join(dir, `..data_tmp${randomBytes(4).toString('hex')}`);
  await symlink(basename(payload), temporary);
  await rename(temporary, join(dir, '..data'));
  const visible = new Set([...files.keys()].map((path) => path.split('/')[0] ?? path));
  const entries = await readdir(dir);
  for (const name of visible) {
    if (!entries.includes(name)) await symlink(join('..data', name), join(dir, name));
  }
  for (const entry of entries) {
    const stalePayload = entry.startsWith('..') && entry !== '..data' && entry !== basename(payload);
    const staleLink = !entry.startsWith('..') && !visible.has(entry);
    if (stalePayload || staleLink) await rm(join(dir, entry), { recursive: true, force: true });
  }
}
