/**
 * How one file of an artifact is sent: artifacts are what builds made — anyone who can push a
 * pipeline writes them — and they are served from svc's own origin, where an HTML or SVG file
 * could run scripts as the viewer. So only two kinds open in the browser: text, always as
 * `text/plain` (a browser never runs it), and PNG, JPEG, GIF and WebP images by their extension.
 * Everything else downloads as `application/octet-stream`. The route adds `nosniff` and a
 * sandboxing Content-Security-Policy to every file, so a mislabelled file stays inert.
 */
export type FileType =
  | { readonly inline: true; readonly contentType: string }
  | { readonly inline: false; readonly contentType: 'application/octet-stream' };

const IMAGES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

/**
 * Extensions of files that are text to read: logs, reports, data and settings formats. Scripts
 * and markup a browser would run (js, html, svg) are not here: those download.
 */
const TEXT = new Set([
  'txt',
  'text',
  'log',
  'out',
  'md',
  'markdown',
  'rst',
  'adoc',
  'csv',
  'tsv',
  'json',
  'jsonl',
  'ndjson',
  'yaml',
  'yml',
  'toml',
  'ini',
  'cfg',
  'conf',
  'properties',
  'env',
  'xml',
  'diff',
  'patch',
  'sha1',
  'sha256',
  'sha512',
  'md5',
  'sum',
  'lcov',
  'info',
  'tap',
]);

/** Files named like this, without an extension, are text too. */
const TEXT_NAMES =
  /^(readme|license|licence|copying|notice|authors|changelog|changes|version|(sha\d*|md5)sums)$/i;

/** How many first bytes are looked at for a NUL before a text file is sent as text. */
export const SNIFF_BYTES = 8192;

const OCTET: FileType = { inline: false, contentType: 'application/octet-stream' };

/**
 * How the file at `path` is sent. `head`, its first bytes (up to SNIFF_BYTES), vetoes text: a
 * `.log` that holds a NUL byte is not text, and downloads.
 */
export function fileType(path: string, head: Uint8Array): FileType {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  const extension = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  const image = IMAGES[extension];
  if (image !== undefined) return { inline: true, contentType: image };
  const text = extension === '' ? TEXT_NAMES.test(base) : TEXT.has(extension);
  if (text && !head.includes(0)) return { inline: true, contentType: 'text/plain; charset=utf-8' };
  return OCTET;
}
